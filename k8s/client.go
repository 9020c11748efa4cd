package k8s

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// Connect builds a client from a kubeconfig the way kubectl finds it
// (--kubeconfig, else $KUBECONFIG, else ~/.kube/config; the given context or
// the current one) and returns the context's namespace ("default" if none).
// Nothing is contacted yet: Preflight does that.
func Connect(kubeconfig, context string) (kubernetes.Interface, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("%w: kubeconfig: %w (set --kubeconfig or KUBECONFIG, or --context)", ErrUnreachable, err)
	}
	cfg.Timeout = 30 * time.Second
	cfg.UserAgent = "dbrig"
	ns, _, err := cc.Namespace()
	if err != nil || ns == "" {
		ns = "default"
	}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("k8s: client for %s: %w", cfg.Host, err)
	}
	return c, ns, nil
}

// NewRunID returns a random run id (8 hex digits).
func NewRunID() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("k8s: run id: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// StableRunID derives a run id from the inputs, so the same command prints
// the same manifests.
func StableRunID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// NewToken returns a random shared token for the workers.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("k8s: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}
