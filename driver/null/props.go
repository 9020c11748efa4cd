package null

import "github.com/dbrig/dbrig/driver"

// Driver is the null driver: no properties.
func Driver() driver.Driver {
	return driver.Driver{Type: DB{}, Open: Open, Embedded: &driver.Embedded{}, Doc: "nothing: the harness's own ceiling"}
}
