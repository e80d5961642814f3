package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// SecuredSearch is the test OpenSearch node (FAIRBENCH_TEST_OPENSEARCH)
// behind a front that speaks only https, with a certificate of a CA made
// for the test, and answers 401 to every request without its user and
// password, as OpenSearch's security plugin does. The test nodes run
// without that plugin (the embedded runner of scripts/opensearch.sh has
// none) and the secured Elasticsearch nodes lack GET /, which OpenSearch
// Benchmark needs: the front gives the clients under test (OSB, the
// driver) a real TLS handshake to verify against a CA they must be given,
// and a password they must send, with a real OpenSearch behind.
type SecuredSearch struct {
	// URL is opensearchs://USER:PASSWORD@127.0.0.1:PORT?ca=FILE.
	URL string
	// Node is the plain node's URL behind the front, for checks that bypass it.
	Node           string
	User, Password string
	// CA is the PEM file of the CA that signed the front's certificate.
	CA string

	authorized, refused atomic.Int64
}

// Authorized is how many requests came with the user and password and were
// passed to the node.
func (s *SecuredSearch) Authorized() int64 { return s.authorized.Load() }

// Refused is how many requests were answered 401.
func (s *SecuredSearch) Refused() int64 { return s.refused.Load() }

// SecuredOpenSearch starts a SecuredSearch front on a free loopback port for
// the rest of the test; skipped without FAIRBENCH_TEST_OPENSEARCH, failed
// under FAIRBENCH_REQUIRE_SERVERS=1. The password holds ':' ',' and '@', which
// a user:password pair, OSB's key:value,key:value client options and a URL's
// authority each take for a separator.
func SecuredOpenSearch(t testing.TB) *SecuredSearch {
	t.Helper()
	node := OpenSearch(t)
	base, err := OpenSearchHTTP(node)
	if err != nil {
		t.Fatal(err)
	}
	behind, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cert, caFile := testCertificate(t, dir)
	s := &SecuredSearch{Node: node, User: "fbtest-osb", Password: "pw:" + randomHex(6) + ",@x", CA: caFile}
	proxy := httputil.NewSingleHostReverseProxy(behind)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, ok := r.BasicAuth()
		if !ok || subtle.ConstantTimeCompare([]byte(user), []byte(s.User)) != 1 || subtle.ConstantTimeCompare([]byte(pw), []byte(s.Password)) != 1 {
			s.refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Basic realm="OpenSearch Security"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		s.authorized.Add(1)
		r.Header.Del("Authorization")
		proxy.ServeHTTP(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	u := url.URL{Scheme: "opensearchs", User: url.UserPassword(s.User, s.Password), Host: srv.Listener.Addr().String(),
		RawQuery: url.Values{"ca": {caFile}}.Encode()}
	s.URL = u.String()
	return s
}

// testCertificate makes a CA and a certificate it signs for 127.0.0.1 (valid
// for a day), writes the CA's PEM into dir and returns the certificate.
func testCertificate(t testing.TB, dir string) (tls.Certificate, string) {
	t.Helper()
	newKey := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	now := time.Now()
	caKey, key := newKey(), newKey()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fairbench test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{leafDER, caDER}, PrivateKey: key}, caFile
}
