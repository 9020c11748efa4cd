package k8s

import (
	"encoding/json"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// WriteYAML writes objects as a multi-document YAML stream, in the order
// given, with keys sorted (the same objects always print the same bytes).
// A Secret's data is never printed: WriteYAML refuses one that has any.
func WriteYAML(w io.Writer, objs []runtime.Object) error {
	for i, obj := range objs {
		if s, ok := obj.(*corev1.Secret); ok && (len(s.Data) > 0 || len(s.StringData) > 0) {
			return fmt.Errorf("k8s: refusing to print Secret %s with its data", s.Name)
		}
		b, err := json.Marshal(obj)
		if err != nil {
			return fmt.Errorf("k8s: encode %T: %w", obj, err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("k8s: encode %T: %w", obj, err)
		}
		delete(m, "status")
		clean(m)
		y, err := yaml.Marshal(m)
		if err != nil {
			return fmt.Errorf("k8s: encode %T: %w", obj, err)
		}
		sep := "---\n"
		if i == 0 {
			sep = ""
		}
		if _, err := fmt.Fprintf(w, "%s%s", sep, y); err != nil {
			return fmt.Errorf("k8s: write manifests: %w", err)
		}
	}
	return nil
}

// clean drops what the API server fills in (status, null timestamps), so the
// manifests hold only what a user would write.
func clean(v any) {
	switch m := v.(type) {
	case map[string]any:
		if ts, ok := m["creationTimestamp"]; ok && ts == nil {
			delete(m, "creationTimestamp")
		}
		for k, x := range m {
			clean(x)
			if sub, ok := x.(map[string]any); ok && len(sub) == 0 && (k == "metadata" || k == "resources" || k == "emptyDir") {
				if k == "emptyDir" {
					continue // an empty emptyDir is the volume's whole definition
				}
				delete(m, k)
			}
		}
	case []any:
		for _, x := range m {
			clean(x)
		}
	}
}
