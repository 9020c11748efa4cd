package k8s

import (
	"os"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestRBACYAMLMatchesRunPermissions: deploy/rbac.yaml's Role dbrig-runner
// grants exactly what Preflight checks and a run uses, no more, no less.
func TestRBACYAMLMatchesRunPermissions(t *testing.T) {
	b, err := os.ReadFile("../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var granted []string
	found := false
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var r rbacv1.Role
		if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
			var any map[string]any
			if err := yaml.Unmarshal([]byte(doc), &any); err != nil {
				t.Fatalf("rbac.yaml: %v", err)
			}
			continue
		}
		if r.Kind != "Role" || r.Name != "dbrig-runner" {
			continue
		}
		found = true
		for _, rule := range r.Rules {
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					name, sub, _ := strings.Cut(res, "/")
					for _, v := range rule.Verbs {
						granted = append(granted, Permission{v, g, name, sub}.String())
					}
				}
			}
		}
	}
	if !found {
		t.Fatal("deploy/rbac.yaml has no Role dbrig-runner")
	}
	var needed []string
	for _, p := range RunPermissions() {
		needed = append(needed, p.String())
	}
	sort.Strings(granted)
	sort.Strings(needed)
	if strings.Join(granted, "\n") != strings.Join(needed, "\n") {
		t.Errorf("deploy/rbac.yaml grants\n%s\nbut a run needs\n%s", strings.Join(granted, "\n"), strings.Join(needed, "\n"))
	}
}
