package spec

import (
	"os"
	"strings"
	"testing"
)

// Every verdict metric is documented, with its unit, in the one reference
// page users are pointed to.
func TestVerdictMetricsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/reference/verdicts.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, m := range VerdictMetrics() {
		if !strings.Contains(doc, "`"+m.Name+"`") {
			t.Errorf("docs/reference/verdicts.md does not document the verdict metric %s", m.Name)
		}
	}
}
