package driver

import "testing"

// A version that starts with the system's name would show it twice.
func TestVersionOnly(t *testing.T) {
	tests := []struct{ name, version, want string }{
		{"pebble", "pebble v1.1.5", "v1.1.5"},
		{"sqlite", "SQLite 3.46.0", "3.46.0"},
		{"null", "null", ""},
		{"pebble", "v1.1.5", "v1.1.5"},
		{"redis", "redis_version 7.2", "redis_version 7.2"}, // not the name followed by a space
		{"etcd", "3.5.17", "3.5.17"},
		{"postgres", "PostgreSQL 16.4", "PostgreSQL 16.4"},
		{"sim", "", ""},
	}
	for _, tt := range tests {
		if got := VersionOnly(tt.name, tt.version); got != tt.want {
			t.Errorf("VersionOnly(%q, %q) = %q, want %q", tt.name, tt.version, got, tt.want)
		}
	}
}
