package errclass

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	base := errors.New("boom")
	for _, tc := range []struct {
		name string
		err  error
		want Class
	}{
		{"nil", nil, None},
		{"plain", base, Other},
		{"not found", ErrNotFound, NotFound},
		{"wrapped not found", fmt.Errorf("read k: %w", ErrNotFound), NotFound},
		{"not found beats a class", Wrap(Unavailable, fmt.Errorf("x: %w", ErrNotFound)), NotFound},
		{"wrap", Wrap(Unavailable, base), Unavailable},
		{"wrap wrapped", fmt.Errorf("op: %w", Wrap(Conflict, base)), Conflict},
		{"outermost class wins", Wrap(Timeout, Wrap(Unavailable, base)), Timeout},
		{"joined", errors.Join(base, Wrap(Other, base)), Other},
		{"deadline", context.DeadlineExceeded, Timeout},
		{"wrapped deadline", fmt.Errorf("get: %w", context.DeadlineExceeded), Timeout},
		{"class beats deadline", Wrap(Unavailable, context.DeadlineExceeded), Unavailable},
		{"canceled", context.Canceled, Other},
		{"conflict sentinel alone", ErrConflict, Other},
		{"conflict sentinel wrapped", Wrap(Conflict, fmt.Errorf("update: %w", ErrConflict)), Conflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Of(tc.err); got != tc.want {
				t.Errorf("Of(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	if err := Wrap(Timeout, nil); err != nil {
		t.Fatalf("Wrap(nil) = %v, want nil", err)
	}
	inner := fmt.Errorf("update t/k: %w", ErrConflict)
	err := fmt.Errorf("op: %w", Wrap(Conflict, inner))
	if !errors.Is(err, ErrConflict) || !errors.Is(err, inner) {
		t.Errorf("errors.Is does not see through Wrap: %v", err)
	}
	var ce *Error
	if !errors.As(err, &ce) || ce.Class != Conflict || ce.Err != inner {
		t.Errorf("errors.As = %+v, want class conflict around the inner error", ce)
	}
	if got, want := err.Error(), "op: conflict: update t/k: record changed concurrently"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestIndex(t *testing.T) {
	for i, c := range All {
		if c.Index() != i {
			t.Errorf("%q.Index() = %d, want %d", c, c.Index(), i)
		}
	}
	if None.Index() != -1 || Class("bogus").Index() != -1 {
		t.Errorf("None or an unknown class has an index")
	}
}
