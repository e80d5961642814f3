package ycsb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"bytes"
	"github.com/fairbench/fairbench/internal/boundfile"
)

// prop is one property value and where it came from: "FILE:LINE", "-p" or
// "preset workloadX".
type prop struct {
	Value, Source string
}

// props is a set of YCSB properties, later settings replacing earlier ones
// as in java.util.Properties.
type props map[string]prop

// set sets name to value from source.
func (p props) set(name, value, source string) { p[name] = prop{value, source} }

// parseProperties reads r in java.util.Properties format: lines whose first
// non-blank character is '#' or '!' are comments; a key ends at the first
// unescaped '=', ':' or blank, followed by optional blanks, one optional '='
// or ':' and blanks; a line ending in an odd number of backslashes continues
// on the next (its leading blanks dropped); \t \n \r \f \uXXXX and \x escapes.
// name is used for the sources ("name:LINE", LINE of the logical line's
// first physical line).
func parseProperties(r io.Reader, name string, into props) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	lineNo := 0
	var logical strings.Builder
	start := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		cont := logical.Len() > 0 || start != 0
		trimmed := strings.TrimLeft(line, " \t\f")
		if !cont {
			if trimmed == "" || trimmed[0] == '#' || trimmed[0] == '!' {
				continue
			}
			start = lineNo
		}
		bs := 0
		for i := len(trimmed) - 1; i >= 0 && trimmed[i] == '\\'; i-- {
			bs++
		}
		if bs%2 == 1 {
			logical.WriteString(trimmed[:len(trimmed)-1])
			if start == 0 {
				start = lineNo
			}
			continue
		}
		logical.WriteString(trimmed)
		if err := parseLogical(logical.String(), fmt.Sprintf("%s:%d", name, start), into); err != nil {
			return err
		}
		logical.Reset()
		start = 0
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if logical.Len() > 0 {
		return parseLogical(logical.String(), fmt.Sprintf("%s:%d", name, start), into)
	}
	return nil
}

func parseLogical(s, src string, into props) error {
	// key: up to the first unescaped separator
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	rawKey := s[:min(i, len(s))]
	rest := ""
	if i < len(s) {
		rest = strings.TrimLeft(s[i:], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') && (s[i] == ' ' || s[i] == '\t' || s[i] == '\f' || s[i] == rest[0]) {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
	}
	key, err := unescape(rawKey)
	if err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	val, err := unescape(rest)
	if err != nil {
		return fmt.Errorf("%s: %v", src, err)
	}
	into.set(key, val, src)
	return nil
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uxxxx escape in %q", s)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uxxxx escape in %q", s)
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// maxPropertyFile bounds a -P file: YCSB's are a few dozen lines.
const maxPropertyFile = 1 << 20

// loadFile adds the properties of a YCSB workload file (-P FILE).
func loadFile(path string, into props) error {
	b, err := boundfile.Read(path, maxPropertyFile, "a YCSB workload file")
	if err != nil {
		return err
	}
	return parseProperties(bytes.NewReader(b), path, into)
}

// setFlag adds one "-p name=value" override.
func setFlag(arg string, into props) error {
	name, value, ok := strings.Cut(arg, "=")
	if !ok || name == "" {
		return fmt.Errorf("-p %q: want name=value", arg)
	}
	into.set(name, value, "-p")
	return nil
}

// kind says who a property is for.
type kind int

// Property kinds.
const (
	propUnknown  kind = iota
	propWorkload      // read by CoreWorkload (this package's Config)
	propClient        // YCSB's Client: threads, target, measurements… (the tool's)
	propBinding       // a database binding's (mongodb.url, redis.host…): the tool's
)

// workloadProps are the properties CoreWorkload reads (plus the Client
// properties it reads: recordcount, operationcount, insertstart,
// insertcount, and workload, which names it).
var workloadProps = map[string]bool{
	"table": true, "fieldcount": true, "fieldlengthdistribution": true, "fieldlength": true,
	"minfieldlength": true, "fieldlengthhistogram": true, "readallfields": true,
	"readallfieldsbyname": true, "writeallfields": true, "dataintegrity": true,
	"readproportion": true, "updateproportion": true, "insertproportion": true,
	"scanproportion": true, "readmodifywriteproportion": true, "requestdistribution": true,
	"zeropadding": true, "minscanlength": true, "maxscanlength": true,
	"scanlengthdistribution": true, "insertorder": true, "hotspotdatafraction": true,
	"hotspotopnfraction": true, "core_workload_insertion_retry_limit": true,
	"core_workload_insertion_retry_interval":      true,
	"core_workload_insertion_keep_going_on_error": true, "fieldnameprefix": true,
	"exponential.percentile": true, "exponential.frac": true,
	"recordcount": true, "operationcount": true, "insertstart": true, "insertcount": true,
	"workload": true,
}

// clientProps are YCSB Client / DBWrapper / measurement properties.
var clientProps = map[string]bool{
	"db": true, "threadcount": true, "target": true, "dotransactions": true,
	"exporter": true, "exportfile": true, "label": true, "maxexecutiontime": true,
	"measurementtype": true, "measurement.interval": true, "measurement.trackjvm": true,
	"measurement.histogram.verbose": true, "measurement.raw.output_file": true,
	"measurement.raw.no_summary": true, "hdrhistogram.percentiles": true,
	"hdrhistogram.fileoutput": true, "hdrhistogram.output.path": true,
	"histogram.buckets": true, "timeseries.granularity": true, "status": true,
	"status.interval": true, "reportlatencyforeacherror": true,
	"latencytrackederrors": true, "spin.sleep": true,
}

// ourPrefixes are the dotted prefixes of workload and client properties: a
// misspelt exponential.frac is an error, not a binding's property.
var ourPrefixes = []string{"exponential.", "measurement.", "hdrhistogram.", "histogram.", "timeseries.", "status."}

// kindOf classifies a property name. Dotted names outside YCSB's own
// prefixes (mongodb.url, redis.host, db.url, basicdb.verbose, htrace.*) are
// a binding's.
func kindOf(name string) kind {
	switch {
	case workloadProps[name]:
		return propWorkload
	case clientProps[name]:
		return propClient
	case strings.HasPrefix(name, "htrace."):
		return propClient
	}
	if strings.Contains(name, ".") {
		for _, p := range ourPrefixes {
			if strings.HasPrefix(name, p) {
				return propUnknown
			}
		}
		return propBinding
	}
	return propUnknown
}

// config is CoreWorkload's validated configuration.
type config struct {
	Table                  string
	RecordCount            int64
	OperationCount         int64 // -1: not set
	InsertStart            int64
	InsertCount            int64
	FieldCount             int64
	FieldNamePrefix        string
	FieldLength            int64
	MinFieldLength         int64
	FieldLengthDist        string // constant, uniform, zipfian
	ReadAllFields          bool
	ReadAllFieldsByName    bool
	WriteAllFields         bool
	DataIntegrity          bool
	ReadProportion         float64
	UpdateProportion       float64
	InsertProportion       float64
	ScanProportion         float64
	ReadModifyWriteProp    float64
	RequestDist            string // uniform, zipfian, latest, hotspot, exponential, sequential
	ZeroPadding            int
	MinScanLength          int64
	MaxScanLength          int64
	ScanLengthDist         string // uniform, zipfian
	OrderedInserts         bool   // insertorder=ordered
	HotspotDataFraction    float64
	HotspotOpnFraction     float64
	ExponentialPercentile  float64
	ExponentialFrac        float64
	InsertionRetryLimit    int
	InsertionRetryInterval int // seconds
	InsertionKeepGoing     bool

	// Tool holds the properties that are for the tool, not the workload
	// (YCSB Client's and bindings'), by name.
	Tool map[string]prop
}

// intDomains are the integer properties' domains, [min, max]: a value
// outside is refused naming the property, before anything runs. The bounds
// are what the work can mean: a record of at most 1024 fields (PostgreSQL
// takes 1600 columns) of at most 256 MB each (MongoDB's documents stop at
// 16 MB); the generator's memory for the product is checked against the
// machine (recordMemory); counts stop at 10^12 records and 10^15 operations.
var intDomains = map[string][2]int64{
	"fieldcount": {1, 1024}, "fieldlength": {1, 256 << 20}, "minfieldlength": {1, 256 << 20},
	"recordcount": {0, 1e12}, "operationcount": {0, 1e15}, "insertstart": {0, 1e12}, "insertcount": {0, 1e12},
	"minscanlength": {1, 1_000_000}, "maxscanlength": {1, 1_000_000}, "zeropadding": {1, 32},
	"core_workload_insertion_retry_limit": {0, 1000}, "core_workload_insertion_retry_interval": {0, 3600},
}

// parseConfig validates props into a Config: every property must be known
// (an unknown one is an error naming it and its source; bindings' dotted
// properties are accepted into Tool), values must parse, the five operation
// proportions must sum to 1 (within 1e-9). Defaults are CoreWorkload's.
//
// Stricter than YCSB, which silently ignores unknown names and takes many
// bad values: booleans must be true or false (YCSB reads anything but "true"
// as false), insertorder must be hashed or ordered (YCSB: anything but
// "hashed" is ordered), hotspot fractions outside [0, 1] are errors (YCSB
// warns and uses 0), requestdistribution=zipfian needs operationcount (YCSB
// throws), and fieldlengthdistribution=histogram is not supported.
func parseConfig(props props) (*config, error) {
	r := &propReader{props: props}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	c := &config{Tool: map[string]prop{}}
	for _, n := range names {
		switch kindOf(n) {
		case propUnknown:
			r.fail(fmt.Errorf("%s: unknown property %q", props[n].Source, n))
		case propClient, propBinding:
			c.Tool[n] = props[n]
		}
	}
	c.read(r)
	c.check(r)
	c.checkProportions(r)
	if len(r.errs) > 0 {
		return nil, errors.Join(r.errs...)
	}
	return c, nil
}

// propReader reads typed values from properties, collecting an error per
// bad value (named with where it was set) and falling back to the default.
type propReader struct {
	props props
	errs  []error
}

func (r *propReader) fail(err error) { r.errs = append(r.errs, err) }

func (r *propReader) bad(name string, err error) {
	r.fail(fmt.Errorf("%s: %s=%q: %v", r.props[name].Source, name, r.props[name].Value, err))
}

func (r *propReader) str(name, def string) string {
	if p, ok := r.props[name]; ok {
		return p.Value
	}
	return def
}

func (r *propReader) i64(name string, def int64) int64 {
	p, ok := r.props[name]
	if !ok {
		return def
	}
	v, err := strconv.ParseInt(strings.TrimSpace(p.Value), 10, 64)
	if err != nil {
		r.bad(name, errors.New("not an integer"))
		return def
	}
	if d, ok := intDomains[name]; ok && (v < d[0] || v > d[1]) {
		r.bad(name, fmt.Errorf("must be within [%d, %d]", d[0], d[1]))
		return def
	}
	return v
}

func (r *propReader) f64(name string, def float64) float64 {
	p, ok := r.props[name]
	if !ok {
		return def
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(p.Value), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		r.bad(name, errors.New("not a number"))
	}
	return v
}

func (r *propReader) boolean(name string, def bool) bool {
	p, ok := r.props[name]
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(p.Value)) {
	case "true":
		return true
	case "false":
		return false
	}
	r.bad(name, errors.New("not true or false")) // YCSB: anything but "true" is false
	return false
}

func (r *propReader) oneOf(name, def string, allowed ...string) string {
	v := r.str(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	r.bad(name, fmt.Errorf("not one of %s", strings.Join(allowed, ", ")))
	return v
}

// read sets every field from its property, or CoreWorkload's default.
func (c *config) read(r *propReader) {
	c.Table = r.str("table", "usertable")
	c.FieldCount = r.i64("fieldcount", 10)
	c.FieldNamePrefix = r.str("fieldnameprefix", "field")
	c.FieldLength = r.i64("fieldlength", 100)
	c.MinFieldLength = r.i64("minfieldlength", 1)
	c.FieldLengthDist = r.oneOf("fieldlengthdistribution", "constant", "constant", "uniform", "zipfian")
	c.RecordCount = r.i64("recordcount", 0)
	if c.RecordCount == 0 {
		c.RecordCount = math.MaxInt32 // YCSB: 0 means Integer.MAX_VALUE
	}
	c.OperationCount = r.i64("operationcount", -1)
	c.RequestDist = r.oneOf("requestdistribution", "uniform", "uniform", "zipfian", "latest", "hotspot", "exponential", "sequential")
	c.MinScanLength = r.i64("minscanlength", 1)
	c.MaxScanLength = r.i64("maxscanlength", 1000)
	c.ScanLengthDist = r.oneOf("scanlengthdistribution", "uniform", "uniform", "zipfian")
	c.InsertStart = r.i64("insertstart", 0)
	c.InsertCount = r.i64("insertcount", c.RecordCount-c.InsertStart)
	c.ZeroPadding = int(r.i64("zeropadding", 1))
	c.ReadAllFields = r.boolean("readallfields", true)
	c.ReadAllFieldsByName = r.boolean("readallfieldsbyname", false)
	c.WriteAllFields = r.boolean("writeallfields", false)
	c.DataIntegrity = r.boolean("dataintegrity", false)
	c.OrderedInserts = r.oneOf("insertorder", "hashed", "hashed", "ordered") == "ordered"
	c.HotspotDataFraction = r.f64("hotspotdatafraction", 0.2)
	c.HotspotOpnFraction = r.f64("hotspotopnfraction", 0.8)
	c.ExponentialPercentile = r.f64("exponential.percentile", exponentialPercentileDefault)
	c.ExponentialFrac = r.f64("exponential.frac", exponentialFracDefault)
	c.InsertionRetryLimit = int(r.i64("core_workload_insertion_retry_limit", 0))
	c.InsertionRetryInterval = int(r.i64("core_workload_insertion_retry_interval", 3))
	c.InsertionKeepGoing = r.boolean("core_workload_insertion_keep_going_on_error", false)
	c.ReadProportion = r.f64("readproportion", 0.95)
	c.UpdateProportion = r.f64("updateproportion", 0.05)
	c.InsertProportion = r.f64("insertproportion", 0)
	c.ScanProportion = r.f64("scanproportion", 0)
	c.ReadModifyWriteProp = r.f64("readmodifywriteproportion", 0)
}

// check refuses the combinations of values YCSB fails on or fairbench does
// not support.
func (c *config) check(r *propReader) {
	if _, ok := r.props["fieldlengthhistogram"]; ok {
		r.bad("fieldlengthhistogram", errors.New("fieldlengthdistribution=histogram is not supported"))
	}
	if c.RecordCount < c.InsertStart+c.InsertCount {
		r.fail(fmt.Errorf("recordcount %d < insertstart %d + insertcount %d", c.RecordCount, c.InsertStart, c.InsertCount))
	}
	if c.DataIntegrity && c.FieldLengthDist != "constant" {
		r.fail(errors.New("dataintegrity=true needs fieldlengthdistribution=constant"))
	}
	if c.RequestDist == "zipfian" && c.OperationCount < 0 {
		r.fail(errors.New("requestdistribution=zipfian needs operationcount (YCSB fails without it)"))
	}
	for _, f := range []struct {
		n string
		v float64
	}{{"hotspotdatafraction", c.HotspotDataFraction}, {"hotspotopnfraction", c.HotspotOpnFraction}} {
		if f.v < 0 || f.v > 1 {
			r.bad(f.n, errors.New("not in [0, 1]"))
		}
	}
	if c.FieldCount < 1 {
		r.bad("fieldcount", errors.New("must be at least 1"))
	}
	if c.MinFieldLength > c.FieldLength && c.FieldLengthDist != "constant" {
		r.fail(fmt.Errorf("minfieldlength %d > fieldlength %d", c.MinFieldLength, c.FieldLength))
	}
	if c.MinScanLength > c.MaxScanLength {
		r.fail(fmt.Errorf("minscanlength %d > maxscanlength %d", c.MinScanLength, c.MaxScanLength))
	}
}

// checkProportions refuses a negative proportion, and proportions that do
// not sum to 1.
func (c *config) checkProportions(r *propReader) {
	prop := []struct {
		n string
		v float64
	}{
		{"readproportion", c.ReadProportion}, {"updateproportion", c.UpdateProportion},
		{"insertproportion", c.InsertProportion}, {"scanproportion", c.ScanProportion},
		{"readmodifywriteproportion", c.ReadModifyWriteProp},
	}
	sum := 0.0
	var parts []string
	for _, p := range prop {
		if p.v < 0 {
			r.bad(p.n, errors.New("negative"))
		}
		sum += p.v
		src := "default"
		if pp, ok := r.props[p.n]; ok {
			src = pp.Source
		}
		parts = append(parts, fmt.Sprintf("%s=%v (%s)", p.n, p.v, src))
	}
	if math.Abs(sum-1) > 1e-9 {
		r.fail(fmt.Errorf("proportions sum to %v, not 1: %s", sum, strings.Join(parts, ", ")))
	}
}

// expectedNewKeys is CoreWorkload's allowance for the run's inserts in the
// zipfian key range: (int)(operationcount·insertproportion·2.0).
func (c *config) expectedNewKeys() int64 {
	return javaInt(float64(max(c.OperationCount, 0)) * c.InsertProportion * 2.0)
}

// newKeyChooser builds CoreWorkload's key chooser for the run; inserts is
// the run's AckCounter (NewAckCounter(RecordCount)), which "latest" follows
// and NextKeynum bounds the draws with.
func (c *config) newKeyChooser(inserts *ackCounter) (generator, error) {
	lo, hi := c.InsertStart, c.InsertStart+c.InsertCount-1
	switch c.RequestDist {
	case "uniform":
		return newUniform(lo, hi), nil
	case "exponential":
		return newExponential(c.ExponentialPercentile, float64(c.RecordCount)*c.ExponentialFrac), nil
	case "sequential":
		return newSequential(lo, hi), nil
	case "zipfian":
		return newScrambledZipfian(lo, c.InsertStart+c.InsertCount+c.expectedNewKeys()), nil
	case "latest":
		return newSkewedLatest(inserts), nil
	case "hotspot":
		return newHotspot(lo, hi, c.HotspotDataFraction, c.HotspotOpnFraction)
	}
	return nil, fmt.Errorf("ycsb: unknown request distribution %q", c.RequestDist)
}

// newScanLength builds CoreWorkload's scan-length generator.
func (c *config) newScanLength() generator {
	if c.ScanLengthDist == "zipfian" {
		return newZipfian(c.MinScanLength, c.MaxScanLength)
	}
	return newUniform(c.MinScanLength, c.MaxScanLength)
}

// newFieldLength builds CoreWorkload's field-length generator.
func (c *config) newFieldLength() (generator, error) {
	return newFieldLength(c.FieldLengthDist, c.MinFieldLength, c.FieldLength)
}

// fieldNames are CoreWorkload's field names: prefix0 … prefix(fieldcount-1).
func (c *config) fieldNames() []string {
	n := make([]string, c.FieldCount)
	for i := range n {
		n[i] = c.FieldNamePrefix + strconv.Itoa(i)
	}
	return n
}
