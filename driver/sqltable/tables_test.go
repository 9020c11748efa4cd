package sqltable

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbrig/dbrig/spec"
)

func TestOptionsFromProps(t *testing.T) {
	tests := []struct {
		name  string
		props []string
		want  Options // Layout: only its field count is compared
		err   string
	}{
		{"defaults", nil, Options{Timeout: 10 * time.Second, PoolSize: 4, Table: "usertable"}, ""},
		{"pool follows threads", []string{"threadcount=16"}, Options{Timeout: 10 * time.Second, PoolSize: 16, Table: "usertable"}, ""},
		{"set", []string{"x.timeout=0", "x.poolsize=2", "threadcount=8", "table=t2", "fieldcount=3"},
			Options{PoolSize: 2, Table: "t2"}, ""},
		{"bad timeout", []string{"x.timeout=soon"}, Options{}, "x.timeout"},
		{"bad threads", []string{"threadcount=0"}, Options{}, "threadcount"},
		{"bad pool", []string{"x.poolsize=0"}, Options{}, "x.poolsize"},
		{"bad layout", []string{"fieldcount=0"}, Options{}, "fieldcount"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := spec.NewProps()
			for _, kv := range tc.props {
				if err := p.SetFlag("-p", kv); err != nil {
					t.Fatal(err)
				}
			}
			o, err := OptionsFromProps(p, "x")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one naming %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fields := 10
			if tc.name == "set" {
				fields = 3
			}
			if o.Layout == nil || len(o.Layout.Fields) != fields {
				t.Errorf("layout %v, want %d fields", o.Layout, fields)
			}
			o.Layout = nil
			if o != tc.want {
				t.Errorf("options %+v, want %+v", o, tc.want)
			}
		})
	}
}

func TestTables(t *testing.T) {
	var ts Tables
	if len(ts.All()) != 0 {
		t.Fatalf("zero Tables holds %v", ts.All())
	}
	fail := errors.New("create failed")
	if _, err := ts.Get("a", func() (*Table, error) { return nil, fail }); !errors.Is(err, fail) {
		t.Fatalf("Get with a failing create: %v", err)
	}
	// Many goroutines ask for the same table: create runs once, all get it.
	var creates atomic.Int32
	want := newTable(t, Postgres(), 2, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := ts.Get("a", func() (*Table, error) { creates.Add(1); return want, nil })
			if err != nil || got != want {
				t.Errorf("Get = %p, %v; want %p", got, err, want)
			}
		}()
	}
	wg.Wait()
	if n := creates.Load(); n != 1 {
		t.Errorf("create ran %d times, want once", n)
	}
	if _, err := ts.Get("b", func() (*Table, error) { return newTable(t, Postgres(), 2, nil), nil }); err != nil {
		t.Fatal(err)
	}
	if all := ts.All(); len(all) != 2 || all["a"] != want {
		t.Errorf("All = %v, want a and b", all)
	}
}

func TestMismatchErrorAndScanDest(t *testing.T) {
	tb := newTable(t, SQLite(), 3, nil)
	cause := errors.New("no such column")
	err := tb.MismatchError("sqlite", cause)
	if !errors.Is(err, cause) {
		t.Errorf("%v does not wrap the cause", err)
	}
	if want := "sqlite: table usertable exists but not with columns ycsb_key, field0 … field2 (fieldcount=3)"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start with %q", err, want)
	}
	vals, dst := ScanDest(2)
	*dst[1].(*[]byte) = []byte("x")
	if len(vals) != 2 || string(vals[1]) != "x" {
		t.Errorf("ScanDest: the pointers do not fill the values: %q", vals)
	}
}
