package result

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"sync"
)

// Environment is what a run recorded about where it ran: the load
// generator's host and client, the database, the server's host, what the
// study declared, and (for a run measured by several load generators) each
// generator. Passwords are never in it.
//
// Its JSON is the object fairbench has always stored under "environment":
// every typed field keeps its key, and Extra holds the keys no field names
// (a tool's own facts, the workload's facts), so a results file written
// before the type existed reads back and writes out the same object.
type Environment struct {
	Host     Host     `json:"host,omitzero"`
	Client   Client   `json:"client,omitzero"`
	Server   Server   `json:"server,omitzero"`
	Database Database `json:"database,omitzero"`
	Declared Declared `json:"declared,omitzero"`
	// SameHost says whether client and server share a host (nil: not recorded).
	SameHost *bool `json:"client_server_same_host,omitempty"`
	// InProcess says whether the engine ran inside fairbench's process (nil:
	// not recorded, as before the runner recorded it; see EngineInProcess).
	InProcess *bool `json:"engine_in_process,omitempty"`
	// LoadGenerator is this part's generator, for the partial run of one of
	// several load generators.
	LoadGenerator *LoadGenerator `json:"load_generator,omitempty"`
	// LoadGenerators lists, for a run measured by several load generators,
	// each one's share, in generator order.
	LoadGenerators []LoadGenerator `json:"load_generators,omitempty"`
	// Generators keeps each load generator's own environment.
	Generators []Environment `json:"generators,omitempty"`
	// WorkloadTallies are a partial run's workload counts, summed by the
	// coordinator.
	WorkloadTallies map[string]int64 `json:"workload_tallies,omitempty"`
	Extra           map[string]any   `json:"-"`
}

// Host describes a machine fairbench ran on.
type Host struct {
	// What runs there: the OS and architecture Go names, the Go release
	// and fairbench's version that built the binary.
	OS          string `json:"os,omitempty"`
	Arch        string `json:"arch,omitempty"`
	GoVersion   string `json:"go,omitempty"`
	ToolVersion string `json:"tool_version,omitempty"`
	Hostname    string `json:"hostname,omitempty"`
	// The hardware: the CPU's model, sockets, physical cores and hardware
	// threads, its highest frequency, the memory, and the disk under the
	// working directory.
	CPUModel    string  `json:"cpu_model,omitempty"`
	Sockets     int     `json:"sockets,omitempty"`
	Cores       int     `json:"cores,omitempty"`
	Threads     int     `json:"threads,omitempty"`
	CPUMaxMHz   float64 `json:"cpu_max_mhz,omitempty"`
	MemoryGiB   float64 `json:"memory_gib,omitempty"`
	MemoryBytes int64   `json:"memory_bytes,omitempty"`
	// CPUBudget is the CPU, in cores, fairbench's process may use (a cgroup
	// quota, GOMAXPROCS, the host's threads), CPUBudgetSource what sets it.
	CPUBudget       float64 `json:"cpu_budget,omitempty"`
	CPUBudgetSource string  `json:"cpu_budget_source,omitempty"`
	// What the kernel counted over the measured phase (nil: not counted):
	// seconds fairbench's threads waited for a CPU, per second; the share of
	// the host's CPU time the hypervisor took, in %; the cores other
	// processes used.
	ClientCPUWait *float64 `json:"client_cpu_wait,omitempty"`
	StealPct      *float64 `json:"steal_pct,omitempty"`
	OthersCPU     *float64 `json:"others_cpu,omitempty"`
	// The OS as it shapes a measurement: kernel release, container or
	// hypervisor, CPU frequency governor, transparent huge pages mode,
	// swappiness (nil: not read) and NUMA nodes.
	Kernel               string         `json:"kernel,omitempty"`
	Virtualisation       string         `json:"virtualisation,omitempty"`
	CPUGovernor          string         `json:"cpu_governor,omitempty"`
	TransparentHugepages string         `json:"transparent_hugepages,omitempty"`
	Swappiness           *int           `json:"swappiness,omitempty"`
	NUMANodes            int            `json:"numa_nodes,omitempty"`
	Distribution         string         `json:"distribution,omitempty"` // the OS release's PRETTY_NAME
	Disk                 *Disk          `json:"disk,omitempty"`
	Extra                map[string]any `json:"-"`
}

// Disk is the file system and block device under a directory: where a
// local engine keeps its data, where results are written. Its fields are
// in the order of their JSON keys, the order the map of facts it replaced
// encoded in.
type Disk struct {
	Device     string `json:"device,omitempty"` // the block device, a partition's disk ("nvme0n1")
	Filesystem string `json:"filesystem,omitempty"`
	Model      string `json:"model,omitempty"`
	Mount      string `json:"mount,omitempty"`
	Path       string `json:"path,omitempty"` // the directory, symbolic links resolved
	Rotational *bool  `json:"rotational,omitempty"`
	Scheduler  string `json:"scheduler,omitempty"`
	Source     string `json:"source,omitempty"` // the mount's source ("/dev/nvme0n1p2", "overlay")
}

// Client says how the load generator drove its clients.
type Client struct {
	IO   string `json:"io,omitempty"`
	Path string `json:"path,omitempty"`
	// Threads are the OS threads that wait in system calls for the
	// clients, LockedThreads whether each client kept its own.
	Threads       int            `json:"threads,omitempty"`
	LockedThreads *bool          `json:"locked_threads,omitempty"`
	Extra         map[string]any `json:"-"`
}

// Server is what the server's host told fairbench (its node_exporter).
type Server struct {
	NodeExporter string `json:"node_exporter,omitempty"` // its URL, credentials removed
	Error        string `json:"error,omitempty"`         // why it could not be read
	MemoryBytes  int64  `json:"memory_bytes,omitempty"`
	// IdleCPU is the host's CPU busy share (% of all CPUs) over the
	// IdleSeconds right before the run, fairbench's clients connected and
	// sending nothing: what the host does without the benchmark. Nil when
	// it was not taken (no node_exporter, several load generators).
	IdleCPU     *float64       `json:"idle_cpu_pct,omitempty"`
	IdleSeconds float64        `json:"idle_seconds,omitempty"`
	Extra       map[string]any `json:"-"`
}

// Declared is what the study says of a target that fairbench cannot measure.
type Declared struct {
	Cores        int     `json:"cores,omitempty"`
	CPU          string  `json:"cpu,omitempty"`
	PricePerHour float64 `json:"price_per_hour,omitempty"`
	Notes        string  `json:"notes,omitempty"`
}

// LoadGenerator is one load generator's share of a run.
type LoadGenerator struct {
	Index int    `json:"index"`
	Host  string `json:"host,omitempty"`
	// Node is the machine the generator ran on when its orchestrator says
	// (Kubernetes' spec.nodeName, given to the pod as FAIRBENCH_NODE_NAME):
	// pods on one node have hostnames of their own but share its CPUs.
	Node             string         `json:"node,omitempty"`
	PID              int            `json:"pid,omitempty"`
	CPUs             int            `json:"cpus,omitempty"`
	FirstSlot        int            `json:"first_slot"`
	Clients          int            `json:"clients"`
	ClockOffsetMS    float64        `json:"clock_offset_ms"`
	ClockRTTMS       float64        `json:"clock_rtt_ms"`
	CPUPercent       *float64       `json:"cpu_percent,omitempty"`
	Throughput       *float64       `json:"throughput,omitempty"`
	Headline         *float64       `json:"headline,omitempty"`
	ClientCPUSeconds *float64       `json:"client_cpu_seconds,omitempty"`
	Extra            map[string]any `json:"-"`
}

// Database is what the driver said about the database server.
type Database struct {
	Engine string `json:"engine,omitempty"`
	// Driver names the client library or code the driver talks through.
	Driver string `json:"driver,omitempty"`
	// Version is the engine's own version text; ServerVersion, where the
	// engine has one, its bare version number.
	Version       string `json:"version,omitempty"`
	ServerVersion string `json:"server_version,omitempty"`
	// Settings are the engine's settings that matter for a comparison,
	// under the engine's own names.
	Settings map[string]string `json:"settings,omitempty"`
	// SettingsError says why the settings could not all be read (a managed
	// service refusing CONFIG), so that fewer settings are not taken for
	// defaults.
	SettingsError string `json:"settings_error,omitempty"`
	// SizeBytes is the database's size on disk; SizeText the same as the
	// engine writes it ("23 MB") or in bytes ("24117248 bytes").
	SizeBytes int64  `json:"database_size_bytes,omitempty"`
	SizeText  string `json:"database_size,omitempty"`
	// Disk is the file system an engine in fairbench's process keeps its
	// data on.
	Disk *Disk `json:"disk,omitempty"`
	// CacheBytes is the memory the engine keeps data pages (or records) in,
	// named CacheSetting in the engine's own terms; 0 when unknown.
	CacheBytes   int64  `json:"cache_bytes,omitempty"`
	CacheSetting string `json:"cache_setting,omitempty"`
	// InstallationSettings name the settings that identify an installation
	// (its paths, its port) rather than configure it: they differ between any
	// two servers and say nothing about performance.
	InstallationSettings []string `json:"installation_settings,omitempty"`
	// Pooler is the connection pooler or proxy the client's connections went
	// through, where the driver found one (nil: none found, or not looked for).
	Pooler *Pooler        `json:"pooler,omitempty"`
	Extra  map[string]any `json:"-"`
}

// Pooler is a connection pooler (or a proxy) between the client and the
// database server, as the driver found it.
type Pooler struct {
	// Name is the pooler's name as it gives it; "" when something answered
	// in the server's place but did not say what it is.
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
	// Evidence says how the driver told it was there.
	Evidence string `json:"evidence,omitempty"`
}

// String is the pooler as reports show it: its name and version,
// "unidentified pooler or proxy", or for none "none found" (a driver that
// does not look finds none either).
func (p *Pooler) String() string {
	switch {
	case p == nil:
		return "none found"
	case p.Name == "":
		return "unidentified pooler or proxy"
	}
	return strings.TrimSpace(p.Name + " " + p.Version)
}

// Empty reports whether nothing was recorded of the database.
func (d Database) Empty() bool {
	b, err := json.Marshal(d)
	return err == nil && string(b) == "{}"
}

// VersionText is the bare server version where the engine reports one, its
// full version text otherwise.
func (d Database) VersionText() string {
	if d.ServerVersion != "" {
		return d.ServerVersion
	}
	return d.Version
}

// EngineFacts is what a driver knows of its engine that reading a recorded
// environment needs: environments recorded before a fact was recorded are
// completed from it.
type EngineFacts struct {
	Engine string // as the driver records it in Database.Engine
	// InProcess: the engine runs inside fairbench's process.
	InProcess bool
	// Cache reads the cache size from a recorded environment: its bytes and
	// the engine's name for it, CacheSetting (0, "" when it cannot tell).
	Cache        func(Database) (int64, string)
	CacheSetting string
	// InstallationSettings are the settings that identify an installation.
	InstallationSettings []string
}

var (
	enginesMu sync.RWMutex
	engines   = map[string]EngineFacts{}
)

// RegisterEngine records a driver's facts of its engine.
func RegisterEngine(f EngineFacts) {
	enginesMu.Lock()
	defer enginesMu.Unlock()
	engines[f.Engine] = f
}

// engine returns the registered facts of an engine.
func engine(name string) (EngineFacts, bool) {
	enginesMu.RLock()
	defer enginesMu.RUnlock()
	f, ok := engines[name]
	return f, ok
}

// RegisteredEngines lists every registered engine's facts.
func RegisteredEngines() []EngineFacts {
	enginesMu.RLock()
	defer enginesMu.RUnlock()
	out := make([]EngineFacts, 0, len(engines))
	for _, f := range engines {
		out = append(out, f)
	}
	return out
}

// TLS is how the client's connections to the database were secured, as the
// driver recorded it under "tls": an object with enabled, version and cipher
// (PostgreSQL, MySQL, Redis, MongoDB, OpenSearch, SQLite), or a bare bool
// (ClickHouse). known is false when nothing was recorded.
type TLS struct {
	Enabled         bool
	Version, Cipher string // "" when the driver does not say
}

// TLS reads the recorded TLS facts; see type TLS.
func (d Database) TLS() (t TLS, known bool) {
	switch v := d.Extra["tls"].(type) {
	case bool:
		return TLS{Enabled: v}, true
	case map[string]any:
		on, ok := v["enabled"].(bool)
		if !ok {
			return TLS{}, false
		}
		t.Enabled = on
		t.Version, _ = v["version"].(string)
		t.Cipher, _ = v["cipher"].(string)
		return t, true
	}
	return TLS{}, false
}

// String writes the facts as reports show them: "off", "on", or
// "TLSv1.3 TLS_AES_128_GCM_SHA256".
func (t TLS) String() string {
	if !t.Enabled {
		return "off"
	}
	if s := strings.TrimSpace(t.Version + " " + t.Cipher); s != "" {
		return s
	}
	return "on"
}

// Cache is the engine's cache size and its name for it: as recorded, or for
// an environment recorded before the cache was, read by the engine's driver
// from what was recorded.
func (d Database) Cache() (bytes int64, setting string) {
	if d.CacheBytes > 0 {
		return d.CacheBytes, d.CacheSetting
	}
	if f, ok := engine(d.Engine); ok && f.Cache != nil {
		return f.Cache(d)
	}
	return 0, ""
}

// WithEngineFacts returns d with its cache size and installation-only
// settings filled in, where it lacks them, from its engine's registered facts.
func (d Database) WithEngineFacts() Database {
	f, ok := engine(d.Engine)
	if !ok {
		return d
	}
	if d.CacheBytes <= 0 && f.Cache != nil {
		d.CacheBytes, d.CacheSetting = f.Cache(d)
	}
	if d.InstallationSettings == nil {
		d.InstallationSettings = f.InstallationSettings
	}
	return d
}

// InstallationOnly reports whether a setting identifies the installation
// rather than configures it.
func (d Database) InstallationOnly(setting string) bool {
	names := d.InstallationSettings
	if names == nil {
		if f, ok := engine(d.Engine); ok {
			names = f.InstallationSettings
		}
	}
	for _, n := range names {
		if n == setting {
			return true
		}
	}
	return false
}

// EngineInProcess reports whether the engine ran inside fairbench's process:
// as recorded, or by its engine for runs recorded before the runner said.
func (e Environment) EngineInProcess() bool {
	if e.InProcess != nil {
		return *e.InProcess
	}
	f, ok := engine(e.Database.Engine)
	return ok && f.InProcess
}

// ClientServerSameHost reports whether client and server shared a host.
func (e Environment) ClientServerSameHost() bool { return e.SameHost != nil && *e.SameHost }

// Empty reports whether nothing was recorded.
func (e Environment) Empty() bool {
	b, err := json.Marshal(e)
	return err == nil && string(b) == "{}"
}

// Set records a fact under key in Extra.
func (e *Environment) Set(key string, v any) {
	if e.Extra == nil {
		e.Extra = map[string]any{}
	}
	e.Extra[key] = v
}

// Set records a fact of the engine's own, that no field names, under key
// in Extra. Code that reads a fact back from Extra sees a recorded run's in
// JSON's types (map[string]any, []any, int64 for whole numbers): a driver
// records a fact it reads back (EngineFacts.Cache) in those types, so that
// the run it just measured reads the same.
func (d *Database) Set(key string, v any) {
	if d.Extra == nil {
		d.Extra = map[string]any{}
	}
	d.Extra[key] = v
}

// EnvironmentFromMap reads an environment from its JSON object form (what
// Marshal of a map of facts gives); it panics on a map that has no JSON form.
func EnvironmentFromMap(m map[string]any) Environment {
	var e Environment
	if m == nil {
		return e
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic("result.EnvironmentFromMap: " + err.Error())
	}
	if err := json.Unmarshal(b, &e); err != nil {
		panic("result.EnvironmentFromMap: " + err.Error())
	}
	return e
}

// The JSON methods: typed fields under their keys, Extra's keys beside them,
// all in key order (as a map encodes), NaN and infinities in Extra as null.

type (
	environmentJSON   Environment
	hostJSON          Host
	clientJSON        Client
	serverJSON        Server
	loadGeneratorJSON LoadGenerator
	databaseJSON      Database
)

func (e Environment) MarshalJSON() ([]byte, error) {
	return marshalWithExtra(environmentJSON(e), e.Extra)
}
func (e *Environment) UnmarshalJSON(b []byte) error {
	return unmarshalWithExtra(b, (*environmentJSON)(e), &e.Extra)
}
func (h Host) MarshalJSON() ([]byte, error) { return marshalWithExtra(hostJSON(h), h.Extra) }
func (h *Host) UnmarshalJSON(b []byte) error {
	return unmarshalWithExtra(b, (*hostJSON)(h), &h.Extra)
}
func (c Client) MarshalJSON() ([]byte, error) { return marshalWithExtra(clientJSON(c), c.Extra) }
func (c *Client) UnmarshalJSON(b []byte) error {
	return unmarshalWithExtra(b, (*clientJSON)(c), &c.Extra)
}
func (s Server) MarshalJSON() ([]byte, error) { return marshalWithExtra(serverJSON(s), s.Extra) }
func (s *Server) UnmarshalJSON(b []byte) error {
	return unmarshalWithExtra(b, (*serverJSON)(s), &s.Extra)
}

// MarshalJSON leaves out a rate that is not a number (a generator that
// measured no time): JSON cannot hold it, and the run must still be stored.
func (g LoadGenerator) MarshalJSON() ([]byte, error) {
	for _, p := range []**float64{&g.CPUPercent, &g.Throughput, &g.Headline, &g.ClientCPUSeconds} {
		if *p != nil && (math.IsNaN(**p) || math.IsInf(**p, 0)) {
			*p = nil
		}
	}
	return marshalWithExtra(loadGeneratorJSON(g), g.Extra)
}
func (g *LoadGenerator) UnmarshalJSON(b []byte) error {
	return unmarshalWithExtra(b, (*loadGeneratorJSON)(g), &g.Extra)
}
func (d Database) MarshalJSON() ([]byte, error) {
	return marshalWithExtra(databaseJSON(d), d.Extra)
}

// UnmarshalJSON reads settings of any JSON type as their text (a number
// recorded by a hand-written file reads as its digits).
func (d *Database) UnmarshalJSON(b []byte) error {
	var raw struct {
		Settings map[string]any `json:"settings"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	type plain struct {
		databaseJSON
		Settings json.RawMessage `json:"settings,omitempty"`
	}
	var p plain
	if err := unmarshalWithExtra(b, &p, &p.Extra); err != nil {
		return err
	}
	*d = Database(p.databaseJSON)
	d.Settings = nil
	if raw.Settings != nil {
		d.Settings = make(map[string]string, len(raw.Settings))
		for k, v := range raw.Settings {
			d.Settings[k] = settingText(v)
		}
	}
	return nil
}

func settingText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// marshalWithExtra encodes typed's fields and extra's keys as one object,
// keys sorted as a map's are.
func marshalWithExtra(typed any, extra map[string]any) ([]byte, error) {
	b, err := json.Marshal(typed)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, typedKey := obj[k]; typedKey {
			continue // a typed field wins over a stray extra of its name
		}
		raw, err := json.Marshal(Finite(v))
		if err != nil {
			return nil, err
		}
		obj[k] = raw
	}
	return json.Marshal(obj)
}

// unmarshalWithExtra decodes typed (a pointer to a struct) from b, and every
// key none of its fields names into *extra, numbers as int64 when whole.
func unmarshalWithExtra(b []byte, typed any, extra *map[string]any) error {
	if err := json.Unmarshal(b, typed); err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	known := jsonKeys(reflect.TypeOf(typed).Elem())
	*extra = nil
	for k, raw := range obj {
		if known[k] {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return err
		}
		if *extra == nil {
			*extra = map[string]any{}
		}
		(*extra)[k] = WholeNumbers(v)
	}
	return nil
}

var keyCache sync.Map // reflect.Type → map[string]bool

// jsonKeys lists the JSON keys of a struct type's fields (embedded structs'
// included).
func jsonKeys(t reflect.Type) map[string]bool {
	if k, ok := keyCache.Load(t); ok {
		return k.(map[string]bool)
	}
	keys := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct {
			for k := range jsonKeys(f.Type) {
				keys[k] = true
			}
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		keys[name] = true
	}
	keyCache.Store(t, keys)
	return keys
}

// WholeNumbers turns JSON numbers (decoded with UseNumber) into int64 when
// whole, float64 otherwise, in nested maps and lists too, as the results
// store always read them.
func WholeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f)
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = WholeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = WholeNumbers(e)
		}
	}
	return v
}

// Finite copies v with NaN and infinities, which JSON cannot hold, replaced
// by nil, in nested maps and lists too.
func Finite(v any) any {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Finite(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Finite(e)
		}
		return out
	}
	return v
}
