package workers

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbrig/dbrig/experiment"
)

// testPKI writes a CA and a coordinator certificate for 127.0.0.1 signed
// by it into dir: ca.pem, cert.pem, key.pem.
func testPKI(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	srvTmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "coordinator"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(srvKey)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("cert.pem", "CERTIFICATE", srvDER), write("key.pem", "PRIVATE KEY", keyDER)
}

// TestTLSProcesses: three real worker processes reach a TLS coordinator
// with the CA (--tls-ca) and the token; the merge stays exact, and the
// store holds no key material.
func TestTLSProcesses(t *testing.T) {
	ca, cert, key := testPKI(t, t.TempDir())
	srv, err := ServerTLS(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	r := distributed(t, setup{opts: nullOptions(), n: 3, tls: srv, workerArgs: []string{"--tls-ca", ca}})
	if r.err != nil || r.out == nil || r.out.Status != experiment.StatusDone {
		t.Fatalf("run: %v (outcome %+v)", r.err, r.out)
	}
	if !strings.HasPrefix(r.c.URL(), "https://") {
		t.Errorf("coordinator URL %s, want https://", r.c.URL())
	}
	checkExact(t, r, 4001)
	keyPEM, err := os.ReadFile(key)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(keyPEM)
	db, err := os.ReadFile(r.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(db, []byte("PRIVATE KEY")) || bytes.Contains(db, block.Bytes[len(block.Bytes)-32:]) {
		t.Error("the results store holds key material")
	}
}

// TestTLSRefusals: a worker without the coordinator's CA, with another
// CA, or with the right CA and a wrong token is refused with a message
// that says what to fix; a cleartext worker is told to use https://.
func TestTLSRefusals(t *testing.T) {
	ca, cert, key := testPKI(t, t.TempDir())
	otherCA, _, _ := testPKI(t, t.TempDir())
	srv, err := ServerTLS(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := experiment.Resolve(nullOptions())
	if err != nil {
		t.Fatal(err)
	}
	shares, err := plan.Shares(2)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Listen(Options{Shares: shares, Token: "right", TLS: srv})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	good, err := ClientTLS(ca)
	if err != nil {
		t.Fatal(err)
	}
	other, err := ClientTLS(otherCA)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    WorkerOptions
		want string
	}{
		{"no CA", WorkerOptions{Token: "right"}, "not signed by a CA this worker trusts"},
		{"another CA", WorkerOptions{Token: "right", TLS: other}, "pass --tls-ca FILE"},
		{"wrong token", WorkerOptions{Token: "wrong", TLS: good}, "wrong or missing token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Coordinator, tt.o.ConnectTimeout = c.URL(), 5*time.Second
			start := time.Now()
			err := RunWorker(context.Background(), tt.o)
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RunWorker = %v, want a refusal saying %q", err, tt.want)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("refused after %v: want at once, not after retries", d)
			}
		})
	}
	err = RunWorker(context.Background(), WorkerOptions{Coordinator: "http://" + c.Addr(), Token: "right", ConnectTimeout: 700 * time.Millisecond})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "connect to https://") {
		t.Errorf("cleartext worker: %v, want unreachable with the https:// hint", err)
	}
	// Bad files are bad input naming the flag.
	if _, err := ServerTLS(cert, ca); !experiment.IsInput(err) || !strings.Contains(err.Error(), "--tls-key") {
		t.Errorf("ServerTLS with a certificate as key = %v, want input error naming --tls-key", err)
	}
	if _, err := ClientTLS(key); !experiment.IsInput(err) || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("ClientTLS of a key = %v, want input error", err)
	}
}
