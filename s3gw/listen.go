package s3gw

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
	"time"
)

// Endpoint is a gateway served on loopback: its URL, and for HTTPS the
// PEM of the certificate authority made for it, which signed its
// certificate and nothing else.
type Endpoint struct {
	URL   string // http://127.0.0.1:PORT or https://127.0.0.1:PORT
	CAPEM []byte // nil for HTTP
	srv   *http.Server
	done  chan error
}

// ServeOptions configure Serve.
type ServeOptions struct {
	// TLS serves HTTPS with a certificate made for this endpoint (for
	// 127.0.0.1, ::1, localhost and *.localhost), signed by a CA made
	// for it whose key lives only in this process.
	TLS bool
	// Addr is the loopback address to listen on; default 127.0.0.1:0 (a
	// free port). An address that is not loopback is refused.
	Addr string
}

// maxHeaderBytes bounds a request's headers (S3 allows 8 KiB of user
// metadata; a presigned URL's query is in the request line).
const maxHeaderBytes = 64 << 10

// Serve serves h on loopback until Shutdown.
func Serve(h http.Handler, o ServeOptions) (*Endpoint, error) {
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("s3gw: listen address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("s3gw: listen address %q is not loopback: the gateway serves the job on this machine only", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("s3gw: listen: %w", err)
	}
	e := &Endpoint{done: make(chan error, 1)}
	// ReadHeaderTimeout only frees a connection that never sends its
	// headers: liveness, not safety.
	e.srv = &http.Server{Handler: h, MaxHeaderBytes: maxHeaderBytes, ReadHeaderTimeout: time.Minute}
	scheme := "http"
	if o.TLS {
		cert, caPEM, err := newCertificate()
		if err != nil {
			l.Close()
			return nil, err
		}
		e.CAPEM = caPEM
		e.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		l = tls.NewListener(l, e.srv.TLSConfig)
		scheme = "https"
	}
	e.URL = scheme + "://" + l.Addr().String()
	go func() { e.done <- e.srv.Serve(l) }()
	return e, nil
}

// Shutdown stops the endpoint: it closes the listener, and waits for the
// requests in progress until ctx ends, then closes their connections.
func (e *Endpoint) Shutdown(ctx context.Context) error {
	err := e.srv.Shutdown(ctx)
	if err != nil {
		e.srv.Close()
	}
	if serr := <-e.done; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// newCertificate makes a CA and a server certificate for loopback names
// signed by it, and returns the server's key pair and the CA's PEM.
func newCertificate() (tls.Certificate, []byte, error) {
	fail := func(err error) (tls.Certificate, []byte, error) {
		return tls.Certificate{}, nil, fmt.Errorf("s3gw: make the endpoint's certificate: %w", err)
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fail(err)
	}
	// The certificates live as long as the process that holds their
	// keys; the validity is wide so that no clock decides anything.
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "fence exec --s3 CA " + base64.RawURLEncoding.EncodeToString(serial().Bytes())},
		NotBefore: now.Add(-24 * time.Hour), NotAfter: now.Add(10 * 365 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, MaxPathLenZero: true,
		KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return fail(err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return fail(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fail(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: ca.NotBefore, NotAfter: ca.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:    []string{"localhost", "*.localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return fail(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, caPEM, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

// NewCredentials makes an access key and a secret at random, for one
// run: AWS-shaped (20 upper-case letters and digits; 40 characters).
func NewCredentials() (accessKey, secret string) {
	const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	var id strings.Builder
	id.WriteString("FENC")
	for _, c := range b {
		id.WriteByte(upper[c&31])
	}
	s := make([]byte, 30)
	_, _ = rand.Read(s)
	return id.String(), base64.StdEncoding.EncodeToString(s)
}
