package ycsb

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func parse(t *testing.T, text string) props {
	t.Helper()
	p := props{}
	if err := parseProperties(strings.NewReader(text), "w", p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseProperties(t *testing.T) {
	p := parse(t, "# comment\n"+
		"  ! also a comment\n"+
		"\n"+
		"recordcount=1000\n"+
		"operationcount 2000\n"+
		"table : t1\n"+
		"fieldnameprefix\t=  f_\n"+
		"readproportion=0.\\\n"+
		"     5\n"+
		"key\\ with\\ blanks=x\\ty\n"+
		"uni=\\u0041b\n"+
		"empty\n"+
		"a=b=c\r\n"+
		"recordcount=3000\n")
	want := map[string]string{
		"recordcount": "3000", "operationcount": "2000", "table": "t1", "fieldnameprefix": "f_",
		"readproportion": "0.5", "key with blanks": "x\ty", "uni": "Ab", "empty": "", "a": "b=c",
	}
	for k, v := range want {
		if p[k].Value != v {
			t.Errorf("%q = %q, want %q", k, p[k].Value, v)
		}
	}
	if len(p) != len(want) {
		t.Errorf("%d properties, want %d: %v", len(p), len(want), p)
	}
	if p["readproportion"].Source != "w:8" || p["recordcount"].Source != "w:14" {
		t.Errorf("sources %q %q, want w:8 w:14", p["readproportion"].Source, p["recordcount"].Source)
	}
}

func TestUnknownPropertyNamesFileLine(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "wl")
	os.WriteFile(f, []byte("recordcount=10\noperationcount=10\n\nreadproprtion=0.5\nmongodb.url=mongodb://x\n"), 0o644)
	p := props{}
	if err := loadFile(f, p); err != nil {
		t.Fatal(err)
	}
	_, err := parseConfig(p)
	if err == nil || !strings.Contains(err.Error(), f+":4") || !strings.Contains(err.Error(), `"readproprtion"`) {
		t.Fatalf("error %v, want one naming readproprtion at %s:4", err, f)
	}
	if strings.Contains(err.Error(), "mongodb.url") {
		t.Errorf("binding property reported as unknown: %v", err)
	}
	for _, n := range []string{"exponential.frak", "measurement.intervl", "readallfield"} {
		if kindOf(n) != propUnknown {
			t.Errorf("%s accepted", n)
		}
	}
	for n, k := range map[string]kind{"mongodb.url": propBinding, "redis.host": propBinding, "db.url": propBinding,
		"threadcount": propClient, "target": propClient, "measurementtype": propClient, "recordcount": propWorkload,
		"exponential.frac": propWorkload, "zeropadding": propWorkload} {
		if kindOf(n) != k {
			t.Errorf("KindOf(%s) = %v, want %v", n, kindOf(n), k)
		}
	}
}

func TestOverridesAndTool(t *testing.T) {
	p := props{}
	if err := preset("a", p); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"recordcount=5000", "threadcount=8", "redis.host=127.0.0.1", "insertorder=ordered"} {
		if err := setFlag(a, p); err != nil {
			t.Fatal(err)
		}
	}
	c, err := parseConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.RecordCount != 5000 || c.InsertCount != 5000 || !c.OrderedInserts || c.RequestDist != "zipfian" {
		t.Errorf("config %+v", c)
	}
	if c.Tool["threadcount"].Value != "8" || c.Tool["redis.host"].Source != "-p" || len(c.Tool) != 2 {
		t.Errorf("tool properties %v", c.Tool)
	}
	if err := setFlag("novalue", p); err == nil {
		t.Error("-p without = accepted")
	}
}

func TestProportionsMustSumToOne(t *testing.T) {
	p := parse(t, "readproportion=0.5\nupdateproportion=0.4\n")
	_, err := parseConfig(p)
	if err == nil || !strings.Contains(err.Error(), "readproportion=0.5 (w:1)") || !strings.Contains(err.Error(), "updateproportion=0.4 (w:2)") {
		t.Fatalf("error %v, want the proportions named", err)
	}
	// defaults: 0.95 + 0.05
	if _, err := parseConfig(props{}); err != nil {
		t.Errorf("defaults: %v", err)
	}
	p = parse(t, "readproportion=0.1\nupdateproportion=0.2\ninsertproportion=0.3\nscanproportion=0.15\nreadmodifywriteproportion=0.25\nrequestdistribution=uniform\n")
	if _, err := parseConfig(p); err != nil {
		t.Errorf("0.1+0.2+0.3+0.15+0.25: %v", err)
	}
}

func TestConfigErrors(t *testing.T) {
	for text, want := range map[string]string{
		"requestdistribution=zipf\n":                            "requestdistribution",
		"fieldcount=ten\n":                                      "not an integer",
		"readallfields=yes\n":                                   "not true or false",
		"requestdistribution=zipfian\n":                         "needs operationcount",
		"recordcount=10\ninsertstart=5\ninsertcount=10\n":       "recordcount 10 < insertstart 5 + insertcount 10",
		"dataintegrity=true\nfieldlengthdistribution=uniform\n": "dataintegrity",
		"hotspotopnfraction=1.2\n":                              "hotspotopnfraction",
		"insertorder=random\n":                                  "insertorder",
	} {
		_, err := parseConfig(parse(t, text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

func TestConfigDefaultsAndKeyChooser(t *testing.T) {
	c, err := parseConfig(props{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Table != "usertable" || c.FieldCount != 10 || c.FieldLength != 100 || c.ZeroPadding != 1 ||
		c.OrderedInserts || !c.ReadAllFields || c.MaxScanLength != 1000 || c.RecordCount != 1<<31-1 {
		t.Errorf("defaults %+v", c)
	}
	if n := c.fieldNames(); len(n) != 10 || n[0] != "field0" || n[9] != "field9" {
		t.Errorf("field names %v", n)
	}
	p := props{}
	preset("d", p)
	setFlag("operationcount=100000", p)
	c, err = parseConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	ack := newAckCounter(c.RecordCount)
	g, err := c.newKeyChooser(ack)
	if _, ok := g.(*skewedLatest); !ok || err != nil {
		t.Errorf("workload d key chooser %T %v", g, err)
	}
	p = props{}
	preset("e", p)
	setFlag("operationcount=100000", p)
	c, _ = parseConfig(p)
	if c.expectedNewKeys() != 10000 {
		t.Errorf("expected new keys %d, want 100000·0.05·2", c.expectedNewKeys())
	}
	g, _ = c.newKeyChooser(ack)
	if s, ok := g.(*scrambledZipfian); !ok || s.itemcount != 1000+10000+1 {
		t.Errorf("workload e key chooser %T over %d", g, s.itemcount)
	}
}

// wantPresets are YCSB's workloads/workload[a-f] values (typed from the
// files, independently of presets.go).
var wantPresets = map[string]string{
	"a": "readproportion=0.5 updateproportion=0.5 scanproportion=0 insertproportion=0 requestdistribution=zipfian",
	"b": "readproportion=0.95 updateproportion=0.05 scanproportion=0 insertproportion=0 requestdistribution=zipfian",
	"c": "readproportion=1 updateproportion=0 scanproportion=0 insertproportion=0 requestdistribution=zipfian",
	"d": "readproportion=0.95 updateproportion=0 scanproportion=0 insertproportion=0.05 requestdistribution=latest",
	"e": "readproportion=0 updateproportion=0 scanproportion=0.95 insertproportion=0.05 requestdistribution=zipfian maxscanlength=100 scanlengthdistribution=uniform",
	"f": "readproportion=0.5 updateproportion=0 scanproportion=0 insertproportion=0 readmodifywriteproportion=0.5 requestdistribution=zipfian",
}

func presetProps(t *testing.T, name string) map[string]string {
	p := props{}
	if err := preset(name, p); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for k, v := range p {
		m[k] = v.Value
	}
	return m
}

func TestPresets(t *testing.T) {
	for _, name := range presetNames {
		want := map[string]string{"recordcount": "1000", "operationcount": "1000",
			"workload": "site.ycsb.workloads.CoreWorkload", "readallfields": "true"}
		for _, kv := range strings.Fields(wantPresets[name]) {
			k, v, _ := strings.Cut(kv, "=")
			want[k] = v
		}
		got := presetProps(t, name)
		if len(got) != len(want) {
			t.Errorf("preset %s: %v, want %v", name, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("preset %s: %s=%q, want %q", name, k, got[k], v)
			}
		}
		p := props{}
		preset(name, p)
		if _, err := parseConfig(p); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if err := preset("g", props{}); err == nil {
		t.Error("preset g accepted")
	}
}

// TestPresetsAgainstYCSBSource parses the workload files in YCSB's source
// tarball, when it is there, with ParseProperties and compares.
func TestPresetsAgainstYCSBSource(t *testing.T) {
	const tarball = "/work/shared/peers/ycsb-0.18.0-SNAPSHOT-d9faaac8-src.tar.gz"
	f, err := os.Open(tarball)
	if err != nil {
		t.Skipf("YCSB source not here: %v", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	seen := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		base := filepath.Base(h.Name)
		if filepath.Base(filepath.Dir(h.Name)) != "workloads" || len(base) != 9 || !strings.HasPrefix(base, "workload") {
			continue
		}
		name := base[8:]
		if _, ok := presets[name]; !ok {
			continue
		}
		p := props{}
		if err := parseProperties(tr, h.Name, p); err != nil {
			t.Fatal(err)
		}
		got := presetProps(t, name)
		if len(p) != len(got) {
			t.Errorf("%s: %d properties, preset %d", h.Name, len(p), len(got))
		}
		for k, v := range p {
			if got[k] != v.Value {
				t.Errorf("%s: %s=%q, preset %q", h.Name, k, v.Value, got[k])
			}
		}
		seen++
	}
	if seen != 6 {
		t.Errorf("found %d of YCSB's workload files a–f", seen)
	}
}

// Every integer property with a domain, given -1, 0 and 10^12 (YCSB's
// -p recordcount=-5 "loaded -5 records"; fieldlength=99999999999 ran out of
// memory), is refused naming it when outside, and taken when inside.
func TestIntegerPropertiesHaveDomains(t *testing.T) {
	for name, d := range intDomains {
		for _, v := range []int64{-1, 0, 1e12, d[0], d[1]} {
			p := props{}
			p.set(name, strconv.FormatInt(v, 10), "-p")
			_, err := parseConfig(p)
			inside := v >= d[0] && v <= d[1]
			if !inside && (err == nil || !strings.Contains(err.Error(), name+"=")) {
				t.Errorf("%s=%d: %v, want a refusal naming %s", name, v, err, name)
			}
			if inside && err != nil && strings.Contains(err.Error(), "must be within") {
				t.Errorf("%s=%d is inside [%d, %d] but refused: %v", name, v, d[0], d[1], err)
			}
		}
	}
}
