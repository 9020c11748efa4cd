package scenario

import (
	"os"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/dbrig/dbrig/inject/kube"
)

// TestKubePermissionsInRBACYAML: every permission the preflight asks for a
// scenario's Kubernetes faults is granted by deploy/rbac.yaml's Role
// dbrig-faults and ClusterRole dbrig-node-faults, and those grant nothing
// the faults do not use.
func TestKubePermissionsInRBACYAML(t *testing.T) {
	b, err := os.ReadFile("../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	granted := map[string]bool{}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var r rbacv1.ClusterRole // a Role's fields are the same
		if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
			t.Fatalf("rbac.yaml: %v", err)
		}
		if r.Name != "dbrig-faults" && r.Name != "dbrig-node-faults" {
			continue
		}
		for _, rule := range r.Rules {
			for _, g := range rule.APIGroups {
				for _, res := range rule.Resources {
					for _, v := range rule.Verbs {
						granted[v+" "+g+" "+res] = true
					}
				}
			}
		}
	}
	used := map[string]bool{}
	for _, kind := range kube.Kinds() {
		for _, target := range []string{"pod/a", "statefulset/a:1", "statefulset/a", "pods/app=a", "node/n", "leader"} {
			tg, err := kube.ParseTarget(target)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range kubePermissions(kind, tg) {
				res := p.Resource
				if p.Subresource != "" {
					res += "/" + p.Subresource
				}
				k := p.Verb + " " + p.Group + " " + res
				used[k] = true
				if !granted[k] {
					t.Errorf("%s on %s needs %s, which deploy/rbac.yaml does not grant", kind, target, p)
				}
			}
		}
	}
	var extra []string
	for k := range granted {
		if !used[k] {
			extra = append(extra, k)
		}
	}
	sort.Strings(extra)
	if len(extra) > 0 {
		t.Errorf("deploy/rbac.yaml grants what no fault uses: %v", extra)
	}
}
