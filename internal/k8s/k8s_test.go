package k8s

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	_ "github.com/fairbench/fairbench/internal/plugins"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// The passwords the tests' targets and results store use. They live in the
// environment only (as they would in the pods, from the Secret) and must
// never reach a manifest or an error.
const (
	pgPassword    = "pg-Secret-7731"
	redisPassword = "redis-Secret-1942"
)

// testStudy is a study whose targets take their passwords from the
// environment: their URLs name users but carry no password.
const testStudy = `# a scaled-out study
[study]
name = "Scale-out: PG 17 vs Redis"
duration = "30s"

[[target]]
name = "pg17"
url = "postgres://bench@pg17.bench.svc:5432/bench?sslmode=require"

[[target]]
name = "redis"
url = "redis://default@redis.bench.svc:6379/0"

[[workload]]
name = "kv"
kind = "kv"
clients = [8, 64]
`

func writeStudy(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "scale.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadStudy(t *testing.T, text string) *study.Study {
	t.Helper()
	st, err := study.Load(writeStudy(t, text), runner.Catalog{})
	if err != nil {
		t.Fatalf("test study does not load: %v", err)
	}
	return st
}

func testSpec(t *testing.T) Spec {
	t.Setenv("PGPASSWORD", pgPassword)
	t.Setenv("REDISCLI_AUTH", redisPassword)
	return Spec{
		Study:      loadStudy(t, testStudy),
		Namespace:  "bench",
		Image:      "registry.example/fairbench:v1",
		Results:    "postgres://fairbench@stats-db.bench.svc:5432/fairbench?sslmode=require",
		Generators: 4,
		Secret:     "bench-passwords",
	}
}

func render(t *testing.T, spec Spec) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, spec); err != nil {
		t.Fatalf("Render: %v", err)
	}
	return b.String()
}

// documents splits a YAML stream with Kubernetes' own reader (the one kubectl
// uses) and returns the non-empty documents.
func documents(t *testing.T, stream string) [][]byte {
	t.Helper()
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(stream)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("splitting the YAML stream: %v", err)
		}
		if len(bytes.TrimSpace(doc)) > 0 {
			docs = append(docs, doc)
		}
	}
	return docs
}

// decoded is the rendered stream decoded strictly into Kubernetes' types.
type decoded struct {
	cm                      corev1.ConfigMap
	generators, coordinator batchv1.Job
}

func decode(t *testing.T, stream string) decoded {
	t.Helper()
	docs := documents(t, stream)
	if len(docs) != 3 {
		t.Fatalf("%d documents, want 3 (ConfigMap, generators Job, coordinator Job):\n%s", len(docs), stream)
	}
	var d decoded
	targets := []any{&d.cm, &d.generators, &d.coordinator}
	for i, doc := range docs {
		// UnmarshalStrict fails on unknown or duplicate fields and on
		// values of the wrong type (a quantity that is not one, a number
		// where a string is expected).
		if err := yaml.UnmarshalStrict(doc, targets[i]); err != nil {
			t.Fatalf("document %d does not decode strictly as %T: %v\n%s", i+1, targets[i], err, doc)
		}
	}
	return d
}

// checkSpreadTerm checks an anti-affinity term keeps this study's generator
// pods apart per node.
func checkSpreadTerm(t *testing.T, term corev1.PodAffinityTerm, g batchv1.Job, name string) {
	t.Helper()
	if term.TopologyKey != "kubernetes.io/hostname" {
		t.Errorf("generators anti-affinity topologyKey %q, want kubernetes.io/hostname", term.TopologyKey)
	}
	// The selector must match the generators' own pods, or it keeps nothing apart.
	if term.LabelSelector == nil || !subset(term.LabelSelector.MatchLabels, g.Spec.Template.Labels) || len(term.LabelSelector.MatchLabels) == 0 {
		t.Errorf("generators anti-affinity selector %+v does not select the generator pods %v", term.LabelSelector, g.Spec.Template.Labels)
	}
	if term.LabelSelector != nil && term.LabelSelector.MatchLabels[labelInstance] != name {
		t.Errorf("generators anti-affinity selector %v is not limited to this study's instance", term.LabelSelector.MatchLabels)
	}
}

// TestRenderSpreadHostNetworkAndRun: --spread required keeps today's strict
// rule; --host-network admits loopback targets and results (the pod's
// loopback is the node's) and sets the pods' network; the run label marks
// every object and pod; each pod learns its node's name.
func TestRenderSpreadHostNetworkAndRun(t *testing.T) {
	spec := testSpec(t)
	spec.Spread = SpreadRequired
	spec.Run = "r-20261202-1"
	d := decode(t, render(t, spec))
	aa := d.generators.Spec.Template.Spec.Affinity
	if aa == nil || aa.PodAntiAffinity == nil || len(aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 ||
		len(aa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 0 {
		t.Fatalf("--spread required: want one required term and no preferred one: %+v", aa)
	}
	checkSpreadTerm(t, aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0], d.generators, "scale-out-pg-17-vs-redis")
	for _, o := range []struct {
		what   string
		labels map[string]string
	}{
		{"ConfigMap", d.cm.Labels}, {"generators Job", d.generators.Labels}, {"generator pods", d.generators.Spec.Template.Labels},
		{"coordinator Job", d.coordinator.Labels}, {"coordinator pod", d.coordinator.Spec.Template.Labels},
	} {
		if o.labels[LabelRun] != spec.Run {
			t.Errorf("%s labels %v lack %s=%s", o.what, o.labels, LabelRun, spec.Run)
		}
	}
	for _, job := range []batchv1.Job{d.generators, d.coordinator} {
		found := false
		for _, e := range job.Spec.Template.Spec.Containers[0].Env {
			if e.Name == NodeEnv && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no %s from spec.nodeName in %+v", job.Name, NodeEnv, job.Spec.Template.Spec.Containers[0].Env)
		}
	}

	loop := testSpec(t)
	loop.Study = loadStudy(t, strings.Replace(testStudy, "pg17.bench.svc", "127.0.0.1", 1))
	loop.Results = "postgres://fairbench@127.0.0.1:5432/fairbench"
	var b bytes.Buffer
	err := Render(&b, loop)
	if err == nil || !strings.Contains(err.Error(), "--host-network") {
		t.Fatalf("loopback results without --host-network: err %v, want a refusal naming --host-network", err)
	}
	loop.HostNetwork = true
	d = decode(t, render(t, loop))
	for _, job := range []batchv1.Job{d.generators, d.coordinator} {
		ps := job.Spec.Template.Spec
		if !ps.HostNetwork || ps.DNSPolicy != corev1.DNSClusterFirstWithHostNet {
			t.Errorf("%s: hostNetwork %v dnsPolicy %q, want true and ClusterFirstWithHostNet", job.Name, ps.HostNetwork, ps.DNSPolicy)
		}
	}

	huge := testSpec(t)
	huge.Generators = 99999999999
	if err := Render(&b, huge); err == nil || !strings.Contains(err.Error(), "--generators") {
		t.Errorf("--generators 99999999999: err %v, want a refusal naming --generators", err)
	}
	bad := testSpec(t)
	bad.Spread = "sometimes"
	if err := Render(&b, bad); err == nil || !strings.Contains(err.Error(), "--spread") {
		t.Errorf("--spread sometimes: err %v, want a refusal naming --spread", err)
	}
}

func TestRenderDecodesStrictly(t *testing.T) {
	spec := testSpec(t)
	out := render(t, spec)
	d := decode(t, out)
	name := "scale-out-pg-17-vs-redis"

	if d.cm.Kind != "ConfigMap" || d.cm.APIVersion != "v1" || d.cm.Name != name+"-study" || d.cm.Namespace != "bench" {
		t.Errorf("ConfigMap: kind %q apiVersion %q name %q namespace %q", d.cm.Kind, d.cm.APIVersion, d.cm.Name, d.cm.Namespace)
	}
	if got := d.cm.Data["study.toml"]; got != testStudy {
		t.Errorf("ConfigMap study.toml differs from the study file:\n got %q\nwant %q", got, testStudy)
	}
	wantCM := map[string]string{labelName: "fairbench", labelInstance: name}
	if !reflect.DeepEqual(d.cm.Labels, wantCM) {
		t.Errorf("ConfigMap labels %v, want %v", d.cm.Labels, wantCM)
	}

	g := d.generators
	if g.Kind != "Job" || g.APIVersion != "batch/v1" || g.Name != name+"-generators" || g.Namespace != "bench" {
		t.Errorf("generators: kind %q apiVersion %q name %q namespace %q", g.Kind, g.APIVersion, g.Name, g.Namespace)
	}
	if g.Spec.CompletionMode == nil || *g.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("generators completionMode %v, want Indexed", g.Spec.CompletionMode)
	}
	if g.Spec.Parallelism == nil || *g.Spec.Parallelism != 4 || g.Spec.Completions == nil || *g.Spec.Completions != 4 {
		t.Errorf("generators parallelism %v completions %v, want 4 and 4", g.Spec.Parallelism, g.Spec.Completions)
	}
	if g.Spec.BackoffLimitPerIndex == nil || *g.Spec.BackoffLimitPerIndex != 0 {
		t.Errorf("generators backoffLimitPerIndex %v, want 0", g.Spec.BackoffLimitPerIndex)
	}
	genLabels := map[string]string{labelName: "fairbench", labelInstance: name, labelComponent: "generator"}
	if !reflect.DeepEqual(g.Labels, genLabels) || !reflect.DeepEqual(g.Spec.Template.Labels, genLabels) {
		t.Errorf("generator labels %v / pod %v, want %v", g.Labels, g.Spec.Template.Labels, genLabels)
	}
	aa := g.Spec.Template.Spec.Affinity
	if aa == nil || aa.PodAntiAffinity == nil || len(aa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 ||
		len(aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 0 {
		t.Fatalf("generators: want one preferred pod anti-affinity term by default (a one-node cluster must schedule them all): %+v", aa)
	}
	checkSpreadTerm(t, aa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm, g, name)
	if g.Spec.Template.Spec.HostNetwork {
		t.Errorf("generators: hostNetwork without --host-network")
	}
	checkPod(t, "generator", g.Spec.Template.Spec, name, spec.Secret, "2", "2Gi",
		[]string{"generator", "/etc/fairbench/study.toml", "--results", spec.Results})

	c := d.coordinator
	if c.Kind != "Job" || c.Name != name+"-coordinator" || c.Namespace != "bench" {
		t.Errorf("coordinator: kind %q name %q namespace %q", c.Kind, c.Name, c.Namespace)
	}
	if c.Spec.CompletionMode != nil && *c.Spec.CompletionMode != batchv1.NonIndexedCompletion {
		t.Errorf("coordinator completionMode %v", *c.Spec.CompletionMode)
	}
	if c.Spec.Parallelism == nil || *c.Spec.Parallelism != 1 || c.Spec.BackoffLimit == nil || *c.Spec.BackoffLimit != 0 {
		t.Errorf("coordinator parallelism %v backoffLimit %v, want 1 and 0", c.Spec.Parallelism, c.Spec.BackoffLimit)
	}
	if c.Spec.Template.Labels[labelComponent] != "coordinator" {
		t.Errorf("coordinator pod labels %v", c.Spec.Template.Labels)
	}
	caa := c.Spec.Template.Spec.Affinity
	if caa == nil || caa.PodAntiAffinity == nil || len(caa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Fatalf("coordinator: no preferred anti-affinity: %+v", caa)
	}
	pt := caa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm
	if pt.TopologyKey != "kubernetes.io/hostname" || pt.LabelSelector == nil || !subset(pt.LabelSelector.MatchLabels, g.Spec.Template.Labels) {
		t.Errorf("coordinator anti-affinity %+v does not avoid the generator pods' nodes", pt)
	}
	if subset(pt.LabelSelector.MatchLabels, c.Spec.Template.Labels) {
		t.Errorf("coordinator anti-affinity selects the coordinator itself")
	}
	checkPod(t, "coordinator", c.Spec.Template.Spec, name, spec.Secret, "500m", "512Mi",
		[]string{"run", "/etc/fairbench/study.toml", "--results", spec.Results, "--generators", "4", "--remote-generators"})
}

func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func checkPod(t *testing.T, component string, pod corev1.PodSpec, name, secret, cpu, memory string, args []string) {
	t.Helper()
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s restartPolicy %q, want Never", component, pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", component, len(pod.Containers))
	}
	ct := pod.Containers[0]
	if ct.Name != component || ct.Image != "registry.example/fairbench:v1" {
		t.Errorf("%s container name %q image %q", component, ct.Name, ct.Image)
	}
	if !reflect.DeepEqual(ct.Args, args) || len(ct.Command) != 0 {
		t.Errorf("%s command %q args %q, want the image's entrypoint with args %q", component, ct.Command, ct.Args, args)
	}
	if secret == "" {
		if len(ct.EnvFrom) != 0 {
			t.Errorf("%s envFrom %+v without a secret", component, ct.EnvFrom)
		}
	} else if len(ct.EnvFrom) != 1 || ct.EnvFrom[0].SecretRef == nil || ct.EnvFrom[0].SecretRef.Name != secret {
		t.Errorf("%s envFrom %+v, want secretRef %q", component, ct.EnvFrom, secret)
	}
	home := false
	for _, e := range ct.Env {
		if e.Name == "HOME" && e.Value == "/tmp" {
			home = true
		}
	}
	if !home {
		t.Errorf("%s env %+v lacks HOME=/tmp", component, ct.Env)
	}
	for _, rl := range []struct {
		what string
		l    corev1.ResourceList
	}{{"requests", ct.Resources.Requests}, {"limits", ct.Resources.Limits}} {
		if q := rl.l[corev1.ResourceCPU]; q.Cmp(resource.MustParse(cpu)) != 0 {
			t.Errorf("%s cpu %s %s, want %s", component, rl.what, q.String(), cpu)
		}
		if q := rl.l[corev1.ResourceMemory]; q.Cmp(resource.MustParse(memory)) != 0 {
			t.Errorf("%s memory %s %s, want %s", component, rl.what, q.String(), memory)
		}
	}
	sc := ct.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65532 ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("%s container securityContext %+v is not nonroot 65532, read-only, no escalation, drop ALL", component, sc)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 {
		t.Errorf("%s pod securityContext %+v is not nonroot 65532", component, psc)
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range ct.VolumeMounts {
		mounts[m.Name] = m
	}
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		vols[v.Name] = v
	}
	var studyVol, tmpVol string
	for n, m := range mounts {
		switch m.MountPath {
		case "/etc/fairbench":
			studyVol = n
			if !m.ReadOnly {
				t.Errorf("%s mounts the study read-write", component)
			}
		case "/tmp":
			tmpVol = n
		}
	}
	if v, ok := vols[studyVol]; !ok || v.ConfigMap == nil || v.ConfigMap.Name != name+"-study" {
		t.Errorf("%s: /etc/fairbench is not the ConfigMap %s-study (mount %q, volumes %+v)", component, name, studyVol, pod.Volumes)
	}
	if v, ok := vols[tmpVol]; !ok || v.EmptyDir == nil {
		t.Errorf("%s: /tmp is not an emptyDir (mount %q, volumes %+v)", component, tmpVol, pod.Volumes)
	}
}

func TestRenderWithoutSecretOrNamespace(t *testing.T) {
	spec := testSpec(t)
	spec.Secret, spec.Namespace = "", ""
	spec.Name = "plain"
	spec.Generators = 1
	spec.CPU, spec.Memory = "3500m", "6Gi"
	out := render(t, spec)
	d := decode(t, out)
	if strings.Contains(out, "envFrom") || strings.Contains(out, "namespace:") {
		t.Errorf("no --secret / --namespace, yet the output has envFrom or a namespace:\n%s", out)
	}
	if d.cm.Name != "plain-study" || d.generators.Name != "plain-generators" || d.coordinator.Name != "plain-coordinator" {
		t.Errorf("names %q %q %q", d.cm.Name, d.generators.Name, d.coordinator.Name)
	}
	checkPod(t, "generator", d.generators.Spec.Template.Spec, "plain", "", "3500m", "6Gi",
		[]string{"generator", "/etc/fairbench/study.toml", "--results", spec.Results})
	checkPod(t, "coordinator", d.coordinator.Spec.Template.Spec, "plain", "", "500m", "512Mi",
		[]string{"run", "/etc/fairbench/study.toml", "--results", spec.Results, "--generators", "1", "--remote-generators"})
}

// TestRenderNoPassword renders with the passwords in the environment, as in the
// pods, and checks none of them is in the manifests.
func TestRenderNoPassword(t *testing.T) {
	out := render(t, testSpec(t))
	for _, p := range []string{pgPassword, redisPassword, os.Getenv("PGPASSWORD"), os.Getenv("REDISCLI_AUTH")} {
		if p == "" {
			t.Fatal("the test's passwords are not in the environment")
		}
		if strings.Contains(out, p) {
			t.Errorf("password %q appears in the manifests", p)
		}
	}
	// The Secret is referenced by name only; no key of it is spelled out.
	if strings.Contains(out, "PGPASSWORD") || strings.Contains(out, "REDISCLI_AUTH") {
		t.Errorf("the manifests spell out a password variable:\n%s", out)
	}
}

func TestRenderRefusals(t *testing.T) {
	inlineTarget := strings.Replace(testStudy, "postgres://bench@pg17", "postgres://bench:"+pgPassword+"@pg17", 1)
	inlineQuery := strings.Replace(testStudy, "redis://default@redis.bench.svc:6379/0", "redis://redis.bench.svc:6379/0?password="+redisPassword, 1)
	unnamed := strings.Replace(testStudy, `name = "Scale-out: PG 17 vs Redis"`, "", 1)
	tests := []struct {
		name   string
		edit   func(*Spec)
		text   string // study text, "" = testStudy
		want   []string
		secret string // must not appear in the error
	}{
		{"sqlite results", func(s *Spec) { s.Results = "sqlite:fairbench.db" },
			"", []string{"--results", "sqlite:fairbench.db", "shared PostgreSQL", "SQLite file is not shared between pods"}, ""},
		{"file results", func(s *Spec) { s.Results = "fairbench.db" },
			"", []string{"--results", "must be a shared PostgreSQL database"}, ""},
		{"empty results", func(s *Spec) { s.Results = "" }, "", []string{"--results is required"}, ""},
		{"results password", func(s *Spec) { s.Results = "postgres://fairbench:" + pgPassword + "@stats-db/fairbench" },
			"", []string{"--results", "carries a password", "put it in the Secret as FAIRBENCH_RESULTS_PASSWORD"}, pgPassword},
		{"results password in query", func(s *Spec) { s.Results = "postgres://fairbench@stats-db/fairbench?password=" + pgPassword },
			"", []string{"--results", "carries a password", "PGPASSWORD"}, pgPassword},
		{"results on loopback", func(s *Spec) { s.Results = "postgres://fairbench@localhost/fairbench" },
			"", []string{"--results", `host "localhost" is the pod itself`}, ""},
		{"target password", nil, inlineTarget,
			[]string{`target "pg17"`, "scale.toml:6: target", "carries a password", "ConfigMap, which is not secret", "PGPASSWORD"}, pgPassword},
		{"target password in query", nil, inlineQuery,
			[]string{`target "redis"`, "carries a password", "ConfigMap"}, redisPassword},
		{"zero generators", func(s *Spec) { s.Generators = 0 }, "", []string{"--generators 0", "at least one generator"}, ""},
		{"negative generators", func(s *Spec) { s.Generators = -2 }, "", []string{"--generators -2", "at least one generator"}, ""},
		{"empty image", func(s *Spec) { s.Image = "" }, "", []string{"--image is empty"}, ""},
		{"blank image", func(s *Spec) { s.Image = "  " }, "", []string{"--image is empty"}, ""},
		{"upper-case name", func(s *Spec) { s.Name = "Bench" },
			"", []string{`--name "Bench" is not a DNS-1123 label`, "lower-case letters, digits and '-'"}, ""},
		{"name with dot", func(s *Spec) { s.Name = "a.b" }, "", []string{`--name "a.b" is not a DNS-1123 label`}, ""},
		{"name ending in dash", func(s *Spec) { s.Name = "bench-" }, "", []string{`--name "bench-" is not a DNS-1123 label`, "starting and ending with a letter or digit"}, ""},
		{"name too long", func(s *Spec) { s.Name = strings.Repeat("a", 51) },
			"", []string{"--name", "51 characters long", "with 4 generators it can have at most 50", "-generators-3", "63 characters"}, ""},
		{"bad namespace", func(s *Spec) { s.Namespace = "Bench_NS" }, "", []string{`--namespace "Bench_NS" is not a DNS-1123 label`}, ""},
		{"bad secret", func(s *Spec) { s.Secret = "My Secret" }, "", []string{`--secret "My Secret" is not a valid Secret name`}, ""},
		{"bad cpu", func(s *Spec) { s.CPU = "two" }, "", []string{`--cpu "two" is not a Kubernetes quantity`}, ""},
		{"bad memory", func(s *Spec) { s.Memory = "2GB" }, "", []string{`--memory "2GB" is not a Kubernetes quantity`}, ""},
		{"sqlite target", nil, strings.Replace(testStudy, "redis://default@redis.bench.svc:6379/0", "sqlite:bench.db", 1),
			[]string{`target "redis"`, "SQLite target is a file inside each pod"}, ""},
		{"loopback target", nil, strings.Replace(testStudy, "pg17.bench.svc", "127.0.0.1", 1),
			[]string{`target "pg17"`, `host "127.0.0.1" is the pod itself`}, ""},
		{"unnamed study", nil, unnamed, []string{"[study] has no name", `named after its file ("scale")`, `add name = "scale" to [study]`}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := testSpec(t)
			if tc.text != "" {
				spec.Study = loadStudy(t, tc.text)
			}
			if tc.edit != nil {
				tc.edit(&spec)
			}
			var b bytes.Buffer
			err := Render(&b, spec)
			if err == nil {
				t.Fatalf("rendered, want a refusal:\n%s", b.String())
			}
			if b.Len() != 0 {
				t.Errorf("a refused spec wrote %d bytes", b.Len())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.secret != "" && strings.Contains(err.Error(), tc.secret) {
				t.Errorf("error %q shows the password", err)
			}
		})
	}
}

func TestRenderDefaultName(t *testing.T) {
	for _, tc := range []struct {
		study      string
		generators int
		want       string
	}{
		{"demo: SQLite WAL+NORMAL vs DELETE+FULL", 4, "demo-sqlite-wal-normal-vs-delete-full"},
		{"  --Scale-out__test--  ", 1, "scale-out-test"},
		{"2024 Q3 run", 2, "fairbench-2024-q3-run"},
		{"ÜBER-bench ✓", 2, "ber-bench"},
		{"✓✓", 2, "fairbench"},
		{strings.Repeat("abcdefghij", 8), 9, strings.Repeat("abcdefghij", 5)},                 // 63-11-1-1 = 50
		{strings.Repeat("abcdefghij", 8), 100, strings.Repeat("abcdefghij", 4) + "abcdefghi"}, // 63-11-1-2 = 49
		{strings.Repeat("abcd-", 20), 10, strings.TrimRight(strings.Repeat("abcd-", 10)[:50], "-")},
	} {
		got := defaultName(tc.study, tc.generators)
		if got != tc.want {
			t.Errorf("defaultName(%q, %d) = %q, want %q", tc.study, tc.generators, got, tc.want)
		}
		host := got + "-generators-" + strconv.Itoa(tc.generators-1)
		if err := checkName(got, tc.generators); err != nil || len(host) > 63 {
			t.Errorf("defaultName(%q, %d) = %q is not a valid name (%v; host %q)", tc.study, tc.generators, got, err, host)
		}
	}
}

// TestRenderEmitterScalars checks that strings YAML would read as something else
// (numbers, booleans, null, indicators) come back as the same strings.
func TestRenderEmitterScalars(t *testing.T) {
	values := []string{
		"", "2", "500m", "2Gi", "1e3", "0x10", "0o7", ".5", "-1", "+1", "true", "False", "yes", "No", "on", "OFF",
		"y", "n", "null", "Null", "~", "-", "--results", "- item", "a: b", "a #b", "#c", "[x]", "{x}", "*ref", "&anchor",
		"!tag", "|", ">", "'q'", `"q"`, "%p", "@at", "`bt", "x\ny", "tab\there", "ünï", "trailing ", " leading",
		"postgres://u@h:5432/db?sslmode=require&x=1", "registry.example/fairbench:v1", "a\\b", "\x7f", "emoji 🚀",
	}
	for _, v := range values {
		var b strings.Builder
		emitDoc(&b, obj{{"k", v}, {"l", list{v}}})
		var got struct {
			K string   `json:"k"`
			L []string `json:"l"`
		}
		if err := yaml.UnmarshalStrict([]byte(b.String()), &got); err != nil {
			t.Errorf("%q: emitted %q does not decode: %v", v, b.String(), err)
			continue
		}
		if got.K != v || len(got.L) != 1 || got.L[0] != v {
			t.Errorf("%q: emitted %q decodes as %q, %q", v, b.String(), got.K, got.L)
		}
	}
}

// TestRenderEmitterBlock checks that study texts of every shape survive the literal
// block of the ConfigMap byte for byte.
func TestRenderEmitterBlock(t *testing.T) {
	texts := []string{
		"a = 1\n", "a = 1", "a = 1\n\n\n", "  indented = 1\n", "\n\nleading blank lines\n", "x\n\n\ny\n",
		"tab\tinside\n", "\tleading tab\n", "crlf\r\nline\r\n", "# ---\n---\n...\n", "bell\a\n", "\ufeffbom\n",
		"trailing spaces   \n   \n", "ünïcödé ✓\n", "a\u2028b\n", "next line\u0085x\n", "",
	}
	for _, text := range texts {
		var b strings.Builder
		emitDoc(&b, obj{{"data", obj{{"study.toml", block(text)}}}, {"after", "x"}})
		var got struct {
			Data  map[string]string `json:"data"`
			After string            `json:"after"`
		}
		if err := yaml.UnmarshalStrict([]byte(b.String()), &got); err != nil {
			t.Errorf("%q: emitted %q does not decode: %v", text, b.String(), err)
			continue
		}
		if got.Data["study.toml"] != text || got.After != "x" {
			t.Errorf("%q: emitted\n%s\ndecodes as %q (after %q)", text, b.String(), got.Data["study.toml"], got.After)
		}
	}
}
