package gate

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/spec"
)

// The file's check: block gives what the flags do not; flags win.
func TestConfigure(t *testing.T) {
	rule, err := spec.ParseCheckRule("READ.p99>+10%")
	if err != nil {
		t.Fatal(err)
	}
	file := &spec.Check{Baseline: "tag:main", FailOn: []spec.CheckRule{rule}, Confidence: 0.99}
	for _, c := range []struct {
		name                 string
		check                *spec.Check
		failOn               []string
		baseline, confidence string
		wantBase             spec.Baseline
		wantRules            int
		wantConf             float64
		wantErr              string
	}{
		{name: "file only", check: file, wantBase: spec.Baseline{Tag: "main"}, wantRules: 1, wantConf: 0.99},
		{name: "flags win", check: file, failOn: []string{"throughput<-5%", "p95>+10%"}, baseline: "history:5", confidence: "90%",
			wantBase: spec.Baseline{History: 5}, wantRules: 2, wantConf: 0.9},
		{name: "flags only", baseline: "7", wantBase: spec.Baseline{ID: 7}},
		{name: "no baseline", wantErr: ErrNoBaseline.Error()},
		{name: "bad rule", baseline: "7", failOn: []string{"p95"}, wantErr: "--fail-on "},
		{name: "bad confidence", baseline: "7", confidence: "200%", wantErr: "--confidence "},
		{name: "bad baseline", baseline: "nope:1", wantErr: "--baseline "},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, base, err := Configure(c.check, c.failOn, c.baseline, c.confidence)
			if c.wantErr != "" {
				var ie *InputError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.As(err, &ie) && !errors.Is(err, ErrNoBaseline) {
					t.Errorf("err %v, want one saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil || base != c.wantBase || len(o.Rules) != c.wantRules || o.Confidence != c.wantConf {
				t.Errorf("got %+v %+v %v; want base %+v, %d rules, confidence %g", o, base, err, c.wantBase, c.wantRules, c.wantConf)
			}
		})
	}
}
