package cluster

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pwRecipe is a recipe whose properties carry its password (a URL and a
// key of its own), as PostgreSQL's and Redis's do.
type pwRecipe struct{ pw string }

func (pwRecipe) System() string                  { return "pwstore" }
func (pwRecipe) Layout(*Layout) ([]Stage, error) { return nil, nil }
func (r pwRecipe) WithPassword(pw string) Recipe { r.pw = pw; return r }
func (r pwRecipe) Props(nodes []Node) map[string]string {
	u := url.URL{Scheme: "pw", User: url.UserPassword("dbrig", r.pw), Host: nodes[0].Addr, Path: "/db"}
	return map[string]string{"pw.url": u.String(), "pw.addr": nodes[0].Addr, "pw.auth": r.pw}
}

// A state file holds no secret: neither the properties that carry the
// password nor a node URL with it; it names what to derive again.
func TestStateFileHoldsNoSecret(t *testing.T) {
	const pw = `Sx9 "qT4" p@ss:w0rd's`
	r := pwRecipe{pw}
	n := Node{Name: "pw1", Addr: "127.0.0.1:7", URL: r.Props([]Node{{Addr: "127.0.0.1:7"}})["pw.url"]}
	c := &Cluster{system: r.System(), recipe: r, procs: []*proc{{node: n}}, props: r.Props([]Node{n}),
		opts: Options{PasswordEnv: "PW_VAR"}}
	path := filepath.Join(t.TempDir(), "state.json")
	if err := WriteState(path, c.State()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{pw, url.UserPassword("", pw).String(), "w0rd"} {
		if strings.Contains(string(b), leak) {
			t.Errorf("state file holds %q:\n%s", leak, b)
		}
	}
	s, err := ReadState(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Secrets, ","); got != "pw.auth,pw.url" || s.PasswordEnv != "PW_VAR" || s.Props["pw.addr"] != "127.0.0.1:7" {
		t.Errorf("secrets %q, password env %q, props %v: want pw.auth,pw.url from PW_VAR, pw.addr kept", got, s.PasswordEnv, s.Props)
	}
	if c.Nodes()[0].URL != n.URL {
		t.Errorf("the running cluster's node URL changed: %q", c.Nodes()[0].URL)
	}
}
