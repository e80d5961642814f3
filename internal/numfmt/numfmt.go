// Package numfmt reads and writes numbers the way every fairbench report shows
// them, so that a report section owned by a workload or an adapter prints a
// number exactly as the report around it does.
package numfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Rate formats f with one decimal and comma thousands separators: 12,345.6.
// A rate that one decimal would show as 0.0 but is not zero (a query set's
// few slow tries per second on a busy machine) keeps two significant digits
// instead, 0.012, since a table of rates must not print a measured rate as none.
func Rate(f float64) string {
	if f != 0 && math.Abs(f) < 0.05 {
		return Significant(f, 2)
	}
	if huge(f) {
		return exponent(f)
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	return grouped(intPart) + "." + frac
}

// Whole formats n with comma thousands separators: 12,345.
func Whole(n int64) string { return grouped(strconv.FormatInt(n, 10)) }

// grouped puts comma thousands separators into the integer digits s.
func grouped(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// huge reports whether f is past 10^15, where a float's 15–17 significant
// digits run out: written in full, its digits would be noise (a results
// file's 1.8e308 tps printed 309 digits and blew its table apart).
func huge(f float64) bool { return math.Abs(f) >= 1e15 }

// tiny reports whether f is nonzero and below 10^-9 (a picosecond in ms),
// where its zeros would outnumber any table's width (5e-324 is 324 of them).
func tiny(f float64) bool { return f != 0 && math.Abs(f) < 1e-9 }

// exponent writes f with three significant digits and an exponent: 1.80e+308.
func exponent(f float64) string { return strconv.FormatFloat(f, 'e', 2, 64) }

// Fixed writes f with the given decimals, as strconv's 'f' does, but past
// 10^15 (huge) with an exponent: a table's cell stays a table's cell.
func Fixed(f float64, decimals int) string {
	if huge(f) && !math.IsInf(f, 0) {
		return exponent(f)
	}
	return strconv.FormatFloat(f, 'f', decimals, 64)
}

// Significant formats f with n significant digits and no exponent, so that
// a small time never reads as zero: 0.0634, 0.000512, 1.23, 123, 12346. A
// whole number keeps its integer digits (12345.6 with 3 digits is 12346).
func Significant(f float64, n int) string {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	if huge(f) || tiny(f) {
		return exponent(f)
	}
	if math.Abs(f) >= math.Pow(10, float64(n)) {
		return strconv.FormatFloat(f, 'f', 0, 64)
	}
	// The digits come from rounding to n significant digits first, so that
	// 0.09996 reads 0.100 (three digits), not 0.1000.
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', n, 64), 64)
	decimals := n - 1 - int(math.Floor(math.Log10(math.Abs(r))))
	return strconv.FormatFloat(r, 'f', max(decimals, 0), 64)
}

// Number reads a number from a run's environment or parameters, whichever type
// a JSON round trip or a parser left it as; 0 when it is not a number.
func Number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case float32:
		return float64(x)
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case uint64:
		return float64(x)
	case string:
		var f float64
		if _, err := fmt.Sscan(x, &f); err == nil {
			return f
		}
	}
	return 0
}

// Plural returns one when n is 1, else many ("run" or "runs").
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count writes n with its noun in the right number: "1 run", "3 runs".
func Count(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Plural(n, one, many)
}

// BytesIEC writes a size in binary units: "1.5 GiB", "128 MiB", "64 KiB".
func BytesIEC(b float64) string {
	switch {
	case b >= 1<<30:
		return strconv.FormatFloat(b/(1<<30), 'f', 1, 64) + " GiB"
	case b >= 1<<20:
		return strconv.FormatFloat(b/(1<<20), 'f', 0, 64) + " MiB"
	default:
		return strconv.FormatFloat(b/(1<<10), 'f', 0, 64) + " KiB"
	}
}
