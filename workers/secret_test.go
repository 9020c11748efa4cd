package workers

import (
	"errors"
	"testing"

	"github.com/dbrig/dbrig/experiment"
)

// A share holding a secret (a password, a URL with one) is never offered
// to workers that need no token: Listen refuses before it listens.
func TestListenRefusesSecretsWithoutToken(t *testing.T) {
	cases := []struct {
		props map[string]string
		token string
		ok    bool
	}{
		{map[string]string{"redis.password": "s3cret"}, "", false},
		{map[string]string{"pg.url": "postgres://u:s3cret@127.0.0.1/db"}, "", false},
		{map[string]string{"redis.password": "s3cret"}, "tok", true},
		{map[string]string{"recordcount": "10"}, "", true},
	}
	for _, tc := range cases {
		c, err := Listen(Options{Shares: []experiment.Share{{Index: 0, Workers: 1, Driver: "null", Props: tc.props}}, Token: tc.token})
		if err == nil {
			c.Close()
		}
		if tc.ok != (err == nil) || !tc.ok && !errors.Is(err, ErrNoToken) {
			t.Errorf("%v token %q: %v, want ok=%v", tc.props, tc.token, err, tc.ok)
		}
	}
}
