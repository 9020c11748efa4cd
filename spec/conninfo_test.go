package spec

import "testing"

func TestPostgresForms(t *testing.T) {
	cases := []struct {
		s             string
		url, connInfo bool
	}{
		{"postgres://u@h/db", true, false},
		{"postgresql://h/db", true, false},
		{"POSTGRES://h/db", true, false},
		{"postgres:/h", false, false},
		{"mysql://u@h/db", false, false},
		{"host=h dbname=db", false, true},
		{"  dbname = z host=h", false, true},
		{"\tsslrootcert=/ca.pem", false, true},
		{"service=prod", false, true},
		{"runs=1.db", false, false},
		{"runs.db", false, false},
		{"hostname=h", false, false},
		{"", false, false},
	}
	for _, tc := range cases {
		if got := IsPostgresURL(tc.s); got != tc.url {
			t.Errorf("IsPostgresURL(%q) = %v, want %v", tc.s, got, tc.url)
		}
		if got := IsConnInfo(tc.s); got != tc.connInfo {
			t.Errorf("IsConnInfo(%q) = %v, want %v", tc.s, got, tc.connInfo)
		}
	}
}
