package measure

import (
	"errors"
	"reflect"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func TestAddEncodedHistogram(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	for i := int64(1); i < 5000; i += 7 {
		_ = a.RecordValue(i)
		_ = b.RecordValues(i*13, i%5+1)
	}
	_ = b.RecordValue(HistMaxUS)
	want := NewHistogram()
	want.Merge(a)
	want.Merge(b)
	got := NewHistogram()
	for _, h := range []*hdr.Histogram{a, b} {
		enc, err := EncodeHistogram(h)
		if err != nil {
			t.Fatal(err)
		}
		if err := AddEncodedHistogram(got, enc); err != nil {
			t.Fatal(err)
		}
	}
	if got.TotalCount() != want.TotalCount() || !reflect.DeepEqual(got.Export().Counts, want.Export().Counts) {
		t.Errorf("AddEncodedHistogram differs from Merge: %d vs %d values", got.TotalCount(), want.TotalCount())
	}
	if err := AddEncodedHistogram(got, []byte("not a histogram")); !errors.Is(err, ErrBadHistogram) {
		t.Errorf("AddEncodedHistogram(garbage) = %v, want ErrBadHistogram", err)
	}
}
