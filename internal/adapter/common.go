package adapter

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/fairbench/fairbench/internal/hist"
	"github.com/fairbench/fairbench/internal/result"
)

// ParseError locates where a parse stopped.
type ParseError struct {
	File string
	Line int // 1-based; 0 when the problem is the file as a whole (something missing)
	Msg  string
	// cause, when set, is what located the problem (errJSONDecoder).
	cause error
}

func (e *ParseError) Unwrap() error { return e.cause }

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// lines walks a text line by line, keeping the line number for errors.
// Carriage returns count as line breaks: redis-benchmark redraws its progress
// with \r, and files saved on Windows end lines with \r\n.
type lines struct {
	file string
	ls   []string
	no   []int // the file line each entry came from
	i    int   // index of the next line
	text string
	// bad is the first number that did not parse or lay outside its domain,
	// kept even where a parser reads on, so that checked refuses the file.
	bad error
	// stream, when set, is where the lines come from instead of ls: a
	// parser of a long output (pgbench's, a progress line per second) reads
	// it line by line, holding only the line being read (see streamLines).
	stream *lineStream
}

// lineStream is the state of lines read from a reader: its current file
// line split at carriage returns, and what missing needs of the lines gone by.
type lineStream struct {
	sc      *bufio.Scanner
	no      int      // the file line the scanner is on
	pending []string // the parts of line no not returned yet
	lastNo  int      // the file line of the line last returned
	// end is the line missing names: the last non-blank line's, or the one
	// before the first of the blank lines that end the text.
	end        int
	afterBlank bool
	// err is why reading stopped before the end: it, not what the parser
	// missed, is what checked reports.
	err error
}

// maxLine bounds one line of a streamed output: pgbench's longest are its
// statement lines, a script's command; a longer line is no tool's output.
const maxLine = 1 << 20

// streamLines reads the lines of file from r as they are asked for, so that
// memory does not grow with the length of the output.
func streamLines(file string, r io.Reader) *lines {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	sc.Split(scanFileLines())
	return &lines{file: file, stream: &lineStream{sc: sc}}
}

// scanFileLines returns a split function that splits at line breaks as
// strings.Split(text, "\n") does: carriage returns are kept (lines splits at
// them), and a text that ends with a line break, or is empty, ends with an
// empty line.
func scanFileLines() bufio.SplitFunc {
	afterBreak := true // at the start of the text, or just after a line break
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			afterBreak = true
			return i + 1, data[:i], nil
		}
		switch {
		case !atEOF:
			return 0, nil, nil
		case len(data) > 0:
			afterBreak = false
			return len(data), data, nil
		case afterBreak:
			return 0, []byte{}, bufio.ErrFinalToken
		}
		return 0, nil, nil
	}
}

// fill makes a part of a line pending, reading the next line when none is;
// false at the end of the text, or at a read error, kept in err.
func (l *lines) fill() bool {
	s := l.stream
	for len(s.pending) == 0 {
		if !s.sc.Scan() {
			if err := s.sc.Err(); err != nil && s.err == nil {
				s.err = &ParseError{File: l.file, Line: s.no + 1, Msg: fmt.Sprintf("unreadable: %v (lines of up to %d KiB are read)", err, maxLine>>10)}
			}
			return false
		}
		s.no++
		s.pending = strings.Split(s.sc.Text(), "\r")
	}
	return true
}

// nextStreamed is next for a streamed text.
func (l *lines) nextStreamed() (string, bool) {
	s := l.stream
	if !l.fill() {
		return "", false
	}
	part := s.pending[0]
	s.pending = s.pending[1:]
	s.lastNo = s.no
	if strings.TrimSpace(part) != "" {
		s.end, s.afterBlank = s.no, false
	} else if !s.afterBlank {
		s.end, s.afterBlank = s.no-1, true
	}
	return part, true
}

// streamed is a ParseReader of a parser that reads its output line by line
// and nothing of it whole: it reads the lines from the reader as it asks
// for them.
func streamed(parse func(*lines) ([]*result.Run, error)) func(string, io.Reader) ([]*result.Run, error) {
	return func(name string, r io.Reader) ([]*result.Run, error) {
		return checked(streamLines(name, r), parse)
	}
}

// checked runs a parser over l and refuses its result when any number it
// read was unreadable or out of its domain.
func checked(l *lines, parse func(*lines) ([]*result.Run, error)) ([]*result.Run, error) {
	runs, err := parse(l)
	if l.stream != nil && l.stream.err != nil {
		return nil, l.stream.err
	}
	if err != nil {
		return nil, err
	}
	if l.bad != nil {
		return nil, l.bad
	}
	return runs, nil
}

func newLines(file, text string) *lines {
	l := &lines{file: file, text: text}
	for n, line := range strings.Split(text, "\n") {
		for _, part := range strings.Split(line, "\r") {
			l.ls = append(l.ls, part)
			l.no = append(l.no, n+1)
		}
	}
	return l
}

// next returns the next line and true, or "" and false at the end.
func (l *lines) next() (string, bool) {
	if l.stream != nil {
		return l.nextStreamed()
	}
	if l.i >= len(l.ls) {
		return "", false
	}
	l.i++
	return l.ls[l.i-1], true
}

// peek returns the next line without consuming it.
// trimmed yields the remaining lines with surrounding space removed, advancing
// like next, so errors still name the line being read.
func (l *lines) trimmed() iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			line, ok := l.next()
			if !ok || !yield(strings.TrimSpace(line)) {
				return
			}
		}
	}
}

func (l *lines) peek() (string, bool) {
	if l.stream != nil {
		if !l.fill() {
			return "", false
		}
		return l.stream.pending[0], true
	}
	if l.i >= len(l.ls) {
		return "", false
	}
	return l.ls[l.i], true
}

// line is the file line number of the line last returned by next.
func (l *lines) line() int {
	if l.stream != nil {
		return l.stream.lastNo
	}
	if l.i == 0 {
		return 0
	}
	return l.no[l.i-1]
}

// errorf reports a problem at the line last read.
func (l *lines) errorf(format string, args ...any) error {
	return &ParseError{File: l.file, Line: l.line(), Msg: fmt.Sprintf(format, args...)}
}

// badf is errorf for a value out of its domain: also kept in l.bad, so that
// the file is refused even where a parser ignores the error and reads on.
func (l *lines) badf(format string, args ...any) error {
	err := l.errorf(format, args...)
	if l.bad == nil {
		l.bad = err
	}
	return err
}

// missing reports that the file ended (or stopped making sense) before
// something required appeared; the line is the last one read.
func (l *lines) missing(what string) error {
	last := 0
	if l.stream != nil {
		// The lines not read yet, if any, count as read: missing is
		// called at the end of a parse.
		for _, ok := l.next(); ok; _, ok = l.next() {
		}
		last = l.stream.end
	} else if len(l.no) > 0 {
		last = l.no[len(l.no)-1]
		// Trailing empty lines are not where parsing stopped.
		for i := len(l.ls) - 1; i >= 0 && strings.TrimSpace(l.ls[i]) == ""; i-- {
			last = l.no[i] - 1
		}
	}
	if last < 1 {
		return &ParseError{File: l.file, Msg: "no " + what + ": the output is empty or truncated"}
	}
	return &ParseError{File: l.file, Line: last, Msg: "no " + what + " before the end of the file: the output is truncated or incomplete"}
}

// maxPlausible bounds every number a tool prints: counts, rates, latencies,
// sizes and durations all stay far below it (10^15 operations per second or
// microseconds is 31 years), so a larger one is damage, not a measurement.
const maxPlausible = 1e15

// num parses a number of the tool's output: finite, not negative (counts,
// rates, latencies, sizes and durations never are) and plausible, with an
// error located at the current line.
func (l *lines) num(s, what string) (float64, error) {
	f, err := l.signed(s, what)
	if err == nil && f < 0 {
		return 0, l.badf("%s: %s is negative", what, strings.TrimSpace(s))
	}
	return f, err
}

// signed is num for the few values a tool may print below zero.
func (l *lines) signed(s, what string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, l.badf("%s: %q is not a number", what, s)
	}
	if math.Abs(f) > maxPlausible {
		return 0, l.badf("%s: %s is out of range (at most %g)", what, strings.TrimSpace(s), float64(maxPlausible))
	}
	return f, nil
}

// integer parses a count, not negative and plausible, with an error located
// at the current line.
func (l *lines) integer(s, what string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, l.badf("%s: %q is not an integer", what, s)
	}
	if n < 0 {
		return 0, l.badf("%s: %d is negative", what, n)
	}
	if float64(n) > maxPlausible {
		return 0, l.badf("%s: %d is out of range (at most %g)", what, n, float64(maxPlausible))
	}
	return n, nil
}

// match applies re to s and returns the submatches, or nil.
func match(re *regexp.Regexp, s string) []string { return re.FindStringSubmatch(s) }

// --- histograms -----------------------------------------------------------

// usValue clamps a latency in µs into the histogram's range.
func usValue(us float64) int64 {
	v := int64(math.Round(us))
	if v < 0 {
		return 0
	}
	if v > hist.Highest {
		return hist.Highest
	}
	return v
}

// bucket is a number of latencies at (or, for a tool's bucket, up to) a value.
type bucket struct {
	us    float64
	count int64
}

// histFromBuckets builds a histogram from a tool's own buckets: each bucket's
// count is recorded at its value. Exact up to the tool's bucket width.
func histFromBuckets(bs []bucket) *hdr.Histogram {
	h := hist.New()
	for _, b := range bs {
		if b.count > 0 {
			_ = h.RecordValues(usValue(b.us), b.count)
		}
	}
	return h
}

// histFromCumulative builds a histogram from (value, cumulative count) points,
// as redis-benchmark prints them: the operations counted between two points
// are recorded at the upper one, which is what "<= value" says about them.
func histFromCumulative(pts []bucket) *hdr.Histogram {
	sort.SliceStable(pts, func(i, j int) bool {
		if pts[i].us != pts[j].us {
			return pts[i].us < pts[j].us
		}
		return pts[i].count < pts[j].count
	})
	var bs []bucket
	var prev int64
	for _, p := range pts {
		if p.count > prev {
			bs = append(bs, bucket{p.us, p.count - prev})
			prev = p.count
		}
	}
	return histFromBuckets(bs)
}

// quantile is a tool-reported percentile: q in percent, value in µs.
type quantile struct {
	q  float64
	us float64
}

// histFromPercentiles reconstructs a histogram of count operations from the
// percentiles a tool printed: the operations between two printed percentiles
// are recorded at the upper one's value, so every printed percentile reads
// back from the histogram as printed (to 3 significant digits); the minimum
// and maximum, when known (> 0), are recorded once each. Values between
// printed percentiles are unknown and therefore rounded up: the caller must
// say in the run's deviations that the histogram is reconstructed.
func histFromPercentiles(qs []quantile, count int64, minUs, maxUs float64) *hdr.Histogram {
	h := hist.New()
	if count <= 0 {
		return h
	}
	qs = append([]quantile(nil), qs...)
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].q < qs[j].q })
	var done int64 // operations recorded so far, lowest first
	if minUs > 0 {
		_ = h.RecordValue(usValue(minUs))
		done++
	}
	limit := count // operations left for the percentiles
	if maxUs > 0 && count-done > 1 {
		limit--
	}
	for _, q := range qs {
		// The rank HdrHistogram reads the q-th percentile at is at most
		// ceil(count·q/100), so filling up to there reads back q.us.
		upto := min(int64(math.Ceil(float64(count)*math.Min(q.q, 100)/100)), limit)
		if n := upto - done; n > 0 {
			_ = h.RecordValues(usValue(q.us), n)
			done = upto
		}
	}
	if left := limit - done; left > 0 {
		// Above the highest printed percentile: at the maximum when known.
		top := maxUs
		if top <= 0 && len(qs) > 0 {
			top = qs[len(qs)-1].us
		}
		_ = h.RecordValues(usValue(top), left)
		done = limit
	}
	if done < count {
		_ = h.RecordValues(usValue(maxUs), count-done)
	}
	return h
}

// encode serialises a histogram for result.Op; an empty one is stored as nil
// so that readers do not mistake it for a distribution of zeros.
func encode(h *hdr.Histogram) []byte {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	b, err := hist.Encode(h)
	if err != nil {
		return nil
	}
	return b
}

// fillFromHist sets the summary's percentiles from h.
func fillFromHist(s *result.Summary, h *hdr.Histogram) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	s.P50 = float64(h.ValueAtQuantile(50))
	s.P95 = float64(h.ValueAtQuantile(95))
	s.P99 = float64(h.ValueAtQuantile(99))
	s.Max = float64(h.Max())
}

const reconstructedNote = "latency histogram reconstructed from the percentiles the tool printed: the printed percentiles read back exactly (3 significant digits), values between two of them are rounded up to the higher one"

// clip shortens a line quoted in an error to what a reader needs to find it.
func clip(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}

// --- command lines ---------------------------------------------------------

func secs(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.Itoa(s)
}

// hostPort splits a URL's host, leaving the port empty when not given.
func hostPort(u *url.URL) (string, string) { return u.Hostname(), u.Port() }

// cellURLParams refuses a target URL parameter a tool cell cannot pass on,
// naming it and the ones the cell understands.
func cellURLParams(tool string, q url.Values, known map[string]string) error {
	for k := range q {
		if _, ok := known[k]; !ok {
			keys := make([]string, 0, len(known))
			for k := range known {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return fmt.Errorf("target URL parameter %q: %s cells understand %s", k, tool, strings.Join(keys, ", "))
		}
	}
	return nil
}

// lineRule is one entry of a table-driven parser: which lines it reads and
// what reading one does. A rule reads a line that starts with prefix (when
// set), is exact (when set), is admitted by when (when set) and matches re
// (when set); handle gets the whole line as m[0], and re's submatches after
// it.
type lineRule[P any] struct {
	prefix, exact string
	when          func(p P, line string) bool
	re            *regexp.Regexp
	handle        func(p P, m []string) error
}

// applyRules hands line to the first of rules that reads it; read is false
// when none does.
func applyRules[P any](rules []lineRule[P], p P, line string) (read bool, err error) {
	for _, r := range rules {
		if (r.prefix != "" && !strings.HasPrefix(line, r.prefix)) || (r.exact != "" && line != r.exact) ||
			(r.when != nil && !r.when(p, line)) {
			continue
		}
		m := []string{line}
		if r.re != nil {
			if m = r.re.FindStringSubmatch(line); m == nil {
				continue
			}
			m[0] = line
		}
		return true, r.handle(p, m)
	}
	return false, nil
}

// applyAll hands each remaining line, trimmed, to the first of rules that
// reads it, and refuses a line none reads: unexpected says what it is.
func applyAll[P any](l *lines, rules []lineRule[P], p P, unexpected string) error {
	for t := range l.trimmed() {
		read, err := applyRules(rules, p, t)
		if err != nil {
			return err
		}
		if !read {
			return l.errorf("%s", unexpected)
		}
	}
	return nil
}

// skipLine is the handler of a rule for a line that carries nothing to keep.
func skipLine[P any](P, []string) error { return nil }

// mysqlTLS is what a mysql:// target's tls and ssl-ca keys ask of a tool
// linked with the MySQL or MariaDB client library, as fairbench's MySQL
// driver reads them: off (the default), preferred, skip-verify, or verify
// (against ca, or the system's roots when ca is "").
type mysqlTLS struct {
	mode string
	ca   string
}

func mysqlTLSOf(tool string, q url.Values) (mysqlTLS, error) {
	t := mysqlTLS{ca: q.Get("ssl-ca")}
	switch v := strings.ToLower(q.Get("tls")); v {
	case "", "false", "0", "disabled":
		t.mode = "off"
	case "preferred":
		t.mode = "preferred"
	case "skip-verify", "required":
		t.mode = "skip-verify"
	case "true", "1", "verify", "verify-full", "verify_identity":
		t.mode = "verify"
	default:
		return mysqlTLS{}, fmt.Errorf("target URL: tls=%s: %s cells understand false, preferred, skip-verify and verify", q.Get("tls"), tool)
	}
	if t.ca != "" && t.mode != "verify" {
		return mysqlTLS{}, fmt.Errorf("target URL: ssl-ca needs tls=verify")
	}
	return t, nil
}

// finiteFloats parses each of ss as a finite number; ok is false when one
// is not (a live progress line is then no reading).
func finiteFloats(ss ...string) (fs []float64, ok bool) {
	fs = make([]float64, len(ss))
	for i, v := range ss {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		fs[i] = f
	}
	return fs, true
}
