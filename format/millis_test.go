package format

import "testing"

func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		ms   int64
		want string
	}{
		{-5, "0ms"}, {0, "0ms"}, {861, "861ms"}, {999, "999ms"}, {1000, "1.0s"}, {1234, "1.234s"},
		{2000, "2.0s"}, {2050, "2.05s"}, {75500, "75.5s"},
	} {
		if got := Millis(tc.ms); got != tc.want {
			t.Errorf("Millis(%d) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}
