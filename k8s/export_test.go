package k8s

import "testing"

// LimitedToken is a user the test API server knows without any RBAC.
const LimitedToken = limitedToken

// StartAPIServer starts a real kube-apiserver for the external tests of
// this directory (skips when none is cached) and returns its URL and an
// admin token.
func StartAPIServer(t *testing.T) (host, token string) {
	return startAPIServer(t).host, adminToken
}
