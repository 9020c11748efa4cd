package cluster

import (
	"maps"
	"strings"
	"testing"
)

func TestParsePorts(t *testing.T) {
	for _, tt := range []struct {
		flags []string
		want  map[string]int
		err   string
	}{
		{nil, nil, ""},
		{[]string{"etcd1.client=2379", "etcd2.peer=2390"}, map[string]int{"etcd1.client": 2379, "etcd2.peer": 2390}, ""},
		{[]string{"etcd1=2379"}, nil, "expected NODE.NAME=PORT"},
		{[]string{"etcd1.client=0"}, nil, "expected NODE.NAME=PORT"},
		{[]string{"etcd1.client=65536"}, nil, "expected NODE.NAME=PORT"},
		{[]string{"etcd1.client=2379", "etcd1.client=2380"}, nil, "given twice"},
	} {
		got, err := ParsePorts(tt.flags)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParsePorts(%q) = %v, %v; want an error with %q", tt.flags, got, err, tt.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tt.want) {
			t.Errorf("ParsePorts(%q) = %v, %v; want %v", tt.flags, got, err, tt.want)
		}
	}
}

func TestEnvNameAndShellWords(t *testing.T) {
	if got := EnvName("DBRIG_", "pg.url"); got != "DBRIG_PG_URL" {
		t.Errorf("EnvName = %q", got)
	}
	for p, want := range map[string]bool{"DBRIG_": true, "_x1": true, "1X": false, "A-B": false, "": true} {
		if got := ValidEnvPrefix(p); got != want {
			t.Errorf("ValidEnvPrefix(%q) = %v, want %v", p, got, want)
		}
	}
	for in, want := range map[string]string{
		"etcd1.client=127.0.0.1:2379": "etcd1.client=127.0.0.1:2379",
		"a b":                         "'a b'",
		"it's":                        `'it'\''s'`,
	} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
	if got := ShellQuote("plain"); got != "'plain'" {
		t.Errorf("ShellQuote(plain) = %s", got)
	}
}

func TestStateNode(t *testing.T) {
	s := State{System: "etcd", Nodes: []Node{{Name: "etcd1"}, {Name: "etcd2"}}}
	if n, err := s.Node("etcd2"); err != nil || n.Name != "etcd2" {
		t.Errorf("Node(etcd2) = %v, %v", n, err)
	}
	if _, err := s.Node("etcd9"); err == nil || !strings.Contains(err.Error(), "nodes: etcd1, etcd2") {
		t.Errorf("Node(etcd9): %v, want the nodes there are", err)
	}
}
