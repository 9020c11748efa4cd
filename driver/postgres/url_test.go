package postgres

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver/sqltable"
	"github.com/dbrig/dbrig/spec"
)

// A malformed pg.url is bad input (a *spec.PropError: exit 2) saying what
// was expected, and never shows the password.
func TestMalformedURL(t *testing.T) {
	for _, url := range []string{"::nonsense", "postgres://u:SECRET@127.0.0.1:99999999/x"} {
		_, err := poolConfig(url, spec.Source{Flag: "-p"}, "pg.url", sqltable.Options{})
		var pe *spec.PropError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "postgres://") || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: %v", url, err)
		}
	}
}
