// Package searchparams is what the search workloads (internal/workload/bulkindex)
// and OpenSearch Benchmark's tool cell (internal/adapter) share: the kinds,
// the parameters, the corpus (NDJSON files checked line by line, or the
// deterministic http_logs generator) and the index definition, so that a tool
// cell indexes the same documents into the same index as the native workload.
package searchparams

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/result"
)

// Kind is the bulk-indexing workload's kind, which OSB's imported runs share.
const Kind = "bulkindex"

// Headline is documents indexed per second, OSB's bulk throughput.
var Headline = result.Headline{Name: "documents/s", Unit: "docs/s", HigherIsBetter: true, Field: result.FieldItems}

// Modes, OSB's names for its bulk tasks.
const (
	ModeAppend = "index-append"
	ModeUpdate = "index-update"
)

// Names of the search kinds' parameters, spelled here only.
const (
	Index               = "index"
	CorpusFiles         = "corpus"
	Docs                = "docs"
	Seed                = "seed"
	Mapping             = "mapping"
	Shards              = "shards"
	Replicas            = "replicas"
	RefreshInterval     = "refresh_interval"
	Codec               = "codec"
	BulkSize            = "bulk_size"
	IngestPercentage    = "ingest_percentage"
	Mode                = "mode"
	ConflictProbability = "conflict_probability"
	Retries             = "retries"
	TimeLimit           = "time_limit"
)

// DefaultIndex is the index the workloads make unless told another.
const DefaultIndex = "fairbench-logs"

// CorpusSpecs are the parameters that say which documents an index holds,
// which the search workload shares.
func CorpusSpecs() []params.Spec {
	return []params.Spec{
		{Name: Index, Kind: params.String, Default: DefaultIndex, Help: "the index to create and fill (fairbench's own: it refuses an index it did not create)"},
		{Name: CorpusFiles, Kind: params.StringList, Default: []string{}, Help: "NDJSON files, one document per line, indexed in order; empty: generated http_logs documents"},
		{Name: Docs, Kind: params.Int, Default: int64(1000000), Min: params.MinOf(1), Max: params.MaxOf(1e10), Help: "generated documents (without a corpus)"},
		{Name: Seed, Kind: params.Int, Default: int64(1), Max: params.MaxOf(math.MaxInt64), Help: "the generator's seed"},
		{Name: Mapping, Kind: params.String, Default: "", Help: "a JSON file with the index's mappings (OSB's index.json works); default: http_logs' for generated documents, dynamic for a corpus"},
		{Name: Shards, Kind: params.Int, Default: int64(1), Min: params.MinOf(1), Max: params.MaxOf(1024), Help: "index.number_of_shards"},
		{Name: Replicas, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(100), Help: "index.number_of_replicas"},
		{Name: RefreshInterval, Kind: params.String, Default: "", Help: `index.refresh_interval ("30s", "-1"); empty: the engine's default`},
		{Name: Codec, Kind: params.String, Default: "", Help: `index.codec ("best_compression"); empty: the engine's default`},
	}
}

// bulkMemory is what bulk_size makes each client hold: the _bulk body it
// builds and a spare for the items to send again, and the engine's answer
// with an entry per item; a generated http_logs document is some 300 bytes
// of JSON, a corpus line may be longer: 1 KB an item is counted, 3 times.
func bulkMemory(v params.Values) (shared, perClient float64) {
	return 0, 3 * 1024 * float64(v.Int(BulkSize))
}

// BulkSpecs are the bulkindex workload's parameters: OSB's bulk parameters.
func BulkSpecs() []params.Spec {
	return append(CorpusSpecs(),
		params.Spec{Name: BulkSize, Kind: params.Int, Default: int64(5000), Min: params.MinOf(1), Max: params.MaxOf(1_000_000), Memory: bulkMemory, Help: "documents per _bulk request (OSB bulk-size)"},
		params.Spec{Name: IngestPercentage, Kind: params.Float, Default: 100.0, Min: params.MinOf(0), Max: params.MaxOf(100), Help: "share of the corpus to index, % (OSB ingest-percentage)"},
		params.Spec{Name: Mode, Kind: params.String, Default: ModeAppend, Choices: []string{ModeAppend, ModeUpdate},
			Help: "index-append: new documents with engine ids; index-update: own ids, conflict_probability % of them reusing an earlier one"},
		params.Spec{Name: ConflictProbability, Kind: params.Float, Default: 25.0, Min: params.MinOf(0), Max: params.MaxOf(100), Help: "index-update: % of documents that reuse an id already sent (OSB conflict-probability)"},
		params.Spec{Name: Retries, Kind: params.Int, Default: int64(0), Min: params.MinOf(0), Max: params.MaxOf(1000), Help: "times a refused item (429) is sent again; 0: counted and dropped, as OSB does"},
		params.Spec{Name: TimeLimit, Kind: params.Duration, Default: time.Duration(0), Help: "stop indexing after this long; 0: when the corpus is indexed"},
	)
}

// Bulk are the bulkindex workload's bulk parameters (BulkSpecs beyond the
// corpus), decoded once: the workload and OSB's tool cell read these fields.
type Bulk struct {
	Size                int64
	IngestPercentage    float64
	Mode                string  // ModeAppend or ModeUpdate
	ConflictProbability float64 // %
	Retries             int64
	TimeLimit           time.Duration
}

// DecodeBulk reads a bulkindex cell's bulk parameters, validated against
// BulkSpecs (which bound each number); a missing one takes its default.
func DecodeBulk(v params.Values) Bulk {
	v = params.WithDefaults(BulkSpecs(), v)
	return Bulk{Size: v.Int(BulkSize), IngestPercentage: v.Float(IngestPercentage), Mode: v.String(Mode),
		ConflictProbability: v.Float(ConflictProbability), Retries: v.Int(Retries), TimeLimit: v.Duration(TimeLimit)}
}

// Corpus is what documents an index gets and how the index is made: the
// parameters both search workloads and OSB's tool cell share.
type Corpus struct {
	Index    string
	Files    []string
	Docs     int64 // generated documents, without files
	Seed     uint64
	Share    float64 // ingest_percentage / 100
	Mapping  string
	Shards   int64
	Replicas int64
	Refresh  string
	Codec    string
	// total is the documents the files hold, known after check.
	Total int64
}

func NewCorpus(p params.Values) (Corpus, error) {
	c := Corpus{Index: p.String(Index), Files: p.Strings(CorpusFiles), Docs: p.Int(Docs), Seed: uint64(p.Int(Seed)),
		Share: 1, Mapping: p.String(Mapping), Shards: p.Int(Shards), Replicas: p.Int(Replicas),
		Refresh: p.String(RefreshInterval), Codec: p.String(Codec)}
	if pct, ok := p[IngestPercentage].(float64); ok {
		c.Share = pct / 100
	}
	if c.Index == "" || strings.ToLower(c.Index) != c.Index || strings.ContainsAny(c.Index, `\/*?"<>| ,#:`) || strings.HasPrefix(c.Index, "_") || strings.HasPrefix(c.Index, "-") {
		return c, fmt.Errorf("index %q: an index name is lower case, without spaces or any of \\/*?\"<>|,#: and does not start with _ or -", c.Index)
	}
	return c, c.checkFiles()
}

// checkFiles refuses, before any target is touched, a mapping that is no
// bounded JSON object and corpus files that are not regular files (their
// documents are read when the data is prepared, Check).
func (c *Corpus) checkFiles() error {
	if c.Mapping != "" {
		if _, err := ReadJSONFile(c.Mapping); err != nil {
			return fmt.Errorf("mapping: %w", err)
		}
	}
	for _, name := range c.Files {
		f, err := boundfile.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // said by Check, when the data is prepared (it may come later)
		}
		if err != nil {
			return fmt.Errorf("corpus: %w", err)
		}
		f.Close()
	}
	return nil
}

// Check reads the corpus files whole (CheckCorpus) and the mapping file.
func (c *Corpus) Check() error {
	if err := c.checkFiles(); err != nil {
		return err
	}
	if len(c.Files) == 0 {
		return nil
	}
	n, _, err := CheckCorpus(c.Files)
	c.Total = n
	return err
}

// Count is how many documents a run indexes.
func (c *Corpus) Count() int64 {
	n := c.Docs
	if len(c.Files) > 0 {
		n = c.Total
	}
	return int64(math.Floor(float64(n) * c.Share))
}

// Describe names the corpus for people and for the index's marker.
func (c *Corpus) Describe() string {
	if len(c.Files) == 0 {
		return fmt.Sprintf("generated http_logs documents (seed %d)", c.Seed)
	}
	names := make([]string, len(c.Files))
	for i, f := range c.Files {
		names[i] = filepath.Base(f)
	}
	return strings.Join(names, ", ")
}

// MarkerKey is the key of fairbench's marker in an index mapping's _meta.
const MarkerKey = "fairbench"

// marker says which documents the index was made for, so that the search
// workload reuses only an index of the corpus it asks for.
func (c *Corpus) marker() map[string]any {
	return map[string]any{"workload": Kind, "corpus": c.Describe(), "documents": c.Count()}
}

// Owned reports whether an index's _meta holds fairbench's marker.
func Owned(meta map[string]any) bool {
	_, ok := meta[MarkerKey].(map[string]any)
	return ok
}

// MarkedDefinition is definition with fairbench's marker added to the
// mapping's _meta: the body of every index fairbench creates, natively or
// through OSB's tool cell.
func (c *Corpus) MarkedDefinition() (map[string]any, error) {
	def, err := c.definition()
	if err != nil {
		return nil, err
	}
	mappings, _ := def["mappings"].(map[string]any)
	mappings = maps.Clone(mappings)
	if mappings == nil {
		mappings = map[string]any{}
	}
	meta, _ := mappings["_meta"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	meta[MarkerKey] = c.marker()
	mappings["_meta"] = meta
	def["mappings"] = mappings
	return def, nil
}

// httpLogsMapping is the mapping of generated documents, as OSB's http_logs
// track maps the same fields.
func httpLogsMapping() map[string]any {
	return map[string]any{
		"dynamic": "strict",
		"properties": map[string]any{
			"@timestamp": map[string]any{"type": "date", "format": "strict_date_optional_time||epoch_second"},
			"clientip":   map[string]any{"type": "ip"},
			"request": map[string]any{"type": "text",
				"fields": map[string]any{"raw": map[string]any{"type": "keyword", "ignore_above": 256}}},
			"status": map[string]any{"type": "integer"},
			"size":   map[string]any{"type": "integer"},
		},
	}
}

// IndexDefinition is the body of the create-index request the parameters
// ask for, without fairbench's marker: the settings (shards, replicas,
// refresh interval, codec) and the mappings (the mapping file's, http_logs'
// for generated documents, none for a corpus without one). OSB's tool cell
// writes it as its workload's index.json.
func IndexDefinition(p params.Values) (map[string]any, error) {
	c, err := NewCorpus(p)
	if err != nil {
		return nil, err
	}
	return c.definition()
}

// definition is the create-index body (see IndexDefinition).
func (c *Corpus) definition() (map[string]any, error) {
	index := map[string]any{"number_of_shards": c.Shards, "number_of_replicas": c.Replicas}
	if c.Refresh != "" {
		index["refresh_interval"] = c.Refresh
	}
	if c.Codec != "" {
		index["codec"] = c.Codec
	}
	body := map[string]any{"settings": map[string]any{"index": index}}
	switch {
	case c.Mapping != "":
		m, err := ReadJSONFile(c.Mapping)
		if err != nil {
			return nil, fmt.Errorf("mapping: %w", err)
		}
		// OSB's index.json holds settings and mappings; a mappings file
		// holds only the mappings.
		if inner, ok := m["mappings"].(map[string]any); ok {
			m = inner
		}
		body["mappings"] = m
	case len(c.Files) == 0:
		body["mappings"] = httpLogsMapping()
	}
	return body, nil
}

// Generated documents mimic OSB's http_logs track (the 1998 World Cup web
// server logs): an epoch-second @timestamp, a client IP, the request line, the
// HTTP status and the response size. Document i depends only on the seed and
// i, so that a corpus can be generated in any order and written to a file
// that OSB indexes too.
const (
	// logsStart is the first timestamp of http_logs (1998-04-30T03:30:17Z).
	logsStart = 893964617
	// logsPerSecond spaces the generated requests: about the logs' own rate.
	logsPerSecond = 30
)

// logPaths are request paths with their response sizes; the first ones come
// up far more often, as the site's front pages did.
var logPaths = []struct {
	path string
	size int64
}{
	{"/images/hm_bg.jpg", 24736}, {"/english/index.html", 3180}, {"/images/nav_bg_top.gif", 929},
	{"/images/hm_nbg.jpg", 4801}, {"/english/images/nav_news_off.gif", 853}, {"/images/logo_cfo.gif", 1504},
	{"/", 7480}, {"/french/index.html", 3263}, {"/english/splash_inet.html", 3730},
	{"/images/space.gif", 42}, {"/english/images/nav_field_off.gif", 1005}, {"/images/hm_brdl.gif", 208},
	{"/english/history/history_of/images/cup/cup.gif", 5469}, {"/english/teams/teambio160.htm", 11271},
	{"/english/competition/maincompetition.htm", 9871}, {"/english/news/3004bres.htm", 10244},
	{"/images/11104.gif", 1291}, {"/english/venues/cities/images/montpellier/18eglise.gif", 2255},
	{"/english/playing/mascot/mascot.html", 5521}, {"/spanish/index.html", 3206},
}

// logStatuses are the statuses in per-mille shares.
var logStatuses = []struct {
	status int64
	share  uint64 // cumulative, out of 1000
}{{200, 900}, {304, 960}, {404, 985}, {206, 995}, {500, 1000}}

// splitmix64 is the mixing step of SplitMix64: document i's random bits,
// reproducible from (seed, i) alone.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// AppendLogDoc appends generated document i (without a newline) to dst.
func AppendLogDoc(dst []byte, seed uint64, i int64) []byte {
	r1 := splitmix64(seed*0x2545f4914f6cdd1d ^ uint64(i))
	r2 := splitmix64(r1)
	// Paths: the square of a uniform number favours the first ones.
	u := float64(r1>>11) / (1 << 53)
	p := logPaths[int(u*u*float64(len(logPaths)))]
	var status int64 = 200
	for _, s := range logStatuses {
		if r2%1000 < s.share {
			status = s.status
			break
		}
	}
	size := p.size
	if status == 304 || status == 500 {
		size = 0
	}
	// A client IP among about 2^20, fewer for the busiest clients.
	ip := uint32(r2>>24) & 0xfffff
	if r2&3 == 0 {
		ip &= 0x3ff
	}
	dst = append(dst, `{"@timestamp":`...)
	dst = strconv.AppendInt(dst, logsStart+i/logsPerSecond, 10)
	dst = append(dst, `,"clientip":"`...)
	dst = strconv.AppendUint(dst, uint64(10+ip>>16), 10)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, uint64(ip>>8&0xff), 10)
	dst = append(dst, '.')
	dst = strconv.AppendUint(dst, uint64(ip&0xff), 10)
	dst = append(dst, `.`...)
	dst = strconv.AppendUint(dst, r1>>56, 10)
	dst = append(dst, `","request":"GET `...)
	dst = append(dst, p.path...)
	dst = append(dst, ` HTTP/1.0","status":`...)
	dst = strconv.AppendInt(dst, status, 10)
	dst = append(dst, `,"size":`...)
	dst = strconv.AppendInt(dst, size, 10)
	return append(dst, '}')
}

// WriteCorpus writes docs generated documents as NDJSON, one per line: the
// corpus the generator would index, for a peer tool (OSB) to index the same.
func WriteCorpus(w io.Writer, docs int64, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	var line []byte
	for i := range docs {
		line = append(AppendLogDoc(line[:0], seed, i), '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// MaxLine bounds one document of a corpus file.
const MaxLine = 64 << 20

// CheckCorpus reads every line of the files and returns how many documents
// they hold and their size in bytes (newlines included). A line that is not
// one JSON object is an error naming file:line, so that a bad corpus stops a
// run before anything is indexed.
func CheckCorpus(files []string) (docs, bytes int64, err error) {
	for _, name := range files {
		n, b, err := checkFile(name)
		if err != nil {
			return 0, 0, err
		}
		docs += n
		bytes += b
	}
	return docs, bytes, nil
}

func checkFile(name string) (docs, size int64, err error) {
	f, err := boundfile.Open(name)
	if err != nil {
		return 0, 0, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), MaxLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		size += int64(len(b)) + 1
		if err := checkDoc(b); err != nil {
			return 0, 0, fmt.Errorf("corpus %s:%d: %v", name, line, err)
		}
		docs++
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return 0, 0, fmt.Errorf("corpus %s:%d: a line longer than %d MiB: is it NDJSON, one document per line?", name, line+1, MaxLine>>20)
		}
		return 0, 0, fmt.Errorf("corpus %s: %w", name, err)
	}
	if docs == 0 {
		return 0, 0, fmt.Errorf("corpus %s: no documents", name)
	}
	return docs, size, nil
}

func checkDoc(b []byte) error {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return errors.New("an empty line: a corpus holds one JSON document per line")
	}
	if t[0] != '{' || !json.Valid(t) {
		return fmt.Errorf("not a JSON object: %s", snippet(t))
	}
	return nil
}

func snippet(b []byte) string {
	if len(b) > 60 {
		return strconv.Quote(string(b[:60])) + "…"
	}
	return strconv.Quote(string(b))
}

// maxJSONFile bounds a mapping or a search body: a few kilobytes of JSON.
const maxJSONFile = 16 << 20

// ReadJSONFile reads a JSON object from a file (a mapping, a search body),
// naming the file in errors.
func ReadJSONFile(name string) (map[string]any, error) {
	b, err := boundfile.Read(name, maxJSONFile, "an index mapping or a search body")
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a JSON object: %v", name, err)
	}
	return m, nil
}
