// Package params describes the parameters a workload accepts and holds the typed
// values of one cell. Study files, the CLI and the results store all speak in these
// terms, so a parameter is validated and normalised once, in one place.
package params

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind is the type of a parameter value.
type Kind int

const (
	String Kind = iota
	Int
	Float
	Bool
	Duration
	// StringList is one value made of several strings (an SSB query set):
	// in a study file an array of strings is that one value, and only an
	// array of arrays is a sweep; on the command line it is comma-separated.
	StringList
)

func (k Kind) String() string {
	switch k {
	case String:
		return "string"
	case Int:
		return "integer"
	case Float:
		return "number"
	case Bool:
		return "boolean"
	case Duration:
		return "duration"
	case StringList:
		return "list of strings"
	}
	return "unknown"
}

// Spec declares one parameter of a workload.
type Spec struct {
	Name    string
	Kind    Kind
	Default any      // already of the normalised Go type (see Coerce)
	Choices []string // for String parameters: the allowed values; empty = free text
	Min     *float64 // for Int and Float: inclusive lower bound
	// Max, for Int and Float, is the inclusive upper bound. Every numeric
	// parameter has one: a value sizes a loop, a key range or a table, and a
	// value past what the work can mean (10^12 of anything) is refused here,
	// naming the parameter, rather than found out of memory later.
	Max *float64
	// Memory, when set, is the memory in bytes the parameter's value makes
	// the load generator hold, given the cell's values: shared once by the
	// cell, and per client (a pipeline of values is held by every client).
	// Need adds them up, so that a cell that cannot fit the machine is
	// refused before anything runs.
	Memory func(v Values) (shared, perClient float64)
	Help   string
	// Engines, when set, are the database engines the parameter applies to,
	// as drivers record them (env database.engine: "mysql", "mariadb",
	// "postgresql", "sqlite"); reports leave it out for the others. Empty:
	// every engine.
	Engines []string
	// Data marks a parameter whose value shapes the data a cell loads (a
	// scale, a table count): cells with another value need the data loaded
	// again. Plans sweep such parameters outermost, so that each data set is
	// loaded once per repetition round rather than at every switch.
	Data bool
	// Check, when set, checks what Kind, Choices, Min and Max cannot say
	// of a value (each element of a list of percentiles within (0, 100]);
	// Coerce calls it on the value of Kind's type.
	Check func(v any) error
}

// AppliesTo reports whether the parameter applies to engine ("" = unknown,
// which it is assumed to).
func (s Spec) AppliesTo(engine string) bool {
	return len(s.Engines) == 0 || engine == "" || contains(s.Engines, engine)
}

// MaxClients bounds the clients of a cell on every engine, in study files
// and on the command line. Each client holds its own histograms, session
// and goroutine (a megabyte or more: the memory check before a run counts
// them), so a million is already past what one load generator holds; a
// larger count is a typo to refuse, naming the flag or key, before anything
// runs.
const MaxClients = 1_000_000

// MinOf is a helper for Spec literals.
func MinOf(v float64) *float64 { return &v }

// MaxOf is a helper for Spec literals.
func MaxOf(v float64) *float64 { return &v }

// Need is the memory in bytes the parameters of a cell make the load
// generator hold (Spec.Memory): shared once, and per client; and the
// parameter that holds the most of it with clients clients, for messages
// ("" when none declares any).
func Need(specs []Spec, v Values, clients int) (shared, perClient float64, by string) {
	most := 0.0
	for _, s := range specs {
		if s.Memory == nil {
			continue
		}
		sh, per := s.Memory(v)
		shared += sh
		perClient += per
		if b := sh + per*float64(clients); b > most {
			most, by = b, s.Name
		}
	}
	return shared, perClient, by
}

// inRange checks a numeric value against the spec's domain: finite, at
// least Min, at most Max.
func inRange(s Spec, f float64, shown any) error {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return fmt.Errorf("%s must be a finite number, got %v", s.Name, shown)
	case s.Min != nil && f < *s.Min:
		return fmt.Errorf("%s must be at least %s, got %v", s.Name, bound(*s.Min), shown)
	case s.Max != nil && f > *s.Max:
		return fmt.Errorf("%s must be at most %s, got %v", s.Name, bound(*s.Max), shown)
	}
	return nil
}

// bound writes a bound in full digits (1000000, not 1e+06) up to 10^21.
func bound(f float64) string {
	if math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// Values are the normalised parameter values of one cell: string, int64, float64,
// bool or time.Duration, keyed by parameter name.
type Values map[string]any

// Coerce turns a raw value (from TOML: string, int64, float64, bool; from the CLI:
// string) into the normalised Go type of the spec, and checks choices and bounds.
func Coerce(s Spec, raw any) (any, error) {
	coerce, ok := coercers[s.Kind]
	if !ok {
		return nil, fmt.Errorf("%s: unsupported parameter kind", s.Name)
	}
	v, err := coerce(s, raw)
	if err != nil {
		return nil, err
	}
	if s.Check != nil {
		if err := s.Check(v); err != nil {
			return nil, fmt.Errorf("%s: %v", s.Name, err)
		}
	}
	return v, nil
}

// coercers turn a raw value into each kind's type.
var coercers = map[Kind]func(s Spec, raw any) (any, error){
	String:     coerceString,
	Int:        coerceInt,
	Float:      coerceFloat,
	Bool:       coerceBool,
	Duration:   coerceDuration,
	StringList: coerceStringList,
}

// coerceString coerces to a string, one of the spec's choices when it has any.
func coerceString(s Spec, raw any) (any, error) {
	str, ok := raw.(string)
	if !ok {
		return nil, fmt.Errorf("%s must be a string, got %s", s.Name, describe(raw))
	}
	if len(s.Choices) > 0 && !contains(s.Choices, str) {
		return nil, fmt.Errorf("%s = %q is not one of %s", s.Name, str, strings.Join(s.Choices, ", "))
	}
	return str, nil
}

// coerceInt coerces to an int64 within the spec's bounds, from an integer, a
// whole float or a decimal string.
func coerceInt(s Spec, raw any) (any, error) {
	var v any
	switch x := raw.(type) {
	case int64:
		v = x
	case int:
		v = int64(x)
	case float64:
		if x != math.Trunc(x) || math.Abs(x) >= 1<<63 {
			return nil, fmt.Errorf("%s must be an integer, got %v", s.Name, x)
		}
		v = int64(x)
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be an integer, got %q", s.Name, x)
		}
		v = n
	default:
		return nil, fmt.Errorf("%s must be an integer, got %s", s.Name, describe(raw))
	}
	if err := inRange(s, float64(v.(int64)), v); err != nil {
		return nil, err
	}
	return v, nil
}

// coerceFloat coerces to a float64 within the spec's bounds, from a number or
// a decimal string.
func coerceFloat(s Spec, raw any) (any, error) {
	var v any
	switch x := raw.(type) {
	case float64:
		v = x
	case int64:
		v = float64(x)
	case int:
		v = float64(x)
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return nil, fmt.Errorf("%s must be a number, got %q", s.Name, x)
		}
		v = f
	default:
		return nil, fmt.Errorf("%s must be a number, got %s", s.Name, describe(raw))
	}
	if err := inRange(s, v.(float64), v); err != nil {
		return nil, err
	}
	return v, nil
}

// coerceBool coerces to a bool, from a bool or a string strconv.ParseBool
// reads.
func coerceBool(s Spec, raw any) (any, error) {
	var v any
	switch x := raw.(type) {
	case bool:
		v = x
	case string:
		b, err := strconv.ParseBool(strings.TrimSpace(x))
		if err != nil {
			return nil, fmt.Errorf("%s must be true or false, got %q", s.Name, x)
		}
		v = b
	default:
		return nil, fmt.Errorf("%s must be true or false, got %s", s.Name, describe(raw))
	}
	return v, nil
}

// coerceDuration coerces to a time.Duration not below zero, from a duration, a
// string ParseDuration reads, or seconds.
func coerceDuration(s Spec, raw any) (any, error) {
	var v any
	switch x := raw.(type) {
	case time.Duration:
		v = x
	case string:
		d, err := ParseDuration(x)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.Name, err)
		}
		v = d
	case int64:
		if float64(x) > maxSeconds {
			return nil, fmt.Errorf("%s: %d seconds is too long", s.Name, x)
		}
		v = time.Duration(x) * time.Second
	case int:
		v = time.Duration(x) * time.Second
	case float64:
		if x != x || x > maxSeconds {
			return nil, fmt.Errorf("%s: %v seconds is not a duration fairbench can run", s.Name, x)
		}
		v = time.Duration(x * float64(time.Second))
	default:
		return nil, fmt.Errorf("%s must be a duration such as \"30s\" or \"2m\", got %s", s.Name, describe(raw))
	}
	if v.(time.Duration) < 0 {
		return nil, fmt.Errorf("%s must not be negative", s.Name)
	}
	return v, nil
}

// coerceStringList coerces to a non-empty []string of the spec's choices, from
// a list or a comma-separated string.
func coerceStringList(s Spec, raw any) (any, error) {
	var list []string
	switch x := raw.(type) {
	case []string:
		list = append([]string(nil), x...)
	case []any:
		for _, e := range x {
			str, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s must be a list of strings, got %s in it", s.Name, describe(e))
			}
			list = append(list, str)
		}
	case string:
		for _, e := range strings.Split(x, ",") {
			if e = strings.TrimSpace(e); e != "" {
				list = append(list, e)
			}
		}
	default:
		return nil, fmt.Errorf("%s must be a list of strings, got %s", s.Name, describe(raw))
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%s is an empty list", s.Name)
	}
	for _, e := range list {
		if len(s.Choices) > 0 && !contains(s.Choices, e) {
			return nil, fmt.Errorf("%s: %q is not one of %s", s.Name, e, strings.Join(s.Choices, ", "))
		}
	}
	return list, nil
}

// maxSeconds keeps durations far from time.Duration's overflow (~292 years).
const maxSeconds = 100 * 365 * 24 * 3600

// ParseDuration accepts Go durations ("1m30s", "500ms") and plain seconds ("30"),
// the way pgbench's -T takes seconds.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f != f || f > maxSeconds {
			return 0, fmt.Errorf("%q seconds is too long", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (use e.g. \"30s\", \"2m\" or a number of seconds)", s)
	}
	return d, nil
}

// WithDefaults returns a copy of v with every missing parameter of specs set to its default.
func WithDefaults(specs []Spec, v Values) Values {
	out := make(Values, len(specs))
	for _, s := range specs {
		if s.Default != nil {
			out[s.Name] = s.Default
		}
	}
	for k, x := range v {
		out[k] = x
	}
	return out
}

// Find returns the spec named name.
func Find(specs []Spec, name string) (Spec, bool) {
	for _, s := range specs {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

func (v Values) String(name string) string {
	s, _ := v[name].(string)
	return s
}

func (v Values) Int(name string) int64 {
	n, _ := v[name].(int64)
	return n
}

func (v Values) Float(name string) float64 {
	f, _ := v[name].(float64)
	return f
}

func (v Values) Bool(name string) bool {
	b, _ := v[name].(bool)
	return b
}

func (v Values) Duration(name string) time.Duration {
	d, _ := v[name].(time.Duration)
	return d
}

// Strings reads a StringList value: nil when not given. A value read back
// from a results file ([]any of strings) reads the same as a coerced one.
func (v Values) Strings(name string) []string {
	switch x := v[name].(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

// Only returns the values of v whose keys keys has.
func (v Values) Only(keys Values) Values {
	out := Values{}
	for k := range keys {
		if x, ok := v[k]; ok {
			out[k] = x
		}
	}
	return out
}

// Canonical renders the values as "k=v k=v" in key order: the identity of a
// parameter combination in plans, resumes and reports.
func (v Values) Canonical() string {
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(Format(v[k]))
	}
	return b.String()
}

// Format renders one normalised value the way a user would write it.
func Format(x any) string {
	switch t := x.(type) {
	case string:
		return t
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	case time.Duration:
		return t.String()
	case []string:
		return strings.Join(t, ",")
	case []any: // a list value read back from JSON
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = Format(e)
		}
		return strings.Join(parts, ",")
	case nil:
		return ""
	}
	return fmt.Sprint(x)
}

// JSONable converts durations to their string form so the values survive a JSON
// round trip without losing their meaning.
func (v Values) JSONable() map[string]any {
	out := make(map[string]any, len(v))
	for k, x := range v {
		if d, ok := x.(time.Duration); ok {
			out[k] = d.String()
		} else {
			out[k] = x
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func describe(raw any) string {
	switch raw.(type) {
	case string:
		return "a string"
	case int64, int:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", raw)
}
