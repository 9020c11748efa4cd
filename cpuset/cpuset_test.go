package cpuset

import (
	"errors"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Set
		str  string
		bad  bool
	}{
		{in: "", want: nil, str: ""},
		{in: "0", want: Set{0}, str: "0"},
		{in: "1,3", want: Set{1, 3}, str: "1,3"},
		{in: "0-2,5", want: Set{0, 1, 2, 5}, str: "0-2,5"},
		{in: " 3 , 1-2 ,2", want: Set{1, 2, 3}, str: "1-3"},
		{in: "7-7", want: Set{7}, str: "7"},
		{in: "2-1", bad: true},
		{in: "a", bad: true},
		{in: "-1", bad: true},
		{in: "1,", bad: true},
		{in: "+1", bad: true},
		{in: "1-", bad: true},
		{in: "1024", bad: true},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if c.bad {
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("Parse(%q) = %v, %v; want an error wrapping ErrSyntax", c.in, got, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) || got.String() != c.str {
			t.Errorf("Parse(%q) = %v (%q), %v; want %v (%q)", c.in, got, got.String(), err, c.want, c.str)
		}
	}
}

// Whatever Parse accepts, it writes back as a list that parses to the
// same set, sorted and without repeats.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "0-3,7", "1,1,2", " 5 ", "3-1", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := Parse(s)
		if err != nil {
			return
		}
		if !slices.IsSorted(set) || len(slices.Compact(slices.Clone(set))) != len(set) {
			t.Fatalf("Parse(%q) = %v: not sorted without repeats", s, set)
		}
		back, err := Parse(set.String())
		if err != nil || !slices.Equal(back, set) {
			t.Fatalf("Parse(%q) = %v, written %q, read back %v, %v", s, set, set.String(), back, err)
		}
	})
}
