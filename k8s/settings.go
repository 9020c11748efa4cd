package k8s

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/dbrig/dbrig/spec"
)

// Schedule sets where and how the pods run from the text of dbrig k8s's
// flags: the image pull policy, each worker's and the coordinator's
// resources (cpu=1,memory=512Mi), node selectors (key=value) and
// tolerations (key[=value][:Effect]). An error names the flag.
func (s *Spec) Schedule(pull, workerRes, coordRes string, nodeSelectors, tolerations []string) error {
	s.PullPolicy = corev1.PullPolicy(pull)
	switch s.PullPolicy {
	case "", corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	default:
		return fmt.Errorf("--pull-policy %q: expected Always, IfNotPresent or Never", pull)
	}
	var err error
	if s.WorkerResources, err = ParseResources(workerRes); err != nil {
		return fmt.Errorf("--worker-resources: %w", err)
	}
	if s.CoordinatorResources, err = ParseResources(coordRes); err != nil {
		return fmt.Errorf("--coordinator-resources: %w", err)
	}
	for _, ns := range nodeSelectors {
		k, v, err := ParseNodeSelector(ns)
		if err != nil {
			return fmt.Errorf("--node-selector: %w", err)
		}
		if s.NodeSelector == nil {
			s.NodeSelector = map[string]string{}
		}
		s.NodeSelector[k] = v
	}
	for _, t := range tolerations {
		tol, err := ParseToleration(t)
		if err != nil {
			return fmt.Errorf("--toleration: %w", err)
		}
		s.Tolerations = append(s.Tolerations, tol)
	}
	return nil
}

// PropFileArg is the coordinator's -P argument for the user's -P path: a
// local file goes into files (the ConfigMap) and is named by its path in
// the pod; a file that sets a secret property, or has the name of another,
// is refused. A name that is no local file (a built-in workload) stays.
func PropFileArg(path string, files map[string][]byte, secret map[string]bool) (string, error) {
	body, err := os.ReadFile(path)
	if err != nil {
		return path, nil
	}
	var errs []error
	if err := SecretInPropFile(path, body, secret); err != nil {
		errs = append(errs, err)
	}
	body = spec.WithoutComments(body) // comments are not configuration: an old password may sit in one
	base := filepath.Base(path)
	if prev, dup := files[base]; dup && string(prev) != string(body) {
		errs = append(errs, fmt.Errorf("-P %s: another property file is also named %s; rename one", path, base))
	}
	files[base] = body
	return ExperimentPath(base), errors.Join(errs...)
}

// SecretPropArg is the coordinator's -p argument for the user's key=value:
// a secret property's value goes into secrets (the run's Secret) and the
// argument names it as $(ENV) from there, since a pod spec is readable by
// anyone who may read the Job.
func SecretPropArg(kv string, secret map[string]bool, secrets map[string]string) string {
	key, val, ok := strings.Cut(kv, "=")
	if !ok || !secret[strings.TrimSpace(key)] {
		return kv
	}
	key = strings.TrimSpace(key)
	secrets[key] = val
	return key + "=$(" + SecretPropEnv(key) + ")"
}
