package rating

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"

	"github.com/dbrig/dbrig/experiment"
)

// datasetKey identifies the data set a rating rates and the reference
// probe it reads it with: a digest of the driver, this machine's host name
// and every property of the probe as a run stores them (secrets redacted
// first, so the digest holds none), but the probe's length. Two ratings
// with the same key read the same data the same way on the same machine,
// so their reference probes can be compared (reference.go): a store whose
// capacity moved between two ratings shows there, even when each rating
// saw it hold still. A cluster stood up for the rating has addresses of its
// own each time, so its ratings have no earlier one.
func datasetKey(opts *Options) (string, error) {
	p, err := experiment.Resolve(opts.referenceOptions(referenceLength, "", nil))
	if err != nil {
		return "", err
	}
	host, err := os.Hostname()
	if err != nil {
		return "", fmt.Errorf("the data set's key: %w", err)
	}
	props := p.Props.Map()
	delete(props, "maxexecutiontime") // the probe's length, not the data
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	fmt.Fprintf(h, "driver=%s\nhost=%s\n", p.Driver, host)
	for _, k := range keys {
		fmt.Fprintf(h, "%s=%s\n", k, props[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}
