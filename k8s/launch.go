package k8s

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/kubernetes"
)

// ErrSpec marks a Spec that Build refused (a bad setting given by the
// user); IsInput tells such errors apart.
var ErrSpec = errors.New("k8s spec")

type specError struct{ err error }

func (e *specError) Error() string        { return e.err.Error() }
func (e *specError) Unwrap() error        { return e.err }
func (e *specError) Is(target error) bool { return target == ErrSpec }

// IsInput tells whether err is the user's to fix before anything runs: a
// Spec Build refused, a namespace that does not exist, an API server that
// does not answer, permissions the caller lacks.
func IsInput(err error) bool {
	var re *RBACError
	return errors.Is(err, ErrSpec) || errors.Is(err, ErrNoNamespace) || errors.Is(err, ErrUnreachable) || errors.As(err, &re)
}

// Launch performs a distributed run (dbrig k8s run): a fresh run ID
// (unless given) and token, the objects, the preflight (30 s at most), then
// Run: create, wait, copy the coordinator's log to log, clean up.
func Launch(ctx context.Context, c kubernetes.Interface, s *Spec, out, log io.Writer) error {
	var err error
	if s.RunID == "" {
		if s.RunID, err = NewRunID(); err != nil {
			return err
		}
	}
	if s.Token, err = NewToken(); err != nil {
		return err
	}
	objs, err := Build(*s)
	if err != nil {
		return &specError{err}
	}
	pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = Preflight(pctx, c, s.Namespace, RunPermissions())
	cancel()
	if err != nil {
		return err
	}
	return Run(ctx, c, s, objs, out, log)
}

// WriteManifests writes the objects of s as YAML (dbrig k8s manifests),
// after comments that say how to create the Secret, apply and clean up.
// The run ID, when not given, is derived from the inputs (the same inputs,
// the same manifests); the Secret is named after it unless given.
func WriteManifests(w io.Writer, s *Spec, version string) error {
	if s.Namespace == "" {
		s.Namespace = "default"
	}
	if s.RunID == "" {
		parts := []string{s.Namespace, s.Image}
		parts = append(parts, s.Command...)
		for _, n := range sortedKeys(s.Files) {
			parts = append(parts, n, string(s.Files[n]))
		}
		s.RunID = StableRunID(parts...)
	}
	ownSecret := s.Secret == "" // the run's own, made for it: the clean-up removes it
	if s.Secret == "" {
		s.Secret = Name(s.RunID)
	}
	objs, err := Build(*s)
	if err != nil {
		return &specError{err}
	}
	fmt.Fprintf(w, "# dbrig %s: %d workers in namespace %s (run id %s).\n", version, s.Workers, s.Namespace, s.RunID)
	fmt.Fprintf(w, "# Create the Secret first (a random token, and a PostgreSQL results store the pods can reach):\n")
	props := ""
	for _, k := range sortedKeys(s.SecretProps) {
		props += fmt.Sprintf(" --from-literal=%s='…'", SecretPropKey(k))
	}
	fmt.Fprintf(w, "#   kubectl -n %s create secret generic %s --from-literal=%s=\"$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n')\" --from-literal=%s='postgres://USER:PASSWORD@HOST/DB'%s\n",
		s.Namespace, s.Secret, SecretTokenKey, SecretStoreKey, props)
	if s.TLS {
		fmt.Fprintf(w, "# --tls: the Secret also needs %s (a CA certificate), %s and %s (the coordinator's certificate for %s, signed by that CA, and its key), PEM:\n",
			SecretTLSCAKey, SecretTLSCertKey, SecretTLSKeyKey, CoordinatorHost(s))
		fmt.Fprintf(w, "#   add --from-file=%s=ca.pem --from-file=%s=cert.pem --from-file=%s=key.pem to the command above\n",
			SecretTLSCAKey, SecretTLSCertKey, SecretTLSKeyKey)
	}
	if ownSecret {
		fmt.Fprintf(w, "#   kubectl -n %s label secret %s %s   # so that the clean-up below removes it too\n", s.Namespace, s.Secret, Selector(s.RunID))
	} else {
		fmt.Fprintf(w, "# (--secret %s is yours: the clean-up below leaves it, unless you label it %s)\n", s.Secret, Selector(s.RunID))
	}
	fmt.Fprintf(w, "# Then: kubectl apply -f THIS.yaml; kubectl -n %s logs -f job/%s-coordinator\n", s.Namespace, Name(s.RunID))
	fmt.Fprintf(w, "# Clean up: kubectl -n %s delete job,service,configmap,secret -l %s\n", s.Namespace, Selector(s.RunID))
	return WriteYAML(w, objs.List())
}
