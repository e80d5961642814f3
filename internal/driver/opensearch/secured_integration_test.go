package opensearch

import (
	"net/url"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/testenv"
)

// TestIntegrationSecurity's checks with opensearchs:// and
// OPENSEARCH_PASSWORD, on OpenSearch behind a password and TLS
// (testenv.SecuredOpenSearch): the password in the URL (holding ':' ','
// and '@', percent-encoded) or from the environment, a wrong one, none, and
// the certificate verified against the URL's CA, refused without it.
func TestIntegrationSecurityOpenSearch(t *testing.T) {
	clearEnv(t)
	s := testenv.SecuredOpenSearch(t)
	parsed, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	host, withCA := parsed.Host, "?ca="+url.QueryEscape(s.CA)
	ctx := ctxT(t)
	open := func(raw string) error {
		cl, err := Driver{}.Open(ctx, driver.Target{URL: raw}, driver.Options{})
		if err == nil {
			cl.Close(ctx)
		}
		return err
	}

	if err := open(s.URL); err != nil {
		t.Fatalf("the password in the URL: %v", err)
	}
	if s.Authorized() == 0 {
		t.Fatal("the driver opened without a request passing the secured front")
	}
	t.Setenv("OPENSEARCH_PASSWORD", s.Password)
	if err := open("opensearchs://" + s.User + "@" + host + withCA); err != nil {
		t.Fatalf("the password from OPENSEARCH_PASSWORD: %v", err)
	}
	t.Setenv("OPENSEARCH_PASSWORD", "wrong-pw-123")
	err = open("opensearchs://" + s.User + "@" + host + withCA)
	if err == nil || !strings.Contains(err.Error(), `HTTP 401: user "`+s.User+`" was refused: check OPENSEARCH_PASSWORD`) || strings.Contains(err.Error(), "wrong-pw-123") {
		t.Errorf("a wrong password: %v", err)
	}
	t.Setenv("OPENSEARCH_PASSWORD", "")
	if err := open("opensearchs://" + host + withCA); err == nil || !strings.Contains(err.Error(), "the cluster wants credentials") {
		t.Errorf("no credentials: %v", err)
	}
	noCA := *parsed
	noCA.RawQuery = ""
	if err := open(noCA.String()); err == nil || !strings.Contains(err.Error(), "certificate") || strings.Contains(err.Error(), s.Password) {
		t.Errorf("without the CA: %v, want a certificate error without the password", err)
	}
}
