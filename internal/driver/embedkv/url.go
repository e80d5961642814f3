package embedkv

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Option is one query key of an engine's URL, setting a field of its
// configuration C.
type Option[C any] struct {
	// Name is the key's canonical name, the engine's own for the option so
	// that its documentation explains it; matching ignores case, '_' and '-'
	// (page_size is pagesize).
	Name string
	// Wants is what the key accepts, for errors: "true or false".
	Wants string
	// Set sets the value in *c and reports whether it is valid.
	Set func(c *C, v string) bool
}

// URL is the syntax of an engine's URLs: SCHEME:PATH[?option=value&...], also
// SCHEME://PATH and SCHEME:///abs/PATH, PATH relative to the working
// directory unless absolute.
type URL[C any] struct {
	Scheme  string      // "bbolt", without the colon: it names the engine in errors
	Path    string      // what PATH names, for errors: "database file"
	Example string      // a PATH for errors: "bench.bbolt"
	Options []Option[C] // the query keys
}

// Parse parses raw: it sets the options raw gives in *cfg, which holds the
// defaults, and returns its PATH and the options given (canonical name → key
// as written), for rules between options. Unknown keys, keys given twice
// (under any spelling) and invalid values are errors.
func (u *URL[C]) Parse(raw string, cfg *C) (path string, given map[string]string, err error) {
	if i := strings.IndexByte(raw, 0); i >= 0 {
		return "", nil, fmt.Errorf("%s URL %q has a NUL byte after it (offset %d): a file name cannot hold one", u.Scheme, driver.Redacted(raw[:i]), i)
	}
	scheme := u.Scheme + ":"
	if len(raw) < len(scheme) || !strings.EqualFold(raw[:len(scheme)], scheme) {
		return "", nil, fmt.Errorf("%q is not a %s URL", driver.Redacted(raw), scheme)
	}
	rest := strings.TrimPrefix(raw[len(scheme):], "//")
	path, query, _ := strings.Cut(rest, "?")
	if path == "" {
		return "", nil, fmt.Errorf("%q names no %s: use e.g. %s%s", raw, u.Path, scheme, u.Example)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return "", nil, fmt.Errorf("%q: bad query string: %v", raw, err)
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	given = map[string]string{}
	for _, k := range keys {
		var opt *Option[C]
		for i := range u.Options {
			if normalize(u.Options[i].Name) == normalize(k) {
				opt = &u.Options[i]
			}
		}
		if opt == nil {
			return "", nil, fmt.Errorf("%s URL parameter %q is not an option (valid: %s)", u.Scheme, k, u.optionNames())
		}
		if prev, dup := given[opt.Name]; dup || len(q[k]) > 1 {
			if !dup {
				prev = k
			}
			return "", nil, fmt.Errorf("%s URL parameter %s is given more than once (as %s and %s): give it once", u.Scheme, opt.Name, prev, k)
		}
		given[opt.Name] = k
		if v := q.Get(k); !opt.Set(cfg, v) {
			return "", nil, fmt.Errorf("%s URL parameter %s=%q is not a valid value: use %s", u.Scheme, k, v, opt.Wants)
		}
	}
	return path, given, nil
}

func (u *URL[C]) optionNames() string {
	names := make([]string, len(u.Options))
	for i, o := range u.Options {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

func normalize(k string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
}

// BoolWords is what ParseBool accepts, for Option.Wants.
const BoolWords = "true or false"

// ParseBool sets *dst from v (true, 1, yes, on; false, 0, no, off; in any
// case) and reports whether v is one of those.
func ParseBool(v string, dst *bool) bool {
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on":
		*dst = true
	case "false", "0", "no", "off":
		*dst = false
	default:
		return false
	}
	return true
}

// SizeWords is what ParseSize accepts, for Option.Wants.
const SizeWords = "a size in bytes (a number, or with KiB, MiB, GiB)"

// ParseSize reads bytes: a non-negative integer, or one with a binary unit
// (KiB, MiB, GiB, in any case), up to 1 TiB.
func ParseSize(v string) (int64, bool) {
	mult := int64(1)
	lv := strings.ToLower(v)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}} {
		if s, ok := strings.CutSuffix(lv, u.suffix); ok {
			lv, mult = s, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(lv, 10, 64)
	if err != nil || n < 0 || n > (1<<40)/mult {
		return 0, false
	}
	return n * mult, true
}
