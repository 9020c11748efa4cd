package sla

import "testing"

// A dropped share is of the operations asked for: completed and dropped.
// 10 dropped beside 990 completed is 1 % exactly (of 990 it would be
// 1.01 %, and dropped<=1% would fail).
func TestDroppedShareOfAsked(t *testing.T) {
	sum := summary(10, map[string][]float64{"READ": lats(990, 1)}, nil)
	s, err := Parse("dropped<=1%")
	if err != nil {
		t.Fatal(err)
	}
	r := s.Evaluate(sum)
	if !r.Pass || r.Terms[0].Measured != 0.01 {
		t.Errorf("dropped<=1%% with 10 of 1000 dropped: %+v, want a pass at 1%%", r.Terms[0])
	}
}
