package measure

import (
	"sort"

	"github.com/dbrig/dbrig/errclass"
)

// OtherMessages is the Message of the ErrorSample that counts the errors
// whose message was not kept because enough distinct ones already were.
const OtherMessages = "(other messages)"

// Bounds on distinct messages kept per op and class: a fault can produce a
// new message per operation (addresses, ids), and keeping them all would
// cost memory and time on the error path.
const (
	clientMessages = 4 // per client, op and class, within one interval
	phaseMessages  = 8 // per op and class, over a phase
)

// errorSet counts error messages by (op, class, message), keeping at most max
// distinct messages per op and class; the others are counted as OtherMessages,
// so the counts always add up to the number of errors.
type errorSet struct {
	max     int
	entries []ErrorSample
}

func newErrorSet(max int) *errorSet { return &errorSet{max: max} }

func (s *errorSet) clear() { s.entries = s.entries[:0] }

// add counts n errors; op is "" in a client's per-op set.
func (s *errorSet) addOp(op string, class errclass.Class, msg string, n int64) {
	kept := 0
	other := -1
	for i := range s.entries {
		e := &s.entries[i]
		if e.Op != op || e.Class != string(class) {
			continue
		}
		if e.Message == msg {
			e.Count += n
			return
		}
		if e.Message == OtherMessages {
			other = i
		} else {
			kept++
		}
	}
	switch {
	case msg != OtherMessages && kept < s.max:
		s.entries = append(s.entries, ErrorSample{Op: op, Class: string(class), Message: msg, Count: n})
	case other >= 0:
		s.entries[other].Count += n
	default:
		s.entries = append(s.entries, ErrorSample{Op: op, Class: string(class), Message: OtherMessages, Count: n})
	}
}

func (s *errorSet) add(class errclass.Class, msg string, n int64) { s.addOp("", class, msg, n) }

// mergeInto adds a client's per-op set into a phase-level set under op.
func (s *errorSet) mergeInto(dst *errorSet, op string) {
	for _, e := range s.entries {
		dst.addOp(op, errclass.Class(e.Class), e.Message, e.Count)
	}
}

// samples returns the entries ordered by op, class, then count (highest first).
func (s *errorSet) samples() []ErrorSample {
	out := append([]ErrorSample(nil), s.entries...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if a.Class != b.Class {
			return a.Class < b.Class
		}
		return a.Count > b.Count
	})
	return out
}
