package opensearch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

const secret = "s3cr%2Ft-pw" // percent-encoded "s3cr/t-pw"

// clearEnv unsets the variables parseURL reads, for the test.
func clearEnv(t *testing.T) {
	for _, k := range []string{"OPENSEARCH_PASSWORD", "ELASTICSEARCH_PASSWORD", "OPENSEARCH_API_KEY", "ELASTICSEARCH_API_KEY"} {
		t.Setenv(k, "")
	}
}

func TestParseURLSchemes(t *testing.T) {
	clearEnv(t)
	for raw, want := range map[string]struct {
		engine, addr string
		tls          bool
	}{
		"opensearch://h":                    {"opensearch", "http://h:9200", false},
		"opensearchs://h:9243":              {"opensearch", "https://h:9243", true},
		"elasticsearch://10.0.0.1:9201/":    {"elasticsearch", "http://10.0.0.1:9201", false},
		"elasticsearchs://h":                {"elasticsearch", "https://h:9200", true},
		"OpenSearch://h?tls=true":           {"opensearch", "https://h:9200", true},
		"opensearchs://h?tls=false":         {"opensearch", "http://h:9200", false},
		"opensearch://[::1]:9300":           {"opensearch", "http://[::1]:9300", false},
		"opensearch://[::1]":                {"opensearch", "http://[::1]:9200", false},
		"opensearchs://h?insecure=true":     {"opensearch", "https://h:9200", true},
		"elasticsearch://u:pw@h:1?tls=true": {"elasticsearch", "https://h:1", true},
	} {
		cfg, err := parseURL(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if cfg.engine != want.engine || cfg.tls != want.tls || len(cfg.addresses) != 1 || cfg.addresses[0] != want.addr {
			t.Errorf("%s: engine %q tls %v addresses %v, want %+v", raw, cfg.engine, cfg.tls, cfg.addresses, want)
		}
		if (cfg.tlsConfig != nil) != cfg.tls {
			t.Errorf("%s: TLS config %v with tls %v", raw, cfg.tlsConfig, cfg.tls)
		}
	}
	cfg, _ := parseURL("opensearchs://h?insecure=true")
	if !cfg.insecure || !cfg.tlsConfig.InsecureSkipVerify {
		t.Errorf("insecure=true not applied: %+v", cfg)
	}
}

func TestParseURLHosts(t *testing.T) {
	clearEnv(t)
	cfg, err := parseURL("opensearch://admin:" + secret + "@h1:9200,h2,h3:9202")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://h1:9200", "http://h2:9200", "http://h3:9202"}; !slices.Equal(cfg.addresses, want) {
		t.Errorf("addresses %v, want %v", cfg.addresses, want)
	}
	if cfg.user != "admin" || cfg.password != "s3cr/t-pw" {
		t.Errorf("user %q password %q", cfg.user, cfg.password)
	}
	if strings.Contains(cfg.redacted, "s3cr") || !strings.Contains(cfg.redacted, "h3:9202") {
		t.Errorf("redacted %q", cfg.redacted)
	}
}

func TestParseURLCredentialsFromEnv(t *testing.T) {
	clearEnv(t)
	t.Setenv("OPENSEARCH_PASSWORD", "os-env-pw")
	t.Setenv("ELASTICSEARCH_PASSWORD", "es-env-pw")
	t.Setenv("OPENSEARCH_API_KEY", "os-env-key")
	t.Setenv("ELASTICSEARCH_API_KEY", "es-env-key")
	for raw, want := range map[string][3]string{ // user, password, api key
		"opensearch://admin@h":            {"admin", "os-env-pw", ""},
		"elasticsearch://elastic@h":       {"elastic", "es-env-pw", ""},
		"opensearch://admin:given@h":      {"admin", "given", ""},
		"opensearch://h":                  {"", "", "os-env-key"},
		"elasticsearchs://h":              {"", "", "es-env-key"},
		"opensearch://h?api_key=url-key":  {"", "", "url-key"},
		"elasticsearch://h?api_key=a%3Db": {"", "", "a=b"},
	} {
		cfg, err := parseURL(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if got := [3]string{cfg.user, cfg.password, cfg.apiKey}; got != want {
			t.Errorf("%s: user, password, key %q, want %q", raw, got, want)
		}
		for _, s := range want[1:] {
			if s != "" && !slices.Contains(cfg.secrets, s) {
				t.Errorf("%s: %q is not among the secrets to scrub", raw, s)
			}
		}
	}
}

func TestParseURLCA(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	// A certificate is not checked for being a CA here, only for being PEM.
	pem := "-----BEGIN CERTIFICATE-----\nMIIBhTCCASugAwIBAgIQIRi6zePL6mKjOipn+dNuaTAKBggqhkjOPQQDAjASMRAw\nDgYDVQQKEwdBY21lIENvMB4XDTE3MTAyMDE5NDMwNloXDTE4MTAyMDE5NDMwNlow\nEjEQMA4GA1UEChMHQWNtZSBDbzBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABD0d\n7VNhbWvZLWPuj/RtHFjvtJBEwOkhbN/BnnE8rnZR8+sbwnc/KhCk3FhnpHZnQz7B\n5aETbbIgmuvewdjvSBSjYzBhMA4GA1UdDwEB/wQEAwICpDATBgNVHSUEDDAKBggr\nBgEFBQcDATAPBgNVHRMBAf8EBTADAQH/MCkGA1UdEQQiMCCCDmxvY2FsaG9zdDo1\nNDUzgg4xMjcuMC4wLjE6NTQ1MzAKBggqhkjOPQQDAgNIADBFAiEA2zpJEPQyz6/l\nWf86aX6PepsntZv2GYlA5UpabfT2EZICICpJ5h/iI+i341gBmLiAFQOyTDT+/wQc\n6MF9+Yw1Yy0t\n-----END CERTIFICATE-----\n"
	if err := os.WriteFile(ca, []byte(pem), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseURL("opensearchs://h?ca=" + ca)
	if err != nil || cfg.tlsConfig.RootCAs == nil {
		t.Fatalf("ca not loaded: %v", err)
	}
	junk := filepath.Join(dir, "junk.pem")
	os.WriteFile(junk, []byte("not a certificate"), 0o600) //nolint:errcheck // checked by the parse below
	for file, want := range map[string]string{junk: "holds no PEM certificate", filepath.Join(dir, "missing.pem"): "cannot read"} {
		_, err := parseURL("opensearchs://u:" + secret + "@h?ca=" + file)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
			t.Errorf("ca=%s: error %v, want one naming the file and saying %q", file, err, want)
		}
	}
}

// Every refused URL names the URL with its secrets redacted, says what is
// wrong, and never shows the password or the API key.
func TestParseURLErrors(t *testing.T) {
	clearEnv(t)
	for raw, want := range map[string]string{
		"opensearch://u:" + secret + "@h?bogus=1":                  `unsupported parameter "bogus" (supported: api_key, ca, insecure, timeout, tls)`,
		"opensearch://u:" + secret + "@h?tls=maybe":                "use true or false",
		"opensearch://u:" + secret + "@h?insecure=true":            "need TLS",
		"opensearch://u:" + secret + "@h?ca=/x.pem":                "need TLS",
		"opensearch://u:" + secret + "@h:99999":                    "not a TCP port",
		"opensearch://u:" + secret + "@h1:9200,:9201":              "empty host",
		"opensearch://u:" + secret + "@h1:9200,h2:x":               "not a TCP port",
		"opensearch://u:" + secret + "@":                           "no host",
		"opensearch://u:" + secret + "@h/logs":                     "unexpected path",
		"http://u:" + secret + "@h":                                "scheme must be",
		"opensearch://u:" + secret + "@h?api_key=k3y-s3cr3t":       "both a user and api_key",
		"opensearch://u:" + secret + "@h?tls=true&tls=true":        "given 2 times",
		"elasticsearchs://h?api_key=k3y-s3cr3t&insecure=sometimes": "use true or false",
	} {
		_, err := parseURL(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", raw, err, want)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "s3cr") || strings.Contains(msg, "k3y") {
			t.Errorf("%s: error shows a secret: %s", raw, msg)
		}
		if !strings.Contains(msg, "Search URL ") && !strings.Contains(msg, "Elasticsearch URL ") {
			t.Errorf("%s: error does not name the URL: %s", raw, msg)
		}
	}
}

func TestRedactedHidesPasswordAndAPIKey(t *testing.T) {
	for _, raw := range []string{
		"opensearch://admin:" + secret + "@h1:9200,h2:9200,h3:9200",
		"opensearchs://admin:" + secret + "@h1:9200/?tls=true",
		"elasticsearch://h1:9200,h2:9200?api_key=k3y-s3cr3t",
		"elasticsearchs://h:9200?api_key=k3y-s3cr3t&insecure=true",
	} {
		got := driver.Redacted(raw)
		if strings.Contains(got, "s3cr") || strings.Contains(got, "k3y") || !strings.Contains(got, "xxxxx") {
			t.Errorf("Redacted(%q) = %q", raw, got)
		}
	}
	if d, err := driver.ForURL("elasticsearchs://h"); err != nil || d.Name() != "opensearch" {
		t.Errorf("elasticsearchs:// is not registered: %v", err)
	}
}
