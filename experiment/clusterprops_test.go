package experiment

import (
	"errors"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/cluster"
)

// A state file keeps no secret; the properties that carry one are derived
// again from the system's recipe: with its own password, or with the one
// of the variable the cluster was started with.
func TestClusterPropsDerivesSecrets(t *testing.T) {
	primary := cluster.Node{Name: "pg-primary", Role: "primary", Addr: "127.0.0.1:5", Ports: map[string]int{"client": 5}}
	env := map[string]string{"PW": "p@ss w:rd"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		name  string
		state cluster.State
		want  map[string]string
		input bool
	}{
		{"no secrets", cluster.State{System: "etcd", Props: map[string]string{"etcd.endpoints": "127.0.0.1:5"}},
			map[string]string{"etcd.endpoints": "127.0.0.1:5"}, false},
		{"the recipe's own password", cluster.State{System: "postgres", Nodes: []cluster.Node{primary}, Secrets: []string{"pg.url"}},
			map[string]string{"pg.url": "postgres://dbrig:dbrig-secret@127.0.0.1:5/dbrig?sslmode=disable"}, false},
		{"a password from the environment", cluster.State{System: "postgres", Nodes: []cluster.Node{primary}, Secrets: []string{"pg.url"}, PasswordEnv: "PW"},
			map[string]string{"pg.url": "postgres://dbrig:p%40ss%20w%3Ard@127.0.0.1:5/dbrig?sslmode=disable"}, false},
		{"the variable unset", cluster.State{System: "postgres", Nodes: []cluster.Node{primary}, Secrets: []string{"pg.url"}, PasswordEnv: "NO_SUCH"},
			nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ClusterProps(c.state, getenv)
			var in *InputError
			if c.input != errors.As(err, &in) || !c.input && err != nil {
				t.Fatalf("err %v, want input error %v", err, c.input)
			}
			for k, v := range c.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

// plainRecipe has neither databases nor a password.
type plainRecipe struct{}

func (plainRecipe) System() string                                  { return "plain" }
func (plainRecipe) Layout(*cluster.Layout) ([]cluster.Stage, error) { return nil, nil }
func (plainRecipe) Props([]cluster.Node) map[string]string          { return nil }

// --database and --password-env reach the recipes that have them and are
// refused, naming the flag, for the others; names are checked first.
func TestRecipeExtras(t *testing.T) {
	env := map[string]string{"PW": "s3cret"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		name, pwEnv, want string
		dbs               []string
	}{
		{name: "nothing asked", want: ""},
		{name: "bad name first", dbs: []string{"Bad"}, pwEnv: "NO_SUCH", want: `--database "Bad": expected lower-case`},
		{name: "variable unset", pwEnv: "NO_SUCH", want: "--password-env NO_SUCH: the variable is not set or empty"},
		{name: "no databases", dbs: []string{"extra"}, want: "--database: the plain recipe has no databases to create"},
		{name: "no password", pwEnv: "PW", want: "--password-env: the plain recipe has no password"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := RecipeExtras(plainRecipe{}, c.dbs, c.pwEnv, getenv)
			if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
				t.Errorf("err %v, want %q", err, c.want)
			}
		})
	}
}
