package spec_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/dbrig/dbrig/internal/testenv"
	"github.com/dbrig/dbrig/spec"
)

// Each redactor removes every awkward password from every form its format
// allows; and Props shows a declared secret through its own redactor, even
// where name patterns would miss it (pg.url holds no "password" in its name).
func TestRedactorsHideEveryPassword(t *testing.T) {
	for _, pw := range testenv.Passwords() {
		quoted := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw) + "'"
		forms := map[string]string{
			"url, escaped":        spec.RedactURL("postgres://bench:" + url.PathEscape(pw) + "@127.0.0.1:5432/db?sslmode=disable"),
			"url, raw":            spec.RedactURL("postgres://bench:" + pw + "@127.0.0.1:5432/db"),
			"url, query password": spec.RedactURL("postgres://bench@127.0.0.1/db?password=" + url.QueryEscape(pw)),
			"conninfo":            spec.RedactConnInfo("host=127.0.0.1 user=bench password=" + quoted + " dbname=db"),
			"conninfo as url":     spec.RedactConnInfo("postgresql://bench:" + url.PathEscape(pw) + "@h/db"),
			"whole":               spec.RedactWhole(pw),
		}
		for form, got := range forms {
			if leak := testenv.Leak(got, pw); leak != "" {
				t.Errorf("%s with password %q: %q shows %q", form, pw, got, leak)
			}
		}
		if got := spec.RedactConnInfo("host=127.0.0.1 user=bench password=" + quoted); !strings.HasPrefix(got, "host=127.0.0.1 user=bench password=REDACTED") {
			t.Errorf("conninfo rebuilt as %q", got)
		}
		p := spec.NewProps()
		p.Declare(spec.Decl{Key: "pg.url", Type: "url", Doc: "x", Secret: spec.RedactConnInfo})
		p.Set("pg.url", "host=h password="+quoted, spec.Source{Flag: "-p"})
		p.Set("other.token", pw, spec.Source{Flag: "-p"}) // undeclared, caught by its name
		for what, text := range map[string]string{"Text": p.Text(), "Map": strings.Join(mapValues(p.Map()), " ")} {
			if leak := testenv.Leak(text, pw); leak != "" {
				t.Errorf("Props.%s shows %q of %q:\n%s", what, leak, pw, text)
			}
		}
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
