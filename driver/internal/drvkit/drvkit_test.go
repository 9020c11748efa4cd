package drvkit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/errclass"
	"github.com/dbrig/dbrig/spec"
)

func props(key, value string) *spec.Props {
	p := spec.NewProps()
	if key != "" {
		p.Set(key, value, spec.Source{File: "t.properties", Line: 3})
	}
	return p
}

func TestPositive(t *testing.T) {
	tests := []struct {
		value string // "" = unset
		want  time.Duration
		err   string
	}{
		{"", 5 * time.Second, ""},
		{"250ms", 250 * time.Millisecond, ""},
		{"0", 0, `t.properties:3: property x.timeout="0": expected a duration > 0`},
		{"-1s", 0, "expected a duration > 0"},
		{"soon", 0, `x.timeout="soon": expected a duration`},
	}
	for _, tc := range tests {
		key := "x.timeout"
		if tc.value == "" {
			key = ""
		}
		d, err := Positive(props(key, tc.value), "x.timeout", 5*time.Second)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || d != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.value, d, err, tc.want)
		}
	}
}

func TestHostPorts(t *testing.T) {
	tests := []struct {
		value     string
		endpoints bool // Endpoints rather than HostPorts
		want      []string
		err       string
	}{
		{"", false, []string{"127.0.0.1:1"}, ""},
		{" a:1, ,b:2 ", false, []string{"a:1", "b:2"}, ""},
		{"a", false, nil, `t.properties:3: property x.addrs="a": expected a comma-separated list of host:port ("a": `},
		{" , ", false, nil, "none given"},
		{"http://a:1", false, nil, `"http://a:1"`},
		{"http://a:1,b:2", true, []string{"http://a:1", "b:2"}, ""},
		{"http://a", true, nil, `"http://a"`},
	}
	for _, tc := range tests {
		key := "x.addrs"
		if tc.value == "" {
			key = ""
		}
		read := HostPorts
		if tc.endpoints {
			read = Endpoints
		}
		got, err := read(props(key, tc.value), "x.addrs", "127.0.0.1:1")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one containing %q", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, %v; want %q", tc.value, got, err, tc.want)
		}
	}
}

func TestClassify(t *testing.T) {
	timeoutOrConflict := func(err error) errclass.Class {
		if errors.Is(err, context.DeadlineExceeded) {
			return errclass.Timeout
		}
		return errclass.Conflict
	}
	slow := fmt.Errorf("get: %w", context.DeadlineExceeded)
	tests := []struct {
		err       error
		connected bool
		want      errclass.Class
		offline   bool // the message names the offline cause
	}{
		{slow, true, errclass.Timeout, false},
		{slow, false, errclass.Unavailable, true},
		{errors.New("raced"), false, errclass.Conflict, false},
	}
	for _, tc := range tests {
		asked := false
		got := Classify(tc.err, timeoutOrConflict, func() bool { asked = true; return tc.connected }, "no connection")
		if c := errclass.Of(got); c != tc.want {
			t.Errorf("%v (connected %v): class %q, want %q", tc.err, tc.connected, c, tc.want)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("%v: result %v does not wrap it", tc.err, got)
		}
		if named := strings.Contains(got.Error(), "(no connection)"); named != tc.offline {
			t.Errorf("%v: message %q names the offline cause: %v, want %v", tc.err, got, named, tc.offline)
		}
		if asked != (timeoutOrConflict(tc.err) == errclass.Timeout) {
			t.Errorf("%v: connected asked = %v; it is for timeouts only", tc.err, asked)
		}
	}
	if err := Classify(nil, nil, nil, ""); err != nil {
		t.Errorf("Classify(nil) = %v", err)
	}
}
