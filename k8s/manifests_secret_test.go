package k8s

import (
	"strings"
	"testing"
)

// The clean-up line deletes by the run's label: the Secret the printed
// commands create for the run is labelled with it too; a Secret given with
// --secret (the user's) is not, and the comment says it stays.
func TestManifestsSecretCleanup(t *testing.T) {
	tests := []struct {
		name, secret string
		want, not    []string
	}{
		{"the run's own", "", []string{
			"#   kubectl -n ns label secret dbrig-r1 dbrig.io/run=r1",
			"# Clean up: kubectl -n ns delete job,service,configmap,secret -l dbrig.io/run=r1"}, []string{"is yours"}},
		{"the user's", "mine", []string{"(--secret mine is yours: the clean-up below leaves it",
			"# Clean up: kubectl -n ns delete job,service,configmap,secret -l dbrig.io/run=r1"}, []string{"label secret mine"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Spec{Namespace: "ns", Image: "reg/dbrig:1", Workers: 2, RunID: "r1", Secret: tt.secret,
				Command: []string{"run", "--driver=null"}, Files: map[string][]byte{}}
			var b strings.Builder
			if err := WriteManifests(&b, s, "test"); err != nil {
				t.Fatal(err)
			}
			head := b.String()[:strings.Index(b.String(), "apiVersion")]
			for _, w := range tt.want {
				if !strings.Contains(head, w) {
					t.Errorf("lacks %q:\n%s", w, head)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(head, n) {
					t.Errorf("has %q:\n%s", n, head)
				}
			}
			// The label the line adds is the one the clean-up selects.
			if tt.secret == "" && !strings.Contains(head, "label secret dbrig-r1 "+Selector("r1")) {
				t.Errorf("label and selector differ:\n%s", head)
			}
		})
	}
}
