package testenv

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The secured front refuses a request without the password, or with a wrong
// one, with 401, speaks only https, and passes an authorised request to the
// node.
func TestSecuredOpenSearchRefusesWithoutThePassword(t *testing.T) {
	s := SecuredOpenSearch(t)
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	if status, body, err := SearchDo(s.URL, http.MethodGet, "/", ""); err != nil || status != http.StatusOK || !strings.Contains(string(body), "fairbench-opensearch") {
		t.Fatalf("with the password: HTTP %d, %v: %s", status, err, body)
	}
	wrong := *u
	wrong.User = url.UserPassword(s.User, s.Password+"x")
	none := *u
	none.User = nil
	for name, raw := range map[string]string{"a wrong password": wrong.String(), "no password": none.String()} {
		if status, _, err := SearchDo(raw, http.MethodGet, "/", ""); err != nil || status != http.StatusUnauthorized {
			t.Errorf("%s: HTTP %d, %v; want 401", name, status, err)
		}
	}
	if s.Authorized() != 1 || s.Refused() != 2 {
		t.Errorf("passed %d, refused %d; want 1 and 2", s.Authorized(), s.Refused())
	}
	plain := *u
	plain.Scheme, plain.RawQuery = "opensearch", ""
	// Go's TLS server answers plain http with 400 and serves nothing.
	if status, body, err := SearchDo(plain.String(), http.MethodGet, "/", ""); err == nil && status != http.StatusBadRequest || s.Authorized() != 1 {
		t.Errorf("plain http: HTTP %d, %v: %s; want it refused", status, err, body)
	}
}
