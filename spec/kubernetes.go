package spec

import (
	yaml "go.yaml.in/yaml/v3"
)

// Kubernetes is where an experiment's Kubernetes faults act (the
// kubernetes: section): the API server the way kubectl finds it. Every
// field may be empty: Kubeconfig then is $KUBECONFIG or ~/.kube/config (or
// the pod's service account inside a cluster), Context the current one,
// Namespace the context's (else default).
type Kubernetes struct {
	Kubeconfig string
	Context    string
	Namespace  string
	InCluster  bool // the pod's service account, whatever kubeconfig says
	Pos        Pos  // the section's position
}

// kubernetes decodes the kubernetes: section.
func (d *decoder) kubernetes(dst **Kubernetes) func(*yaml.Node, string) error {
	return func(n *yaml.Node, p string) error {
		k := &Kubernetes{Pos: pos(d.file, n)}
		*dst = k
		return d.mapping(n, p, map[string]func(*yaml.Node, string) error{
			"kubeconfig": d.str(&k.Kubeconfig),
			"context":    d.str(&k.Context),
			"namespace":  d.str(&k.Namespace),
			"in_cluster": d.boolean(&k.InCluster),
		})
	}
}

// kubernetesPaths are the section's key paths (schemaPaths).
func kubernetesPaths() []string {
	return []string{"kubernetes.kubeconfig", "kubernetes.context", "kubernetes.namespace", "kubernetes.in_cluster"}
}
