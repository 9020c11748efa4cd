package run

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
)

func TestModelNamed(t *testing.T) {
	cases := []struct {
		name string
		s    loadmodel.Load
		want Model  // when no error
		err  string // substring of the error
	}{
		{"", loadmodel.Load{}, Closed{}, ""},
		{"", loadmodel.Load{Rate: 5}, Open{Rate: 5, Arrival: Constant{}}, ""},
		{ClosedName, loadmodel.Load{Rate: 5, Arrival: ConstantName}, Closed{Rate: 5}, ""},
		{OpenName, loadmodel.Load{Rate: 5, Arrival: PoissonName, MaxBacklog: 9}, Open{Rate: 5, Arrival: Poisson{}, MaxBacklog: 9}, ""},
		{"half-open", loadmodel.Load{}, nil, `model = "half-open"`},
		{OpenName, loadmodel.Load{Rate: 10, Arrival: "bursty"}, nil, `arrival = "bursty"`},
		{ClosedName, loadmodel.Load{Rate: 10, Arrival: PoissonName}, nil, "belong to the open model"},
		{OpenName, loadmodel.Load{Rate: 10, ThinkTime: time.Second}, nil, "think time"},
	}
	for _, tc := range cases {
		m, err := ModelNamed(tc.name, tc.s)
		if tc.err != "" {
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ModelNamed(%q, %+v) = %v, want a ConfigError mentioning %q", tc.name, tc.s, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(m, tc.want) {
			t.Errorf("ModelNamed(%q, %+v) = %#v, %v; want %#v", tc.name, tc.s, m, err, tc.want)
		}
	}
}

// Settings are what a run stores: defaults applied, each model's own fields,
// the config's clients, phases and seed.
func TestSettings(t *testing.T) {
	cases := []struct {
		cfg  Config
		want loadmodel.Load
	}{
		{Config{}, loadmodel.Load{Model: ClosedName, Arrival: ConstantName}},
		{Config{Model: Closed{ThinkTime: time.Millisecond}}, loadmodel.Load{Model: ClosedName, Arrival: ConstantName, ThinkTime: time.Millisecond}},
		{Config{Model: Open{Rate: 7}}, loadmodel.Load{Model: OpenName, Rate: 7, Arrival: ConstantName, MaxBacklog: DefaultMaxBacklog}},
		{Config{Model: Open{Rate: 7, Arrival: Poisson{}, MaxBacklog: 3}}, loadmodel.Load{Model: OpenName, Rate: 7, Arrival: PoissonName, MaxBacklog: 3}},
		// The config's own part: clients, phases and seed; a schedule stores its peak.
		{Config{Clients: 8, Warmup: time.Second, Duration: time.Minute, Operations: 9, Seed: -2,
			Model: Open{Schedule: []RateStep{{Rate: 50, For: time.Second}, {Rate: 90, For: time.Second, Ramp: true}, {Rate: 10, For: time.Second}}}},
			loadmodel.Load{Model: OpenName, Clients: 8, Rate: 90, Arrival: ConstantName, MaxBacklog: DefaultMaxBacklog,
				Warmup: time.Second, Duration: time.Minute, Operations: 9, Seed: -2}},
	}
	for _, tc := range cases {
		if got := tc.cfg.Settings(); got != tc.want {
			t.Errorf("%+v.Settings() = %+v, want %+v", tc.cfg, got, tc.want)
		}
	}
}
