package params

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// coerceOK runs Coerce and fails the test on an error.
func coerceOK(t *testing.T, s Spec, raw any) any {
	t.Helper()
	v, err := Coerce(s, raw)
	if err != nil {
		t.Fatalf("Coerce(%s, %#v): %v", s.Name, raw, err)
	}
	return v
}

// coerceErr runs Coerce, expects an error and checks that it names the parameter
// and contains every fragment.
func coerceErr(t *testing.T, s Spec, raw any, fragments ...string) {
	t.Helper()
	v, err := Coerce(s, raw)
	if err == nil {
		t.Errorf("Coerce(%s, %#v) = %#v, want an error", s.Name, raw, v)
		return
	}
	if !strings.Contains(err.Error(), s.Name) {
		t.Errorf("Coerce(%s, %#v) error %q does not name the parameter", s.Name, raw, err)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("Coerce(%s, %#v) error %q does not mention %q", s.Name, raw, err, f)
		}
	}
}

func TestCoerceString(t *testing.T) {
	free := Spec{Name: "label", Kind: String}
	if v := coerceOK(t, free, "anything at all"); v != "anything at all" {
		t.Errorf("free string = %#v", v)
	}
	if v := coerceOK(t, free, ""); v != "" {
		t.Errorf("empty string = %#v", v)
	}
	coerceErr(t, free, int64(5), "string", "an integer")
	coerceErr(t, free, true, "string", "a boolean")

	mode := Spec{Name: "mode", Kind: String, Choices: []string{"tpcb-like", "simple-update", "select-only"}}
	for _, c := range mode.Choices {
		if v := coerceOK(t, mode, c); v != c {
			t.Errorf("choice %q = %#v", c, v)
		}
	}
	coerceErr(t, mode, "select_only", `"select_only"`, "tpcb-like", "simple-update", "select-only")
	coerceErr(t, mode, "SELECT-ONLY") // choices are case-sensitive
}

func TestCoerceInt(t *testing.T) {
	scale := Spec{Name: "scale", Kind: Int}
	for _, tc := range []struct {
		raw  any
		want int64
	}{
		{int64(10), 10},
		{int(7), 7},
		{float64(3), 3}, // TOML may hand over an integral float
		{float64(-4), -4},
		{"42", 42},
		{" 42 ", 42},
		{"-1", -1},
	} {
		v := coerceOK(t, scale, tc.raw)
		n, ok := v.(int64)
		if !ok || n != tc.want {
			t.Errorf("Coerce(int, %#v) = %#v (%T), want int64(%d)", tc.raw, v, v, tc.want)
		}
	}
	coerceErr(t, scale, 2.5, "integer", "2.5")
	coerceErr(t, scale, "ten", "integer", `"ten"`)
	coerceErr(t, scale, "2.5", "integer")
	coerceErr(t, scale, true, "integer", "a boolean")
	coerceErr(t, scale, []any{int64(1)}, "integer", "an array")

	clients := Spec{Name: "clients", Kind: Int, Min: MinOf(1)}
	if v := coerceOK(t, clients, int64(1)); v != int64(1) {
		t.Errorf("at the bound: %#v", v)
	}
	coerceErr(t, clients, int64(0), "at least 1", "0")
	coerceErr(t, clients, "-3", "at least 1")
	coerceErr(t, clients, float64(0), "at least 1")
}

func TestCoerceFloat(t *testing.T) {
	rate := Spec{Name: "rate", Kind: Float, Min: MinOf(0.5)}
	for _, tc := range []struct {
		raw  any
		want float64
	}{
		{1.5, 1.5}, {int64(2), 2}, {int(3), 3}, {"2.25", 2.25}, {" 1e3 ", 1000}, {0.5, 0.5},
	} {
		v := coerceOK(t, rate, tc.raw)
		f, ok := v.(float64)
		if !ok || f != tc.want {
			t.Errorf("Coerce(float, %#v) = %#v (%T), want float64(%v)", tc.raw, v, v, tc.want)
		}
	}
	coerceErr(t, rate, "fast", "number", `"fast"`)
	coerceErr(t, rate, 0.25, "at least 0.5")
	coerceErr(t, rate, false, "number", "a boolean")
}

func TestCoerceBool(t *testing.T) {
	vac := Spec{Name: "vacuum", Kind: Bool}
	for _, tc := range []struct {
		raw  any
		want bool
	}{
		{true, true}, {false, false}, {"true", true}, {"false", false}, {" TRUE ", true}, {"1", true}, {"0", false},
	} {
		v := coerceOK(t, vac, tc.raw)
		b, ok := v.(bool)
		if !ok || b != tc.want {
			t.Errorf("Coerce(bool, %#v) = %#v (%T), want %v", tc.raw, v, v, tc.want)
		}
	}
	coerceErr(t, vac, "maybe", "true or false", `"maybe"`)
	coerceErr(t, vac, int64(1), "true or false", "an integer")
}

func TestCoerceDuration(t *testing.T) {
	dur := Spec{Name: "duration", Kind: Duration}
	for _, tc := range []struct {
		raw  any
		want time.Duration
	}{
		{"30s", 30 * time.Second},
		{"1m30s", 90 * time.Second},
		{"500ms", 500 * time.Millisecond},
		{"2h", 2 * time.Hour},
		{"30", 30 * time.Second}, // plain seconds, like pgbench -T
		{" 30 ", 30 * time.Second},
		{"0.25", 250 * time.Millisecond},
		{int64(30), 30 * time.Second}, // TOML integer: seconds
		{int(45), 45 * time.Second},
		{30.0, 30 * time.Second}, // TOML float: seconds
		{1.5, 1500 * time.Millisecond},
		{90 * time.Second, 90 * time.Second},
		{"0", 0},
	} {
		v := coerceOK(t, dur, tc.raw)
		d, ok := v.(time.Duration)
		if !ok || d != tc.want {
			t.Errorf("Coerce(duration, %#v) = %#v (%T), want %v", tc.raw, v, v, tc.want)
		}
	}
	coerceErr(t, dur, "soon", `"soon"`)
	coerceErr(t, dur, "30 seconds")
	coerceErr(t, dur, "-5s", "negative")
	coerceErr(t, dur, int64(-1), "negative")
	coerceErr(t, dur, -0.5, "negative")
	coerceErr(t, dur, true, "duration", "a boolean")
	coerceErr(t, dur, map[string]any{}, "duration", "a table")
}

func TestCoerceFormatRoundTrip(t *testing.T) {
	// What Format writes, Coerce reads back to the same value: the canonical
	// form of a cell can be parsed again (resume, CLI overrides).
	for _, tc := range []struct {
		spec Spec
		v    any
	}{
		{Spec{Name: "d", Kind: Duration}, 90 * time.Second},
		{Spec{Name: "d", Kind: Duration}, 1500 * time.Millisecond},
		{Spec{Name: "i", Kind: Int}, int64(-12)},
		{Spec{Name: "f", Kind: Float}, 0.1},
		{Spec{Name: "b", Kind: Bool}, true},
		{Spec{Name: "s", Kind: String}, "x y"},
	} {
		got := coerceOK(t, tc.spec, Format(tc.v))
		if got != tc.v {
			t.Errorf("Coerce(Format(%#v)) = %#v", tc.v, got)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	specs := []Spec{
		{Name: "scale", Kind: Int, Default: int64(1)},
		{Name: "mode", Kind: String, Default: "tpcb-like"},
		{Name: "duration", Kind: Duration, Default: 60 * time.Second},
		{Name: "label", Kind: String}, // no default: stays absent
	}
	in := Values{"scale": int64(10), "extra": "kept"}
	got := WithDefaults(specs, in)
	want := Values{"scale": int64(10), "mode": "tpcb-like", "duration": 60 * time.Second, "extra": "kept"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WithDefaults = %#v, want %#v", got, want)
	}
	if _, has := got["label"]; has {
		t.Error("a parameter without default was set")
	}
	// The input is not modified.
	if !reflect.DeepEqual(in, Values{"scale": int64(10), "extra": "kept"}) {
		t.Errorf("WithDefaults modified its input: %#v", in)
	}
	got["mode"] = "select-only"
	if in["mode"] != nil {
		t.Error("result shares storage with the input")
	}

	if got := WithDefaults(specs, nil); !reflect.DeepEqual(got, Values{"scale": int64(1), "mode": "tpcb-like", "duration": 60 * time.Second}) {
		t.Errorf("WithDefaults(nil) = %#v", got)
	}
}

func TestCanonicalSortedAndStable(t *testing.T) {
	v := Values{
		"scale":    int64(10),
		"mode":     "select-only",
		"duration": 90 * time.Second,
		"rate":     1.5,
		"vacuum":   false,
		"Zeta":     "upper", // byte order: upper case before lower case
		"alpha":    int64(-1),
	}
	want := "Zeta=upper alpha=-1 duration=1m30s mode=select-only rate=1.5 scale=10 vacuum=false"
	for i := 0; i < 50; i++ { // map iteration order differs between calls
		if got := v.Canonical(); got != want {
			t.Fatalf("Canonical (call %d) = %q, want %q", i, got, want)
		}
	}
	// Same values built in another order give the same identity.
	w := Values{}
	for _, k := range []string{"vacuum", "alpha", "rate", "Zeta", "duration", "mode", "scale"} {
		w[k] = v[k]
	}
	if w.Canonical() != want {
		t.Errorf("Canonical depends on insertion order: %q", w.Canonical())
	}
	if got := (Values{}).Canonical(); got != "" {
		t.Errorf("empty Canonical = %q, want \"\"", got)
	}
	if got := (Values{"only": int64(3)}).Canonical(); got != "only=3" {
		t.Errorf("single Canonical = %q, want only=3", got)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{"select-only", "select-only"},
		{"", ""},
		{int64(0), "0"},
		{int64(-42), "-42"},
		{int64(9007199254740993), "9007199254740993"},
		{1.5, "1.5"},
		{100.0, "100"},
		{0.1, "0.1"},
		{1e21, "1e+21"},
		{true, "true"},
		{false, "false"},
		{90 * time.Second, "1m30s"},
		{500 * time.Millisecond, "500ms"},
		{2 * time.Hour, "2h0m0s"},
		{time.Duration(0), "0s"},
		{nil, ""},
		{7, "7"},                    // any other type: fmt.Sprint
		{[]string{"a", "b"}, "a,b"}, // a list value (StringList)
		{[]int{1}, "[1]"},
	} {
		if got := Format(tc.in); got != tc.want {
			t.Errorf("Format(%#v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestJSONable(t *testing.T) {
	v := Values{"duration": 90 * time.Second, "scale": int64(10), "mode": "simple", "rate": 2.5, "vacuum": true}
	j := v.JSONable()
	want := map[string]any{"duration": "1m30s", "scale": int64(10), "mode": "simple", "rate": 2.5, "vacuum": true}
	if !reflect.DeepEqual(j, want) {
		t.Errorf("JSONable = %#v, want %#v", j, want)
	}
	if v["duration"] != 90*time.Second {
		t.Errorf("JSONable modified the values: %#v", v["duration"])
	}

	b, err := json.Marshal(j)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back["duration"] != "1m30s" {
		t.Errorf("duration after JSON = %#v, want \"1m30s\"", back["duration"])
	}
	// ... which Coerce turns back into the same duration.
	d := coerceOK(t, Spec{Name: "duration", Kind: Duration}, back["duration"])
	if d != 90*time.Second {
		t.Errorf("duration after JSON and Coerce = %v, want 1m30s", d)
	}
	// JSON numbers come back as float64; Coerce accepts the integral one as an int.
	n := coerceOK(t, Spec{Name: "scale", Kind: Int}, back["scale"])
	if n != int64(10) {
		t.Errorf("scale after JSON and Coerce = %#v, want int64(10)", n)
	}
}

func TestStringListIsOneValue(t *testing.T) {
	spec := Spec{Name: "queries", Kind: StringList, Choices: []string{"q1.1", "q1.2", "q2.1"}}
	for _, raw := range []any{[]any{"q1.1", "q2.1"}, "q1.1, q2.1", []string{"q1.1", "q2.1"}} {
		v, err := Coerce(spec, raw)
		if err != nil {
			t.Fatalf("%#v: %v", raw, err)
		}
		if got := Format(v); got != "q1.1,q2.1" {
			t.Fatalf("%#v formats as %q, want q1.1,q2.1", raw, got)
		}
	}
	for raw, want := range map[any]string{"q9": `"q9" is not one of`, "": "empty list", int64(3): "list of strings"} {
		if _, err := Coerce(spec, raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%#v: err %v, want %q", raw, err, want)
		}
	}
}

func TestSpecAppliesTo(t *testing.T) {
	s := Spec{Name: "mysql_storage_engine", Engines: []string{"mysql", "mariadb"}}
	for engine, want := range map[string]bool{"mysql": true, "mariadb": true, "sqlite": false, "postgresql": false, "": true} {
		if got := s.AppliesTo(engine); got != want {
			t.Errorf("AppliesTo(%q) = %v, want %v", engine, got, want)
		}
	}
	if !(Spec{Name: "tables"}).AppliesTo("sqlite") {
		t.Error("a spec without engines applies to every engine")
	}
}

// NaN and Inf are refused for every number and integer, from TOML (nan,
// inf) and from the command line ("NaN", "Inf"), naming the parameter: a NaN
// scale loaded and was stored as one, a NaN Zipf exponent hung the key
// generator, an infinite scale panicked.
func TestCoerceRefusesNonFiniteNumbers(t *testing.T) {
	for _, kind := range []Kind{Float, Int} {
		s := Spec{Name: "scale", Kind: kind, Min: MinOf(0)}
		for _, raw := range []any{math.NaN(), math.Inf(1), math.Inf(-1), "NaN", "Inf", "+Inf", "nan"} {
			if v, err := Coerce(s, raw); err == nil || !strings.Contains(err.Error(), "scale") {
				t.Errorf("%v %v: got %v, %v; want an error naming scale", kind, raw, v, err)
			}
		}
	}
	for _, raw := range []any{math.NaN(), "NaN"} {
		if _, err := Coerce(Spec{Name: "warmup", Kind: Duration}, raw); err == nil {
			t.Errorf("duration %v accepted", raw)
		}
	}
}

// Max bounds a value like Min, with the bound in full digits.
func TestCoerceChecksMax(t *testing.T) {
	s := Spec{Name: "data_size", Kind: Int, Min: MinOf(1), Max: MaxOf(512 << 20)}
	if _, err := Coerce(s, "99999999999"); err == nil || err.Error() != "data_size must be at most 536870912, got 99999999999" {
		t.Errorf("got %v", err)
	}
	if v, err := Coerce(s, int64(512<<20)); err != nil || v != int64(512<<20) {
		t.Errorf("the bound itself: %v, %v", v, err)
	}
}
