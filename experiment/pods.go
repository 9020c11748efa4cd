package experiment

import (
	"fmt"
	"path/filepath"

	"github.com/dbrig/dbrig/driver/all"
	"github.com/dbrig/dbrig/k8s"
	"github.com/dbrig/dbrig/spec"
)

// A distributed run in pods (dbrig k8s) is checked here, on the user's
// machine, before anything is created: a typo, a missing file or a run that
// cannot be split into the workers' shares (more workers than records or
// clients, a driver whose data lives in one process's files) is found by
// the coordinator's own check.

// PodFile is an experiment file made ready for the coordinator's pod.
type PodFile struct {
	Files       map[string][]byte // the file without its secrets, by its base name (the ConfigMap)
	SecretProps map[string]string // the secret driver properties taken out (the run's Secret)
	Command     []string          // the coordinator's: bench FILE --set … (the secrets back from the environment)
}

// ForPods checks an experiment file for a run on workers pods: every input,
// every run's shares, no local cluster, no faults on Kubernetes targets;
// and takes its secret driver properties out.
func ForPods(file, store string, workers int) (*PodFile, error) {
	b, err := ResolveBench(file, BenchOptions{Store: store})
	if err != nil {
		return nil, err
	}
	secret := map[string]bool{}
	for _, r := range b.Runs {
		if r.Plan.Cluster != nil {
			return nil, &InputError{Err: fmt.Errorf("%s: cluster: a local cluster cannot run in pods; point the driver at a server the cluster can reach", file)}
		}
		if r.Plan.KubeFaults() {
			// The coordinator's pod has no API access (no service-account token).
			return nil, &InputError{Err: fmt.Errorf("%s: scenario: faults on Kubernetes targets are fired by dbrig bench on a machine that reaches the API server, not by the pods of dbrig k8s run", file)}
		}
		for k := range SecretProps(r.Plan.Driver) {
			secret[k] = true
		}
	}
	body, err := spec.ReadExperimentFile(file)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	base := filepath.Base(file)
	clean, secrets, sets, err := k8s.SecretFreeFile(file, body, secret)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	for _, r := range b.Runs {
		if _, err := r.Plan.Shares(workers); err != nil {
			return nil, err
		}
	}
	return &PodFile{Files: map[string][]byte{base: clean}, SecretProps: secrets,
		Command: append([]string{"bench", k8s.ExperimentPath(base)}, sets...)}, nil
}

// SecretProps are the driver's secret properties (declared with a
// Redactor): they go into a run's Secret, never into a pod's spec.
func SecretProps(drv string) map[string]bool {
	secret := map[string]bool{}
	for _, d := range all.Registry()[drv].Props {
		if d.Secret != nil {
			secret[d.Key] = true
		}
	}
	return secret
}
