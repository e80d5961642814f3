// Package k8s renders the Kubernetes manifests that run a study with several
// load generators (fairbench issue 28): a ConfigMap holding the study file, an
// Indexed Job whose pods are the generators (`fairbench generator`, the pod's
// JOB_COMPLETION_INDEX being the generator's number) and a Job running the
// coordinator (`fairbench run --remote-generators`). The pods meet through the
// shared PostgreSQL results store only; `kubectl apply -f` of the output is the
// whole deployment.
//
// Everything the manifests need that is secret (the results store's and the
// targets' passwords) comes from a Secret the user names, as environment
// variables; Render refuses a study or results URL carrying a password, since a
// ConfigMap or a Job's args are readable by anyone who can list them.
package k8s

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/runner"
	"github.com/fairbench/fairbench/internal/study"
)

// Defaults of the rendered resources. The generator's CPU and memory are a
// measurement condition (a generator short of CPU measures itself), so they
// are both requested and limited: the pod is in the Guaranteed QoS class, not
// throttled below its request nor sharing its cores with burstable pods on a
// static CPU manager.
const (
	DefaultCPU               = "2"
	DefaultMemory            = "2Gi"
	DefaultCoordinatorCPU    = "500m"
	DefaultCoordinatorMemory = "512Mi"

	// studyDir is where the ConfigMap is mounted; studyKey the file in it.
	studyDir  = "/etc/fairbench"
	studyKey  = "study.toml"
	studyPath = studyDir + "/" + studyKey

	// uid is the distroless "nonroot" user the image runs as (see Dockerfile).
	uid = 65532
)

// Spec says what to render.
type Spec struct {
	// Study is the study, loaded with study.Load so that a broken file fails
	// before anything is rendered. Its Source (the text with URL secrets
	// redacted; Render refuses studies that have any) goes in the ConfigMap.
	Study *study.Study
	// Name prefixes every object's name; "" derives it from the study's name
	// (defaultName).
	Name string
	// Namespace, when set, is written on every object.
	Namespace string
	// Image is the fairbench container image (the same binary is study
	// runner, generator and coordinator).
	Image string
	// Results is the shared results store, a postgres:// URL without password.
	Results string
	// Generators is how many generator pods run (>= 1).
	Generators int
	// Secret, when set, names a Secret whose keys become the environment of
	// every pod (PGPASSWORD, MYSQL_PWD, REDISCLI_AUTH, …).
	Secret string
	// CPU and Memory are the generator's requests and limits ("" = defaults).
	CPU, Memory string
	// CoordinatorCPU and CoordinatorMemory are the coordinator's ("" = defaults).
	CoordinatorCPU, CoordinatorMemory string
	// Spread is how the generators keep apart: SpreadPreferred (the default,
	// ""), where the scheduler puts two on one node only when it must and the
	// run records and the report warns that they shared it, or
	// SpreadRequired, where a generator without a node of its own stays
	// Pending.
	Spread string
	// HostNetwork runs every pod in its node's network namespace: the pods'
	// loopback is the node's, so a server or results store listening on the
	// node's loopback is reachable (a one-node test cluster; a generator
	// beside its server on purpose).
	HostNetwork bool
	// Run, when set, labels every object (and pod) with LabelRun = Run, so
	// that `k8s run` finds its pods and deletes exactly what it created.
	Run string
}

// The generators' spread over nodes (Spec.Spread).
const (
	SpreadPreferred = "preferred"
	SpreadRequired  = "required"
)

// maxGenerators is the most completions the API server accepts for an
// Indexed Job.
const maxGenerators = 100000

// LabelRun names the run of `fairbench k8s run` an object belongs to.
const LabelRun = "fairbench.io/run"

// NodeEnv is the environment variable the pods find their node's name in
// (the downward API's spec.nodeName): a generator records it, so that a run
// whose generators shared a node says so.
const NodeEnv = runner.NodeEnv

// Labels every object carries (the recommended app.kubernetes.io set).
const (
	labelName      = "app.kubernetes.io/name"
	labelInstance  = "app.kubernetes.io/instance"
	labelComponent = "app.kubernetes.io/component"
)

// Render writes the manifests as one multi-document YAML stream: the
// ConfigMap "<name>-study", the Indexed Job "<name>-generators" and the Job
// "<name>-coordinator". Nothing is written when the spec is refused.
func Render(w io.Writer, spec Spec) error {
	s, err := spec.resolve()
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# fairbench k8s render: study %s, %d generator(s), results in %s.\n", strconv.Quote(s.Study.Name), s.Generators, s.Results)
	if s.Secret != "" {
		fmt.Fprintf(&b, "# Passwords come from the pods' environment (Secret %q), never from this file.\n", s.Secret)
	} else {
		b.WriteString("# No --secret: the pods get no passwords, so only passwordless targets and results store will connect.\n")
	}
	for i, doc := range []obj{s.configMap(), s.generatorJob(), s.coordinatorJob()} {
		if i > 0 {
			b.WriteString("---\n")
		}
		emitDoc(&b, doc)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// Object names. A Job's pods get the hostname "<job>-<index>", which must be a
// DNS-1123 label (63 characters at most); the generators' Job name is the
// longest, so it bounds the name.
const (
	suffixStudy       = "-study"
	suffixGenerators  = "-generators"
	suffixCoordinator = "-coordinator"
	maxLabel          = 63
)

// maxNameLen is the longest name for which "<name>-generators-<N-1>" is still
// a DNS-1123 label.
func maxNameLen(generators int) int {
	return maxLabel - len(suffixGenerators) - 1 - len(strconv.Itoa(max(generators-1, 0)))
}

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// defaultName derives an object name prefix from a study's name: lower case,
// runs of other characters turned into one '-', truncated so that the pod
// hostnames of `generators` generators stay valid DNS-1123 labels.
func defaultName(studyName string, generators int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(studyName) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	name := b.String()
	if n := maxNameLen(generators); len(name) > n {
		name = strings.TrimRight(name[:n], "-")
	}
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		// A name starting with a digit is a valid label, but a prefix makes
		// "fairbench-…" objects easy to find; an empty one needs one anyway.
		name = strings.TrimSuffix("fairbench-"+name, "-")
		if n := maxNameLen(generators); len(name) > n {
			name = strings.TrimRight(name[:n], "-")
		}
	}
	return name
}

// resolved is a checked Spec with its defaults filled in.
type resolved struct{ Spec }

func (spec Spec) resolve() (*resolved, error) {
	s := &resolved{spec}
	if s.Study == nil {
		return nil, errors.New("k8s render: no study")
	}
	if s.Generators < 1 {
		return nil, fmt.Errorf("--generators %d: at least one generator is needed (give --generators N, or generators = N on a workload of the study)", s.Generators)
	}
	if s.Generators > maxGenerators {
		return nil, fmt.Errorf("--generators %d: at most %d (the most completions Kubernetes allows an Indexed Job)", s.Generators, maxGenerators)
	}
	if strings.TrimSpace(s.Image) == "" {
		return nil, errors.New("--image is empty: name the fairbench container image the pods run (scripts/image.sh builds one)")
	}
	if strings.ContainsAny(s.Image, " \t\r\n") || !utf8.ValidString(s.Image) {
		return nil, fmt.Errorf("--image %q: an image reference has no spaces or control characters", s.Image)
	}
	if err := checkResults(s.Results, s.HostNetwork); err != nil {
		return nil, err
	}
	switch s.Spread {
	case "":
		s.Spread = SpreadPreferred
	case SpreadPreferred, SpreadRequired:
	default:
		return nil, fmt.Errorf("--spread %q: give preferred (generators share a node only when they must, and the report says so) or required (one node per generator; extra ones stay Pending)", s.Spread)
	}
	if s.Run != "" && (len(s.Run) > maxLabel || !dns1123Label.MatchString(s.Run)) {
		return nil, fmt.Errorf("run label %q is not a valid label value (lower-case letters, digits and '-', at most 63 characters)", s.Run)
	}
	if err := checkStudy(s.Study, s.HostNetwork); err != nil {
		return nil, err
	}
	if s.Name == "" {
		s.Name = defaultName(s.Study.Name, s.Generators)
	} else if err := checkName(s.Name, s.Generators); err != nil {
		return nil, err
	}
	if s.Namespace != "" && (len(s.Namespace) > maxLabel || !dns1123Label.MatchString(s.Namespace)) {
		return nil, fmt.Errorf("--namespace %q is not a DNS-1123 label (lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters), which Kubernetes requires of namespace names", s.Namespace)
	}
	if s.Secret != "" && (len(s.Secret) > 253 || !dns1123Subdomain.MatchString(s.Secret)) {
		return nil, fmt.Errorf("--secret %q is not a valid Secret name (a DNS-1123 subdomain: lower-case letters, digits, '-' and '.')", s.Secret)
	}
	for _, q := range []struct {
		flag string
		val  *string
		def  string
	}{
		{"--cpu", &s.CPU, DefaultCPU},
		{"--memory", &s.Memory, DefaultMemory},
		{"--coordinator-cpu", &s.CoordinatorCPU, DefaultCoordinatorCPU},
		{"--coordinator-memory", &s.CoordinatorMemory, DefaultCoordinatorMemory},
	} {
		if *q.val == "" {
			*q.val = q.def
		}
		if !quantity.MatchString(*q.val) {
			return nil, fmt.Errorf("%s %q is not a Kubernetes quantity (such as 2, 500m, 2Gi or 512Mi)", q.flag, *q.val)
		}
	}
	return s, nil
}

var dns1123Subdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// quantity is the subset of Kubernetes' quantity syntax a CPU or memory amount
// is written in (a positive decimal number and an optional suffix).
var quantity = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)

func checkName(name string, generators int) error {
	if !dns1123Label.MatchString(name) {
		return fmt.Errorf("--name %q is not a DNS-1123 label: Kubernetes object and pod host names use lower-case letters, digits and '-', starting and ending with a letter or digit", name)
	}
	if n := maxNameLen(generators); len(name) > n {
		return fmt.Errorf("--name %q is %d characters long; with %d generators it can have at most %d, so that the generator pods' host names (%s%s-%d) stay within the 63 characters of a DNS-1123 label",
			name, len(name), generators, n, name, suffixGenerators, generators-1)
	}
	return nil
}

// checkResults refuses a results store the pods cannot share or whose URL
// would put a password in the manifests.
func checkResults(raw string, hostNetwork bool) error {
	if raw == "" {
		return errors.New("--results is required: the pods share a PostgreSQL results store (postgres://user@host/db)")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return fmt.Errorf("--results %s: the generators and the coordinator run in different pods and meet in the results store, so it must be a shared PostgreSQL database (postgres://user@host/db); a SQLite file is not shared between pods",
			strconv.Quote(driver.Redacted(raw)))
	}
	if len(driver.Secrets(raw)) > 0 {
		return fmt.Errorf("--results %s carries a password: put it in the Secret as FAIRBENCH_RESULTS_PASSWORD (or PGPASSWORD when the targets share it; the manifests are not secret)", strconv.Quote(driver.Redacted(raw)))
	}
	host := u.Hostname()
	if host == "" || (isLoopback(host) && !hostNetwork) {
		return fmt.Errorf("--results %s: host %q is the pod itself inside Kubernetes; give the results database's service or host name (or --host-network, when it listens on the node's loopback)", strconv.Quote(raw), host)
	}
	return nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || (ip != nil && ip.IsLoopback())
}

// checkStudy refuses a study whose targets carry passwords (the ConfigMap is
// not secret) and one whose name comes from its file name (in the pods the
// file is study.toml, so the runs would be stored under another study name).
func checkStudy(st *study.Study, hostNetwork bool) error {
	var errs []error
	for _, t := range st.Targets {
		if len(driver.Secrets(t.URL)) > 0 {
			errs = append(errs, fmt.Errorf("%s: target %q: its url carries a password, and the study goes into a ConfigMap, which is not secret: remove it from the url and put it in the Secret (--secret) under the variable the target's driver reads (PGPASSWORD, MYSQL_PWD, REDISCLI_AUTH, OPENSEARCH_PASSWORD, CLICKHOUSE_PASSWORD, …)", where(st, t.Line), t.Name))
		}
		// Every pod would benchmark a file of its own, or itself.
		if strings.HasPrefix(t.URL, "sqlite:") {
			errs = append(errs, fmt.Errorf("%s: target %q: a SQLite target is a file inside each pod, not one database the generators share: scale-out needs a network server", where(st, t.Line), t.Name))
		} else if u, err := url.Parse(t.URL); err == nil && isLoopback(u.Hostname()) && !hostNetwork {
			errs = append(errs, fmt.Errorf("%s: target %q: host %q is the pod itself inside Kubernetes; give the server's service or host name (or --host-network, when the server listens on the node's loopback)", where(st, t.Line), t.Name, u.Hostname()))
		}
		if t.NodeExporter != "" && len(driver.Secrets(t.NodeExporter)) > 0 {
			errs = append(errs, fmt.Errorf("%s: target %q: its node_exporter url carries a password or token, and the study goes into a ConfigMap, which is not secret", where(st, t.Line), t.Name))
		}
	}
	var named struct {
		Study struct {
			Name string `toml:"name"`
		} `toml:"study"`
	}
	if err := toml.Unmarshal(st.Source, &named); err == nil && named.Study.Name == "" {
		errs = append(errs, fmt.Errorf("%s: [study] has no name, so the study is named after its file (%q); in the pods the file is %s and its runs would be stored as study %q: add name = %q to [study]",
			st.File, st.Name, studyPath, strings.TrimSuffix(studyKey, ".toml"), st.Name))
	}
	return errors.Join(errs...)
}

func where(st *study.Study, line int) string {
	if line > 0 {
		return st.File + ":" + strconv.Itoa(line)
	}
	return st.File
}

func (s *resolved) labels(component string) obj {
	o := obj{{labelName, "fairbench"}, {labelInstance, s.Name}}
	if component != "" {
		o = append(o, field{labelComponent, component})
	}
	if s.Run != "" {
		o = append(o, field{LabelRun, s.Run})
	}
	return o
}

func (s *resolved) metadata(name, component string) obj {
	m := obj{{"name", name}}
	if s.Namespace != "" {
		m = append(m, field{"namespace", s.Namespace})
	}
	return append(m, field{"labels", s.labels(component)})
}

func (s *resolved) configMap() obj {
	return obj{
		{"apiVersion", "v1"},
		{"kind", "ConfigMap"},
		{"metadata", s.metadata(s.Name+suffixStudy, "")},
		// Source is the study as stored with results: identical to the
		// file here, since a study with URL secrets was refused, and
		// redacted anyway should that check ever miss one.
		{"data", obj{{studyKey, block(string(s.Study.Source))}}},
	}
}

// generatorSelector selects this study's generator pods: the generators'
// anti-affinity keeps them apart with it, the coordinator's keeps it off
// their nodes.
func (s *resolved) generatorSelector() obj {
	return obj{{"matchLabels", s.labels("generator")}}
}

func (s *resolved) generatorJob() obj {
	args := list{"generator", studyPath, "--results", s.Results}
	term := obj{
		{"labelSelector", s.generatorSelector()},
		{"topologyKey", "kubernetes.io/hostname"},
	}
	affinity := obj{{"podAntiAffinity", obj{
		// Preferred by default: two generators on one node share its CPUs
		// and network, and the point of several generators is that none is
		// the bottleneck; but a cluster with fewer nodes than generators (a
		// laptop's kind, a one-node test cluster) would otherwise leave the
		// extra pods Pending for ever. Each generator records its node
		// (NodeEnv), and the report warns about a shared one.
		{"preferredDuringSchedulingIgnoredDuringExecution", list{obj{
			{"weight", 100},
			{"podAffinityTerm", term},
		}}},
	}}}
	if s.Spread == SpreadRequired {
		// --spread required: one node per generator or Pending, visibly.
		affinity = obj{{"podAntiAffinity", obj{
			{"requiredDuringSchedulingIgnoredDuringExecution", list{term}},
		}}}
	}
	return obj{
		{"apiVersion", "batch/v1"},
		{"kind", "Job"},
		{"metadata", s.metadata(s.Name+suffixGenerators, "generator")},
		{"spec", obj{
			// Indexed: each pod gets JOB_COMPLETION_INDEX, its generator
			// number, and the Job is complete when every index succeeded.
			{"completionMode", "Indexed"},
			{"completions", s.Generators},
			{"parallelism", s.Generators},
			// No retries, per index: a generator that failed has already
			// left its cell incomplete, and the coordinator marks that cell
			// failed naming it. A retried pod would join later cells with a
			// new process (cold caches, another node, another clock offset)
			// and hide the failure in a run that looks whole.
			// backoffLimitPerIndex rather than backoffLimit: with
			// backoffLimit 0 the first failed generator would fail the
			// whole Job and terminate the others, losing their cells; per
			// index, the others run on and the Job ends Failed, visibly.
			{"backoffLimitPerIndex", 0},
			{"template", s.podTemplate("generator", args, s.CPU, s.Memory, affinity)},
		}},
	}
}

func (s *resolved) coordinatorJob() obj {
	args := list{"run", studyPath, "--results", s.Results, "--generators", strconv.Itoa(s.Generators), "--remote-generators"}
	affinity := obj{{"podAntiAffinity", obj{
		// Preferred only: on a cluster with as many nodes as generators the
		// coordinator (mostly idle, waiting on the results store) may share
		// a generator's node rather than never start.
		{"preferredDuringSchedulingIgnoredDuringExecution", list{obj{
			{"weight", 100},
			{"podAffinityTerm", obj{
				{"labelSelector", s.generatorSelector()},
				{"topologyKey", "kubernetes.io/hostname"},
			}},
		}}},
	}}}
	return obj{
		{"apiVersion", "batch/v1"},
		{"kind", "Job"},
		{"metadata", s.metadata(s.Name+suffixCoordinator, "coordinator")},
		{"spec", obj{
			{"completions", 1},
			{"parallelism", 1},
			// No retry: a second coordinator would start the study over
			// (preparing the data again) next to the first one's partial
			// results; rerunning with --resume is the user's decision.
			{"backoffLimit", 0},
			{"template", s.podTemplate("coordinator", args, s.CoordinatorCPU, s.CoordinatorMemory, affinity)},
		}},
	}
}

func (s *resolved) podTemplate(component string, args list, cpu, memory string, affinity obj) obj {
	resources := obj{{"cpu", cpu}, {"memory", memory}}
	container := obj{
		{"name", component},
		{"image", s.Image},
		{"args", args},
		// fairbench writes nothing but its temporary files; the root file
		// system is read-only and HOME points at the emptyDir. NodeEnv:
		// which node the pod runs on, recorded with each generator's part.
		{"env", list{
			obj{{"name", "HOME"}, {"value", "/tmp"}},
			obj{{"name", NodeEnv}, {"valueFrom", obj{{"fieldRef", obj{{"fieldPath", "spec.nodeName"}}}}}},
		}},
	}
	if s.Secret != "" {
		container = append(container, field{"envFrom", list{obj{{"secretRef", obj{{"name", s.Secret}}}}}})
	}
	container = append(container,
		// Requests equal to limits: Guaranteed QoS (see DefaultCPU).
		field{"resources", obj{{"requests", resources}, {"limits", resources}}},
		field{"securityContext", obj{
			{"allowPrivilegeEscalation", false},
			{"readOnlyRootFilesystem", true},
			{"runAsNonRoot", true},
			{"runAsUser", uid},
			{"runAsGroup", uid},
			{"capabilities", obj{{"drop", list{"ALL"}}}},
		}},
		field{"volumeMounts", list{
			obj{{"name", "study"}, {"mountPath", studyDir}, {"readOnly", true}},
			obj{{"name", "tmp"}, {"mountPath", "/tmp"}},
		}},
	)
	spec := obj{
		// Never: a failed container is not restarted in place either
		// (see backoffLimitPerIndex), and Indexed Jobs with a per-index
		// backoff limit require it.
		{"restartPolicy", "Never"},
		// fairbench never talks to the Kubernetes API.
		{"automountServiceAccountToken", false},
		{"enableServiceLinks", false},
	}
	if s.HostNetwork {
		// Service names still resolve through the cluster's DNS.
		spec = append(spec, field{"hostNetwork", true}, field{"dnsPolicy", "ClusterFirstWithHostNet"})
	}
	return obj{
		{"metadata", obj{{"labels", s.labels(component)}}},
		{"spec", append(spec, obj{
			{"securityContext", obj{
				{"runAsNonRoot", true},
				{"runAsUser", uid},
				{"runAsGroup", uid},
				{"fsGroup", uid},
				{"seccompProfile", obj{{"type", "RuntimeDefault"}}},
			}},
			{"affinity", affinity},
			{"containers", list{container}},
			{"volumes", list{
				obj{{"name", "study"}, {"configMap", obj{{"name", s.Name + suffixStudy}}}},
				obj{{"name", "tmp"}, {"emptyDir", obj{}}},
			}},
		}...)},
	}
}
