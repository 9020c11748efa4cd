package k8s

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// TLS between the worker pods and the coordinator (Spec.TLS): the run's
// Secret holds an ephemeral CA and the coordinator's certificate for its
// Service, made fresh for the run (crypto/x509) when Build makes the
// Secret; the coordinator pod mounts certificate and key, the worker pods
// only the CA. The key is never printed (WriteYAML refuses a Secret with
// data) nor stored anywhere but in the Secret, which is deleted with the
// run.

// The Secret's keys of the run's TLS material, and where pods mount it.
const (
	SecretTLSCAKey   = "tls-ca.pem"
	SecretTLSCertKey = "tls-cert.pem"
	SecretTLSKeyKey  = "tls-key.pem"
	TLSDir           = "/etc/dbrig/tls"
)

// CoordinatorHost is the coordinator Service's name in the cluster, the
// name its certificate is for.
func CoordinatorHost(s *Spec) string {
	return fmt.Sprintf("%s-coordinator.%s.svc", Name(s.RunID), s.Namespace)
}

// PKI is a run's TLS material, PEM encoded.
type PKI struct {
	CA, Cert, Key []byte
}

// NewPKI makes a fresh CA and a server certificate signed by it for hosts
// (DNS names), both valid for valid from now (ECDSA P-256). The CA's key
// is dropped: nothing else can ever be signed by it.
func NewPKI(hosts []string, valid time.Duration) (*PKI, error) {
	now := time.Now()
	serial := func() (*big.Int, error) { return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120)) }
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("k8s: tls: %w", err)
	}
	sn, err := serial()
	if err != nil {
		return nil, fmt.Errorf("k8s: tls: %w", err)
	}
	caTmpl := &x509.Certificate{SerialNumber: sn, Subject: pkix.Name{CommonName: "dbrig run CA"},
		NotBefore: now.Add(-5 * time.Minute), NotAfter: now.Add(valid), IsCA: true, BasicConstraintsValid: true,
		MaxPathLenZero: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("k8s: tls: CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("k8s: tls: CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("k8s: tls: %w", err)
	}
	if sn, err = serial(); err != nil {
		return nil, fmt.Errorf("k8s: tls: %w", err)
	}
	tmpl := &x509.Certificate{SerialNumber: sn, Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: now.Add(-5 * time.Minute), NotAfter: now.Add(valid),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("k8s: tls: certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("k8s: tls: key: %w", err)
	}
	return &PKI{CA: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		Cert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		Key:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})}, nil
}

// addTLS turns Build's cleartext objects into TLS ones (Spec.TLS): the
// Secret gets a fresh PKI (when Build makes it; a named Secret must hold
// the three keys), the coordinator serves with --tls-cert/--tls-key and is
// probed over HTTPS, the workers reach https:// with --tls-ca.
func addTLS(o *Objects, s Spec, secret string) error {
	if o.Secret != nil {
		host := CoordinatorHost(&s)
		valid := 24 * time.Hour
		if s.TTL > valid {
			valid = s.TTL
		}
		pki, err := NewPKI([]string{host, host + ".cluster.local", Name(s.RunID) + "-coordinator"}, valid)
		if err != nil {
			return err
		}
		o.Secret.Data[SecretTLSCAKey], o.Secret.Data[SecretTLSCertKey], o.Secret.Data[SecretTLSKeyKey] = pki.CA, pki.Cert, pki.Key
	}
	mount := func(j *batchv1.Job, keys ...string) *corev1.Container {
		var items []corev1.KeyToPath
		for _, k := range keys {
			items = append(items, corev1.KeyToPath{Key: k, Path: k})
		}
		mode := int32(0o400)
		p := &j.Spec.Template.Spec
		p.Volumes = append(p.Volumes, corev1.Volume{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: secret, Items: items, DefaultMode: &mode}}})
		c := &p.Containers[0]
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "tls", MountPath: TLSDir, ReadOnly: true})
		return c
	}
	coord := mount(o.Coordinator, SecretTLSCertKey, SecretTLSKeyKey)
	coord.Args = append(coord.Args, "--tls-cert", TLSDir+"/"+SecretTLSCertKey, "--tls-key", TLSDir+"/"+SecretTLSKeyKey)
	if coord.ReadinessProbe != nil && coord.ReadinessProbe.HTTPGet != nil {
		coord.ReadinessProbe.HTTPGet.Scheme = corev1.URISchemeHTTPS // the kubelet does not verify it
	}
	w := mount(o.Workers, SecretTLSCAKey)
	for i, a := range w.Args {
		if i > 0 && w.Args[i-1] == "--coordinator" {
			w.Args[i] = "https://" + strings.TrimPrefix(a, "http://")
		}
	}
	w.Args = append(w.Args, "--tls-ca", TLSDir+"/"+SecretTLSCAKey)
	return nil
}
