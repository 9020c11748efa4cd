package format

import (
	"testing"
	"time"

	"github.com/dbrig/dbrig/loadmodel"
)

func TestLoad(t *testing.T) {
	for _, tt := range []struct {
		name                  string
		in                    loadmodel.Load
		brief, detail, phrase string
	}{
		{"zero", loadmodel.Load{}, "0", "0, seed 0", ", 0 clients, unthrottled"},
		{"closed", loadmodel.Load{Model: "closed", Clients: 4, Duration: 30 * time.Second, Seed: 7},
			"closed 4", "closed 4, duration 30s, seed 7", "closed, 4 clients, unthrottled"},
		{"open", loadmodel.Load{Model: "open", Clients: 16, Rate: 5000, Arrival: "poisson", ThinkTime: 5 * time.Millisecond,
			Warmup: 10 * time.Second, Operations: 1_000_000, Seed: -3},
			"open 16 @5,000/s",
			"open 16 @5,000/s, poisson arrivals, think 5ms, warmup 10s, 1,000,000 operations, seed -3",
			"open, 16 clients, target 5,000 ops/s, poisson arrivals, think time 5ms"},
		{"slow rate", loadmodel.Load{Model: "open", Clients: 1, Rate: 12.5}, "open 1 @12.5/s", "open 1 @12.5/s, seed 0",
			"open, 1 clients, target 12.5 ops/s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := LoadBrief(tt.in); got != tt.brief {
				t.Errorf("Brief = %q, want %q", got, tt.brief)
			}
			if got := LoadDetail(tt.in); got != tt.detail {
				t.Errorf("Detail = %q, want %q", got, tt.detail)
			}
			if got := LoadPhrase(tt.in); got != tt.phrase {
				t.Errorf("Phrase = %q, want %q", got, tt.phrase)
			}
		})
	}
}
