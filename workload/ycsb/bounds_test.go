package ycsb

import (
	"errors"
	"testing"

	"github.com/dbrig/dbrig/spec"
)

// A record count too large for the key generators is blamed on the
// property that sets it, not on the distribution that then fails.
func TestRecordCountBound(t *testing.T) {
	for _, kv := range [][]string{
		{"recordcount=9223372036854775807"},
		{"recordcount=10", "insertstart=9223372036854775807", "insertcount=1"},
	} {
		_, err := New(props(kv...))
		var pe *spec.PropError
		if !errors.As(err, &pe) || pe.Key != "recordcount" && pe.Key != "insertstart" {
			t.Errorf("%v: %v, want an error naming recordcount or insertstart", kv, err)
		}
	}
}
