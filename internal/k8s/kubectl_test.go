package k8s

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
)

// kubectlBinary is the kubectl scripts/install-kubectl.sh built, named by
// FAIRBENCH_TEST_KUBECTL. As with the other peers (internal/testenv), the
// test skips without it, unless FAIRBENCH_REQUIRE_SERVERS=1: CI must not pass
// by skipping.
func kubectlBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("FAIRBENCH_TEST_KUBECTL")
	if bin == "" {
		if os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatal("FAIRBENCH_TEST_KUBECTL is not set; scripts/test-servers.sh builds kubectl (scripts/install-kubectl.sh)")
		}
		t.Skip("FAIRBENCH_TEST_KUBECTL not set: kubectl dry-run test skipped (scripts/install-kubectl.sh builds kubectl)")
	}
	return bin
}

// fakeAPIServer serves what `kubectl apply --dry-run=client` asks a cluster
// for: the discovery documents (to map ConfigMap and Job to their resources)
// and a 404 for each object's GET (apply asks whether the object exists; a
// client dry run then prints "created" without sending it). Any other path
// is logged and answered 404, so that a kubectl that starts asking for more
// shows in the test's log.
type fakeAPIServer struct {
	t       *testing.T
	mu      sync.Mutex
	gets    []string // object paths kubectl looked up
	unknown []string
	writes  []string // anything but GET: a dry run must send none
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if r.Method != http.MethodGet {
		f.mu.Lock()
		f.writes = append(f.writes, r.Method+" "+path)
		f.mu.Unlock()
		http.Error(w, "the fake API server accepts no writes", http.StatusMethodNotAllowed)
		return
	}
	resource := func(name, singular, kind string, namespaced bool) metav1.APIResource {
		return metav1.APIResource{Name: name, SingularName: singular, Kind: kind, Namespaced: namespaced,
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}}
	}
	switch path {
	case "/version":
		f.json(w, http.StatusOK, version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2", Platform: "linux/amd64"})
	case "/api":
		f.json(w, http.StatusOK, metav1.APIVersions{
			TypeMeta: metav1.TypeMeta{Kind: "APIVersions"},
			Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{
				{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host},
			},
		})
	case "/apis":
		batch := metav1.GroupVersionForDiscovery{GroupVersion: "batch/v1", Version: "v1"}
		f.json(w, http.StatusOK, metav1.APIGroupList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
			Groups:   []metav1.APIGroup{{Name: "batch", Versions: []metav1.GroupVersionForDiscovery{batch}, PreferredVersion: batch}},
		})
	case "/api/v1":
		f.json(w, http.StatusOK, metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "v1",
			APIResources: []metav1.APIResource{
				resource("configmaps", "configmap", "ConfigMap", true),
				resource("namespaces", "namespace", "Namespace", false),
				resource("secrets", "secret", "Secret", true),
			},
		})
	case "/apis/batch/v1":
		f.json(w, http.StatusOK, metav1.APIResourceList{
			TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
			GroupVersion: "batch/v1",
			APIResources: []metav1.APIResource{resource("jobs", "job", "Job", true)},
		})
	case "/api/v1/namespaces/bench":
		// apply checks that the objects' namespace exists; render does
		// not create it (the user's cluster has its own policy for that).
		f.json(w, http.StatusOK, corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "bench"},
			Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceActive},
		})
	default:
		if m := objectPath.FindStringSubmatch(path); m != nil {
			f.mu.Lock()
			f.gets = append(f.gets, path)
			f.mu.Unlock()
			f.json(w, http.StatusNotFound, metav1.Status{
				TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
				Status:   metav1.StatusFailure,
				Message:  fmt.Sprintf("%s %q not found", m[2], m[3]),
				Reason:   metav1.StatusReasonNotFound,
				Details:  &metav1.StatusDetails{Name: m[3], Kind: m[2]},
				Code:     http.StatusNotFound,
			})
			return
		}
		f.mu.Lock()
		f.unknown = append(f.unknown, path)
		f.mu.Unlock()
		f.t.Logf("fake API server: kubectl asked for %s %s (Accept %s): answered 404", r.Method, r.URL, r.Header.Get("Accept"))
		http.NotFound(w, r)
	}
}

// objectPath is a namespaced object's path: group prefix, resource, name.
var objectPath = regexp.MustCompile(`^/(api/v1|apis/batch/v1)/namespaces/[a-z0-9-]+/(configmaps|jobs)/([a-z0-9.-]+)$`)

func (f *fakeAPIServer) json(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Errorf("fake API server: %v", err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(b) //nolint:errcheck // the client's problem
}

// TestRenderKubectlDryRunAcceptsManifests runs `kubectl apply --dry-run=client` on
// the rendered manifests against a fake API server.
//
// --validate=false, because there is no schema validation to serve honestly
// in a client dry run. With --validate=strict (the default) kubectl first
// reads the server's OpenAPI v3 documents (/openapi/v3, then one per group
// version) to learn whether the server validates fields itself (the
// fieldValidation query parameter, in every API server since 1.27). When it
// does, kubectl leaves the validation to the server, and a client dry run
// never sends the object: served the real v1.37.2 documents (from the
// k8s.io/kubernetes module's api/openapi-spec/v3), kubectl accepted a Job
// with a misspelt field, completionModee. Only a server without field
// validation makes kubectl validate on the client, with the OpenAPI v2
// document in protobuf; faking such a server would test a configuration no
// current cluster has. The strict decoding with k8s.io/api's types
// (TestRenderDecodesStrictly) is the schema check; this test checks that
// kubectl parses the stream, maps every object to its resource in the
// rendered namespace, and would create each one.
func TestRenderKubectlDryRunAcceptsManifests(t *testing.T) {
	kubectl := kubectlBinary(t)
	spec := testSpec(t)
	manifests := filepath.Join(t.TempDir(), "fairbench.yaml")
	if err := os.WriteFile(manifests, []byte(render(t, spec)), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := &fakeAPIServer{t: t}
	srv := httptest.NewServer(fake)
	defer srv.Close()

	home := t.TempDir()
	kubeconfig := filepath.Join(home, "kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: %s
contexts:
- name: fake
  context:
    cluster: fake
    user: fake
    namespace: default
current-context: fake
users:
- name: fake
  user: {}
`, srv.URL)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "--cache-dir", filepath.Join(home, "cache"),
		"apply", "--dry-run=client", "--validate=false", "-f", manifests)
	// Nothing from the developer's own kubectl setup may leak in.
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "KUBECONFIG=" + kubeconfig}
	out, err := cmd.CombinedOutput()
	t.Logf("kubectl apply --dry-run=client:\n%s", out)
	if err != nil {
		t.Fatalf("kubectl apply --dry-run=client failed: %v", err)
	}
	name := "scale-out-pg-17-vs-redis"
	for _, want := range []string{
		"configmap/" + name + "-study created (dry run)",
		"job.batch/" + name + "-generators created (dry run)",
		"job.batch/" + name + "-coordinator created (dry run)",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("kubectl did not print %q", want)
		}
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.writes) > 0 {
		t.Errorf("a client dry run sent writes: %v", fake.writes)
	}
	// kubectl looked each object up in the manifests' namespace, not the
	// kubeconfig's: the rendered namespace is honoured.
	for _, want := range []string{
		"/api/v1/namespaces/bench/configmaps/" + name + "-study",
		"/apis/batch/v1/namespaces/bench/jobs/" + name + "-generators",
		"/apis/batch/v1/namespaces/bench/jobs/" + name + "-coordinator",
	} {
		found := false
		for _, g := range fake.gets {
			found = found || g == want
		}
		if !found {
			t.Errorf("kubectl did not look up %s (it asked for %v)", want, fake.gets)
		}
	}
}
