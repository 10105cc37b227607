package node

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// authority is the node cluster's one certificate authority: it signs the API server's serving
// certificate (for the names Pods reach it by: the kubernetes Service), the kubelet's, and every
// client's (the kubelet's, the scheduler's, kube-proxy's, the API server's to the kubelet). Pods
// trust it through the kube-root-ca.crt ConfigMap, which kube-controller-manager publishes.
type authority struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	CertPEM []byte
}

func newAuthority() (*authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "operator-demo-node-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &authority{cert: cert, key: key, CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}, nil
}

// keyPEM is the authority's key, PEM-encoded: the service-account signer's.
func (a *authority) keyPEM() ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(a.key)
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), err
}

// issue signs a certificate for subject, a client's (no names) or a server's (its DNS names and
// IP addresses), and returns it and its key, PEM-encoded.
func (a *authority) issue(subject pkix.Name, names ...string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	template := &x509.Certificate{
		SerialNumber: serial, Subject: subject,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(names) > 0 {
		template.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		for _, n := range names {
			if ip := net.ParseIP(n); ip != nil {
				template.IPAddresses = append(template.IPAddresses, ip)
			} else {
				template.DNSNames = append(template.DNSNames, n)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, template, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, fmt.Errorf("sign a certificate for %s: %w", subject.CommonName, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// authn is envtest's client-certificate authentication, with the node's authority: a user
// envtest adds (the administrator, the node's components) gets a certificate it signs, which the
// kubelet trusts too.
type authn struct {
	ca     *authority
	caFile string
}

func (a *authn) Configure(_ string, args *envtest.Arguments) error {
	args.Set("client-ca-file", a.caFile)
	return nil
}

func (a *authn) Start() error { return nil }

func (a *authn) Stop() error { return nil }

func (a *authn) AddUser(user envtest.User, base *rest.Config) (*rest.Config, error) {
	cert, key, err := a.ca.issue(pkix.Name{CommonName: user.Name, Organization: user.Groups})
	if err != nil {
		return nil, err
	}
	cfg := rest.CopyConfig(base)
	cfg.CertData, cfg.KeyData = cert, key
	return cfg, nil
}
