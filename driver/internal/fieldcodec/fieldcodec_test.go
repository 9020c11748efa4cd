package fieldcodec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/driver"
)

func TestRoundTrip(t *testing.T) {
	big := strings.Repeat("x", 300) // length needs a 2-byte uvarint
	tests := []struct {
		name   string
		rec    driver.Record
		fields []string
		want   driver.Record
	}{
		{"empty", driver.Record{}, nil, driver.Record{}},
		{"all fields", driver.Record{"f0": []byte("a"), "f1": []byte("bc")}, nil, driver.Record{"f0": []byte("a"), "f1": []byte("bc")}},
		{"empty value", driver.Record{"f0": {}}, nil, driver.Record{"f0": {}}},
		{"subset", driver.Record{"f0": []byte("a"), "f1": []byte("b"), "f2": []byte("c")}, []string{"f2", "f0"}, driver.Record{"f0": []byte("a"), "f2": []byte("c")}},
		{"missing field", driver.Record{"f0": []byte("a")}, []string{"nope"}, driver.Record{}},
		{"long values", driver.Record{big: []byte(big)}, nil, driver.Record{big: []byte(big)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := Encode(tc.rec)
			if len(b) != Size(tc.rec) {
				t.Errorf("len(Encode) = %d, Size = %d", len(b), Size(tc.rec))
			}
			got, err := Decode(b, tc.fields)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("Decode = %q, want %q", got, tc.want)
			}
			for k, v := range tc.want {
				if !bytes.Equal(got[k], v) {
					t.Errorf("field %q = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestDeterministicAndNotAliased(t *testing.T) {
	r := driver.Record{"b": []byte("2"), "a": []byte("1"), "c": []byte("3")}
	first := Encode(r)
	for i := 0; i < 20; i++ { // map order varies between iterations
		if got := Encode(r); !bytes.Equal(got, first) {
			t.Fatalf("encoding differs: %q vs %q", got, first)
		}
	}
	r["a"][0] = 'X' // the caller reuses its buffers after the call
	got, err := Decode(first, nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(got["a"]) != "1" {
		t.Errorf("encoding aliases the record: a = %q", got["a"])
	}
}

func TestCorrupt(t *testing.T) {
	good := Encode(driver.Record{"field": []byte("value")})
	for cut := 0; cut < len(good); cut++ {
		if _, err := Decode(good[:cut], nil); !errors.Is(err, ErrCorrupt) {
			t.Errorf("truncated at %d: err = %v, want ErrCorrupt", cut, err)
		}
	}
	if _, err := Decode(append(good, 0), nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("trailing byte: err = %v, want ErrCorrupt", err)
	}
	if _, err := Decode([]byte{0xff, 0xff, 0xff, 0x7f}, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("huge count: err = %v, want ErrCorrupt", err)
	}
}

func TestMerge(t *testing.T) {
	old := Encode(driver.Record{"f0": []byte("a"), "f1": []byte("b")})
	got, err := Merge(old, driver.Record{"f1": []byte("B"), "f2": []byte("C")})
	if err != nil {
		t.Fatal(err)
	}
	want := Encode(driver.Record{"f0": []byte("a"), "f1": []byte("B"), "f2": []byte("C")})
	if !bytes.Equal(got, want) {
		rec, _ := Decode(got, nil)
		t.Errorf("Merge = %q, want %q", rec, map[string]string{"f0": "a", "f1": "B", "f2": "C"})
	}
	if _, err := Merge([]byte{5}, nil); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Merge of corrupt old: err = %v", err)
	}
}

func BenchmarkEncode(b *testing.B) {
	r := driver.Record{}
	for i := 0; i < 10; i++ {
		r["field"+string(rune('0'+i))] = bytes.Repeat([]byte{'v'}, 100)
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = Append(buf[:0], r)
	}
}
