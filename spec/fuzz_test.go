package spec

import (
	"strings"
	"testing"
)

// FuzzParseProperties: any input either parses or fails with file:line;
// it never panics, every property's line is within the input, and parsing
// is deterministic.
func FuzzParseProperties(f *testing.F) {
	for _, tc := range javaCases {
		f.Add(tc.in)
	}
	f.Add("a=b\\\n")
	f.Add("\\u")
	f.Add("k=\\uD83D\\u")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := parseProperties("f", strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f:") && !strings.HasPrefix(err.Error(), "property file f:") {
				t.Fatalf("error without a source: %v", err)
			}
			return
		}
		lines := len(splitLines(in))
		for _, p := range got {
			if p.line < 1 || p.line > lines {
				t.Fatalf("property %q on line %d of %d", p.key, p.line, lines)
			}
		}
		again, _ := parseProperties("f", strings.NewReader(in))
		if len(again) != len(got) {
			t.Fatal("parsing is not deterministic")
		}
	})
}
