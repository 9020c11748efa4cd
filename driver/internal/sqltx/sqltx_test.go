package sqltx

import "testing"

func TestInsertSQL(t *testing.T) {
	for _, tc := range []struct {
		cols []string
		n    int
		want string
	}{
		{[]string{"a"}, 1, "INSERT INTO t (a) VALUES (?)"},
		{[]string{"a", "b"}, 2, "INSERT INTO t (a, b) VALUES (?, ?), (?, ?)"},
	} {
		if got := InsertSQL("t", tc.cols, tc.n); got != tc.want {
			t.Errorf("InsertSQL(%v, %d) = %q, want %q", tc.cols, tc.n, got, tc.want)
		}
	}
}
