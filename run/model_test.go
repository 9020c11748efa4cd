package run

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestModelNamed(t *testing.T) {
	cases := []struct {
		name string
		s    Settings
		want Model  // when no error
		err  string // substring of the error
	}{
		{"", Settings{}, Closed{}, ""},
		{"", Settings{Rate: 5}, Open{Rate: 5, Arrival: Constant{}}, ""},
		{ClosedName, Settings{Rate: 5, Arrival: ConstantName}, Closed{Rate: 5}, ""},
		{OpenName, Settings{Rate: 5, Arrival: PoissonName, MaxBacklog: 9}, Open{Rate: 5, Arrival: Poisson{}, MaxBacklog: 9}, ""},
		{"half-open", Settings{}, nil, `model = "half-open"`},
		{OpenName, Settings{Rate: 10, Arrival: "bursty"}, nil, `arrival = "bursty"`},
		{ClosedName, Settings{Rate: 10, Arrival: PoissonName}, nil, "belong to the open model"},
		{OpenName, Settings{Rate: 10, ThinkTime: time.Second}, nil, "think time"},
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

// Settings are what a run stores: defaults applied, each model's own fields.
func TestSettings(t *testing.T) {
	cases := []struct {
		cfg  Config
		want Settings
	}{
		{Config{}, Settings{Model: ClosedName, Arrival: ConstantName}},
		{Config{Model: Closed{ThinkTime: time.Millisecond}}, Settings{Model: ClosedName, Arrival: ConstantName, ThinkTime: time.Millisecond}},
		{Config{Model: Open{Rate: 7}}, Settings{Model: OpenName, Rate: 7, Arrival: ConstantName, MaxBacklog: DefaultMaxBacklog}},
		{Config{Model: Open{Rate: 7, Arrival: Poisson{}, MaxBacklog: 3}}, Settings{Model: OpenName, Rate: 7, Arrival: PoissonName, MaxBacklog: 3}},
	}
	for _, tc := range cases {
		if got := tc.cfg.Settings(); got != tc.want {
			t.Errorf("%+v.Settings() = %+v, want %+v", tc.cfg, got, tc.want)
		}
	}
}
