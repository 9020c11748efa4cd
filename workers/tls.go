package workers

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/dbrig/dbrig/experiment"
)

// TLS between workers and the coordinator (optional): the coordinator
// serves HTTP/2 over TLS with --tls-cert/--tls-key, and a worker verifies
// it against --tls-ca (else the system's roots). With the token, traffic
// across hosts is neither readable (the share carries the driver's
// secrets) nor joinable. No key material is logged or stored: only the
// files' paths are in the run's command line.

// ServerTLS loads the coordinator's certificate chain and key (PEM files).
// A file that cannot be read or does not hold a matching pair is bad
// input naming the flag.
func ServerTLS(certFile, keyFile string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, &experiment.InputError{Err: fmt.Errorf("--tls-cert %s / --tls-key %s: %w", certFile, keyFile, err)}
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13}, nil
}

// ClientTLS trusts the CA certificates of caFile (PEM) for a worker.
func ClientTLS(caFile string) (*tls.Config, error) {
	b, err := os.ReadFile(caFile)
	if err != nil {
		return nil, &experiment.InputError{Err: fmt.Errorf("--tls-ca %s: %w", caFile, err)}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, &experiment.InputError{Err: fmt.Errorf("--tls-ca %s: no PEM certificate in it", caFile)}
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS13}, nil
}

// untrusted says why a worker does not trust the coordinator's
// certificate, with what to do; "" if err is not about that.
func untrusted(url string, err error) string {
	var verr *tls.CertificateVerificationError
	var host x509.HostnameError
	var unknown x509.UnknownAuthorityError
	switch {
	case errors.As(err, &host):
		return fmt.Sprintf("coordinator %s: its certificate is not valid for this address (%v): give the coordinator a certificate that names it, or connect by a name it has", url, host)
	case errors.As(err, &unknown), errors.As(err, &verr):
		return fmt.Sprintf("coordinator %s: its certificate is not signed by a CA this worker trusts (%v): pass --tls-ca FILE, the CA certificate that signed the coordinator's --tls-cert", url, err)
	}
	return ""
}
