package experiment

import (
	"github.com/dbrig/dbrig/driver"
	"github.com/dbrig/dbrig/spec"
)

// Getenv looks up an environment variable (os.LookupEnv).
type Getenv func(name string) (string, bool)

// fromEnv sets each property of d's environment table (driver.Driver.Env:
// the names `dbrig cluster env` exports) that no property file, -p, flag or
// experiment file set, from its variable when that is set and not empty.
// The environment is the lowest source but the defaults: whatever the
// command line or a file says wins, and a run that stands up its own
// cluster takes that cluster's properties instead (it reads nothing here).
func fromEnv(props *spec.Props, d driver.Driver, getenv Getenv) {
	if getenv == nil {
		return
	}
	for _, v := range d.Env() {
		if props.Has(v.Key) {
			continue
		}
		if val, ok := getenv(v.Name); ok && val != "" {
			props.Set(v.Key, val, spec.Source{Env: v.Name})
		}
	}
}
