package main

import (
	"runtime/debug"
	"testing"
)

func TestGCPercent(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want int
	}{
		{"unset: dbrig's", map[string]string{}, benchGCPercent},
		{"user's GOGC wins", map[string]string{"GOGC": "200"}, -1},
		{"user's GOGC=off wins", map[string]string{"GOGC": "off"}, -1},
		{"empty GOGC is still the user's", map[string]string{"GOGC": ""}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			if got := gcPercent(lookup); got != tt.want {
				t.Fatalf("gcPercent = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSetGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	setGC(func(string) (string, bool) { return "", false })
	if got := debug.SetGCPercent(100); got != benchGCPercent {
		t.Fatalf("GC percent after setGC = %d, want %d", got, benchGCPercent)
	}
	setGC(func(string) (string, bool) { return "100", true })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GC percent with GOGC set = %d, want 100 (left alone)", got)
	}
}
