package spec

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestLoadJavaProperties(t *testing.T) {
	text := "# comment\n! also a comment\n\nrecordcount=1000\nreadproportion: 0.5\nfieldlength 100\n" +
		"  table = usertable  \nlong=a\\\n  b\nempty=\n"
	p := NewProps()
	if err := p.Load("w.props", strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ key, want string }{
		{"recordcount", "1000"}, {"readproportion", "0.5"}, {"fieldlength", "100"},
		{"table", "usertable  "}, {"long", "ab"}, {"empty", ""}, // trailing space kept, as Java does
	}
	for _, tc := range tests {
		if got := p.String(tc.key, "<unset>"); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.key, got, tc.want)
		}
	}
	if _, src, _ := p.Lookup("long"); src.String() != "w.props:8" {
		t.Errorf("source of continued line = %s, want w.props:8", src)
	}
}

func TestTypedGettersReportSource(t *testing.T) {
	p := NewProps()
	_ = p.Load("f", strings.NewReader("n=12\nbad=x1\nneg=-3\nd=250ms\nsecs=1.5\nb=TRUE\nc=Zipfian\n"))
	if n, err := p.Int("n", 0); err != nil || n != 12 {
		t.Errorf("Int(n) = %d, %v", n, err)
	}
	_, err := p.Int("bad", 0)
	var pe *PropError
	if !errors.As(err, &pe) || pe.Src.String() != "f:2" || !strings.Contains(err.Error(), "expected an integer") {
		t.Errorf("Int(bad) error = %v", err)
	}
	if _, err := p.IntMin("neg", 0, 0); err == nil || !strings.Contains(err.Error(), "f:3") || !strings.Contains(err.Error(), ">= 0") {
		t.Errorf("IntMin(neg) error = %v", err)
	}
	if d, _ := p.Duration("d", 0); d != 250*time.Millisecond {
		t.Errorf("Duration(d) = %v", d)
	}
	if d, _ := p.Duration("secs", 0); d != 1500*time.Millisecond {
		t.Errorf("Duration(secs) = %v", d)
	}
	if b, err := p.Bool("b", false); err != nil || !b {
		t.Errorf("Bool(b) = %v, %v", b, err)
	}
	if c, err := p.Choice("c", "uniform", "zipfian"); err != nil || c != "zipfian" {
		t.Errorf("Choice(c) = %q, %v", c, err)
	}
	if _, err := p.Choice("n", "uniform", "zipfian"); err == nil || !strings.Contains(err.Error(), "one of uniform, zipfian") {
		t.Errorf("Choice(n) error = %v", err)
	}
	if v, err := p.Int("unset", 7); err != nil || v != 7 {
		t.Errorf("default = %d, %v", v, err)
	}
}

func TestUnknownSuggestsClosest(t *testing.T) {
	p := NewProps()
	_ = p.Load("wl", strings.NewReader("readproportion=0.5\nreadproprtion=0.5\n"))
	if err := p.SetFlag("-p", "zzz=1"); err != nil {
		t.Fatal(err)
	}
	p.Float("readproportion", 0)
	err := p.Unknown()
	if err == nil {
		t.Fatal("expected unknown properties")
	}
	msg := err.Error()
	for _, want := range []string{`wl:2: unknown property "readproprtion" (did you mean "readproportion"?)`, `flag -p: unknown property "zzz"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	p.Known("readproprtion", "zzz")
	if err := p.Unknown(); err != nil {
		t.Errorf("after Known: %v", err)
	}
}

func TestSetFlagRejectsMissingEquals(t *testing.T) {
	if err := NewProps().SetFlag("-p", "recordcount"); err == nil || !strings.Contains(err.Error(), "expected key=value") {
		t.Errorf("err = %v", err)
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://bench:s3cret@127.0.0.1:5432/db?sslmode=disable", "postgres://bench:REDACTED@127.0.0.1:5432/db?sslmode=disable"},
		{"dbrig:s3cret@tcp(127.0.0.1:3306)/dbrig", "dbrig:REDACTED@tcp(127.0.0.1:3306)/dbrig"},
		{"host=x user=u password=s3cret dbname=d", "host=x user=u password=REDACTED dbname=d"},
		{"redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"},
		{"127.0.0.1:6379", "127.0.0.1:6379"},
	}
	for _, tc := range tests {
		if got := Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := RedactProp("redis.password", "s3cret"); got != "REDACTED" {
		t.Errorf("RedactProp = %q", got)
	}
	p := NewProps()
	p.Set("pg.url", "postgres://u:s3cret@h/d", Source{Flag: "-p"})
	if strings.Contains(p.Map()["pg.url"], "s3cret") {
		t.Errorf("Map leaks secret: %v", p.Map())
	}
}

func TestRedactText(t *testing.T) {
	in := "# db\npg.url=postgres://u:s3cret@h/d\nredis.password = hunter2\nrecordcount=10\n"
	out := RedactText(in)
	for _, leak := range []string{"s3cret", "hunter2"} {
		if strings.Contains(out, leak) {
			t.Errorf("RedactText leaks %q: %s", leak, out)
		}
	}
	if !strings.Contains(out, "recordcount=10") || !strings.Contains(out, "# db") {
		t.Errorf("RedactText lost text: %s", out)
	}
}

func TestTypo(t *testing.T) {
	p := NewProps()
	p.Declare(Decl{Key: "cassandra.loadbatch"}, Decl{Key: "cassandra.readtimeoutmillis"}, Decl{Key: "port"})
	for _, tc := range []struct{ k, want string }{
		{"cassandra.loadbach", "cassandra.loadbatch"},
		{"cassandra.LoadBatch", "cassandra.loadbatch"},
		{"cassandra.loadbatch", ""},            // known
		{"cassandra.maxconnections", ""},       // YCSB's, far from any dbrig reads
		{"cassandra.connecttimeoutmillis", ""}, // likewise
		{"mongodb.loadbatch", ""},              // another namespace
		{"ports", ""},                          // no namespace: YCSB's bare names are never taken for typos
	} {
		if got := p.Typo(tc.k); got != tc.want {
			t.Errorf("Typo(%q) = %q, want %q", tc.k, got, tc.want)
		}
	}
}
