package spec

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An experiment file that is a FIFO or a device is refused before it is
// read: a FIFO would block dbrig, /dev/zero would fill its memory.
func TestExperimentFileNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "exp.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		for name, read := range map[string]func() error{
			"CountCombinations": func() error { _, err := CountCombinations(path, nil); return err },
			"ReadExperiment":    func() error { _, err := ReadExperiment(path, nil); return err },
		} {
			done := make(chan error, 1)
			go func() { done <- read() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "regular file") {
					t.Errorf("%s(%s): %v, want a refusal", name, path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s(%s) still reading after 5s", name, path)
			}
		}
	}
}

// A property error never prints the secret in the value it quotes, not even
// where the expectation repeats the value (an address parser's message).
func TestPropErrorRedacts(t *testing.T) {
	cases := []PropError{
		{Key: "etcd.endpoints", Value: "http://root:SECRET@127.0.0.1:1", Want: `a comma-separated list of host:port ("http://root:SECRET@127.0.0.1:1": address root:SECRET@127.0.0.1:1: too many colons in address)`},
		{Key: "pg.url", Value: "host=x password=SECRET dbname=y", Want: "a URL (host=x password=SECRET dbname=y)"},
		{Key: "redis.password", Value: "SECRET", Want: "no spaces (SECRET)"},
		{Key: "mysql.dsn", Value: "u:SECRET@tcp(127.0.0.1)/db", Want: "a DSN"},
	}
	for _, e := range cases {
		if msg := e.Error(); strings.Contains(msg, "SECRET") {
			t.Errorf("%s: %s", e.Key, msg)
		}
	}
	// A one-letter password is redacted where the value is quoted, and the
	// property's name stays readable (FuzzMix found "tpREDACTEDREDACTED.mix"
	// when the whole message was redacted). The expectation may repeat the
	// value, so the secret is still replaced anywhere in it.
	e := PropError{Key: "tpcc.mix", Value: "0:c@", Src: Source{Flag: "-p"}, Want: "5 whole percentages"}
	if msg := e.Error(); !strings.HasPrefix(msg, `flag -p: property tpcc.mix="0:REDACTED@": expected 5 whole per`) {
		t.Errorf("short secret: %s", msg)
	}
}

func TestWithoutComments(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a=1\n# p=OLD\nb=2\n", "a=1\n\nb=2\n"},
		{"  ! p=OLD\r\nb=2", "\r\nb=2"},
		{"a=x\\\n#not a comment\nb=2\n", "a=x\\\n#not a comment\nb=2\n"},
		{"# c \\\nb=2\n", "\nb=2\n"}, // a comment is never continued
	}
	for _, tc := range cases {
		if got := string(WithoutComments([]byte(tc.in))); got != tc.want {
			t.Errorf("WithoutComments(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// What the file means is unchanged.
		a, _ := parseProperties("a", strings.NewReader(tc.in))
		b, _ := parseProperties("b", strings.NewReader(tc.want))
		if len(a) != len(b) {
			t.Errorf("%q: %d properties, stripped %d", tc.in, len(a), len(b))
		}
	}
}

func TestExperimentAliasesAndRecords(t *testing.T) {
	head := "name: x\nsystem: {driver: null}\nworkload: {files: [workloada]}\n"
	cases := []struct{ name, body, msg string }{
		{"scalar alias", "dataset: {records: &n 10}\nload: {clients: *n, duration: 1s}\n", ""},
		{"mapping alias", "dataset: &d {records: 10}\nload: *d\n", "x.yaml:5:7: *d: a YAML alias of a mapping"},
		{"zero records", "dataset: {records: 0}\nload: {clients: 1, duration: 1s}\n", "x.yaml:4:20: dataset.records: expected an integer ≥ 1"},
	}
	for _, tc := range cases {
		exps, err := ParseExperiment("x.yaml", []byte(head+tc.body), nil)
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.msg == "" && exps[0].Load.Clients != 10:
			t.Errorf("%s: clients %d, want 10", tc.name, exps[0].Load.Clients)
		case tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.msg)
		}
	}
}
