package tpcb

// pgbench's expression language, as its \set meta-command reads it
// (src/bin/pgbench/exprparse.y): integers and doubles, booleans and NULL,
// :variables, the operators with pgbench's precedence, and its functions,
// evaluated with its rules (integer arithmetic that fails on overflow,
// integer division, the random family with its parameter checks and its
// error texts). A hand-written parser: no expression library has pgbench's
// integer/double semantics.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode"
)

// value is a pgbench variable's value: an integer, a double, a boolean or NULL.
type value struct {
	kind valueKind
	i    int64
	f    float64
	b    bool
}

type valueKind uint8

const (
	vNull valueKind = iota
	vInt
	vDouble
	vBool
)

func intValue(i int64) value      { return value{kind: vInt, i: i} }
func doubleValue(f float64) value { return value{kind: vDouble, f: f} }
func boolValue(b bool) value      { return value{kind: vBool, b: b} }

// arg is the value as a statement parameter.
func (v value) arg() any {
	switch v.kind {
	case vInt:
		return v.i
	case vDouble:
		return v.f
	case vBool:
		return v.b
	}
	return nil
}

func (v value) String() string {
	switch v.kind {
	case vInt:
		return strconv.FormatInt(v.i, 10)
	case vDouble:
		return strconv.FormatFloat(v.f, 'g', -1, 64)
	case vBool:
		return strconv.FormatBool(v.b)
	}
	return "NULL"
}

func (v value) toInt() (int64, error) {
	switch v.kind {
	case vInt:
		return v.i, nil
	case vDouble:
		if math.IsNaN(v.f) {
			return 0, errors.New("double to int overflow for NaN")
		}
		t := math.Trunc(v.f)
		if t < math.MinInt64 || t >= math.MaxInt64 {
			return 0, fmt.Errorf("double to int overflow for %g", v.f)
		}
		return int64(t), nil
	case vBool:
		if v.b {
			return 1, nil
		}
		return 0, nil
	}
	return 0, errors.New("cannot coerce NULL to int")
}

func (v value) toDouble() (float64, error) {
	switch v.kind {
	case vInt:
		return float64(v.i), nil
	case vDouble:
		return v.f, nil
	case vBool:
		if v.b {
			return 1, nil
		}
		return 0, nil
	}
	return 0, errors.New("cannot coerce NULL to double")
}

func (v value) toBool() (bool, error) {
	switch v.kind {
	case vInt:
		return v.i != 0, nil
	case vDouble:
		return v.f != 0, nil
	case vBool:
		return v.b, nil
	}
	return false, errors.New("cannot coerce NULL to boolean")
}

// vars are a client's variables. Names index a slice: the script's
// variables are numbered when it is parsed.
type vars struct {
	vals []value
	set  []bool
}

// env is what an expression is evaluated with.
type env struct {
	vars  *vars
	names []string // for "undefined variable" errors
	rng   *rand.Rand
}

// expr is a parsed expression.
type expr interface {
	eval(e *env) (value, error)
}

type (
	literal  struct{ v value }
	variable struct {
		name string
		slot int
	}
	unary struct {
		op string
		x  expr
	}
	binary struct {
		op   string
		l, r expr
	}
	call struct {
		fn   *function
		args []expr
	}
)

func (l literal) eval(*env) (value, error) { return l.v, nil }

func (v variable) eval(e *env) (value, error) {
	if v.slot >= len(e.vars.set) || !e.vars.set[v.slot] {
		return value{}, fmt.Errorf("undefined variable %q", v.name)
	}
	return e.vars.vals[v.slot], nil
}

func (u unary) eval(e *env) (value, error) {
	x, err := u.x.eval(e)
	if err != nil {
		return x, err
	}
	switch u.op {
	case "-":
		if x.kind == vDouble {
			return doubleValue(-x.f), nil
		}
		i, err := x.toInt()
		if err != nil {
			return x, err
		}
		if i == math.MinInt64 {
			return x, errors.New("bigint out of range")
		}
		return intValue(-i), nil
	case "not":
		b, err := x.toBool()
		return boolValue(!b), err
	case "~":
		i, err := x.toInt()
		return intValue(^i), err
	case "isnull":
		return boolValue(x.kind == vNull), nil
	case "notnull":
		return boolValue(x.kind != vNull), nil
	}
	return x, fmt.Errorf("unknown operator %s", u.op)
}

func (b binary) eval(e *env) (value, error) {
	// AND and OR evaluate their right side only when needed, as pgbench does.
	if b.op == "and" || b.op == "or" {
		l, err := b.l.eval(e)
		if err != nil {
			return l, err
		}
		lb, err := l.toBool()
		if err != nil {
			return l, err
		}
		if (b.op == "and" && !lb) || (b.op == "or" && lb) {
			return boolValue(lb), nil
		}
		r, err := b.r.eval(e)
		if err != nil {
			return r, err
		}
		rb, err := r.toBool()
		return boolValue(rb), err
	}
	l, err := b.l.eval(e)
	if err != nil {
		return l, err
	}
	r, err := b.r.eval(e)
	if err != nil {
		return r, err
	}
	return arith(b.op, l, r)
}

// arith applies a binary operator with pgbench's rules: integers stay
// integers (and fail on overflow) unless a side is a double.
func arith(op string, l, r value) (value, error) {
	ints := l.kind != vDouble && r.kind != vDouble
	switch op {
	case "+", "-", "*", "/":
		if ints {
			a, err := l.toInt()
			if err != nil {
				return value{}, err
			}
			c, err := r.toInt()
			if err != nil {
				return value{}, err
			}
			return intArith(op, a, c)
		}
		a, err := l.toDouble()
		if err != nil {
			return value{}, err
		}
		c, err := r.toDouble()
		if err != nil {
			return value{}, err
		}
		switch op {
		case "+":
			return doubleValue(a + c), nil
		case "-":
			return doubleValue(a - c), nil
		case "*":
			return doubleValue(a * c), nil
		}
		return doubleValue(a / c), nil // pgbench: a double divided by 0 is ±Infinity or NaN
	case "%", "&", "|", "#", "<<", ">>":
		a, err := l.toInt()
		if err != nil {
			return value{}, err
		}
		c, err := r.toInt()
		if err != nil {
			return value{}, err
		}
		switch op {
		case "%":
			if c == 0 {
				return value{}, errors.New("division by zero")
			}
			if c == -1 {
				return intValue(0), nil
			}
			return intValue(a % c), nil
		case "&":
			return intValue(a & c), nil
		case "|":
			return intValue(a | c), nil
		case "#":
			return intValue(a ^ c), nil
		case "<<":
			return intValue(a << (uint64(c) & 63)), nil
		}
		return intValue(a >> (uint64(c) & 63)), nil
	case "=", "<>", "<", "<=", ">", ">=":
		var cmp int
		if ints {
			a, err := l.toInt()
			if err != nil {
				return value{}, err
			}
			c, err := r.toInt()
			if err != nil {
				return value{}, err
			}
			cmp = compare(a, c)
		} else {
			a, err := l.toDouble()
			if err != nil {
				return value{}, err
			}
			c, err := r.toDouble()
			if err != nil {
				return value{}, err
			}
			cmp = compare(a, c)
		}
		switch op {
		case "=":
			return boolValue(cmp == 0), nil
		case "<>":
			return boolValue(cmp != 0), nil
		case "<":
			return boolValue(cmp < 0), nil
		case "<=":
			return boolValue(cmp <= 0), nil
		case ">":
			return boolValue(cmp > 0), nil
		}
		return boolValue(cmp >= 0), nil
	}
	return value{}, fmt.Errorf("unknown operator %s", op)
}

func compare[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func intArith(op string, a, c int64) (value, error) {
	switch op {
	case "+":
		s := a + c
		if (a >= 0) == (c >= 0) && (s >= 0) != (a >= 0) {
			return value{}, errors.New("bigint add out of range")
		}
		return intValue(s), nil
	case "-":
		s := a - c
		if (a >= 0) != (c >= 0) && (s >= 0) != (a >= 0) {
			return value{}, errors.New("bigint sub out of range")
		}
		return intValue(s), nil
	case "*":
		m := a * c
		if a != 0 && (m/a != c || (a == -1 && c == math.MinInt64)) {
			return value{}, errors.New("bigint mul out of range")
		}
		return intValue(m), nil
	}
	if c == 0 {
		return value{}, errors.New("division by zero")
	}
	if c == -1 {
		if a == math.MinInt64 {
			return value{}, errors.New("bigint out of range")
		}
		return intValue(-a), nil
	}
	return intValue(a / c), nil
}

const minInt64Digits = "9223372036854775808"

func abs64(x int64) int64 {
	if x < 0 {
		return -x // MinInt64 stays negative: intArith checks it apart
	}
	return x
}

func (c call) eval(e *env) (value, error) {
	args := make([]value, len(c.args))
	for i, a := range c.args {
		v, err := a.eval(e)
		if err != nil {
			return v, err
		}
		args[i] = v
	}
	return c.fn.apply(e, args)
}

// function is one of pgbench's functions.
type function struct {
	name      string
	min, max  int // arguments; max -1: any number
	random    bool
	apply     func(e *env, args []value) (value, error)
	supported bool
}

var functions = map[string]*function{}

func init() {
	doubleFn := func(name string, f func(float64) float64) {
		functions[name] = &function{name: name, min: 1, max: 1, supported: true, apply: func(_ *env, a []value) (value, error) {
			x, err := a[0].toDouble()
			return doubleValue(f(x)), err
		}}
	}
	doubleFn("sqrt", math.Sqrt)
	doubleFn("exp", math.Exp)
	doubleFn("ln", math.Log)
	doubleFn("double", func(x float64) float64 { return x })
	functions["abs"] = &function{name: "abs", min: 1, max: 1, supported: true, apply: func(_ *env, a []value) (value, error) {
		if a[0].kind == vDouble {
			return doubleValue(math.Abs(a[0].f)), nil
		}
		i, err := a[0].toInt()
		if err != nil {
			return value{}, err
		}
		if i == math.MinInt64 {
			return value{}, errors.New("bigint out of range")
		}
		return intValue(abs64(i)), nil
	}}
	functions["int"] = &function{name: "int", min: 1, max: 1, supported: true, apply: func(_ *env, a []value) (value, error) {
		i, err := a[0].toInt()
		return intValue(i), err
	}}
	functions["pi"] = &function{name: "pi", supported: true, apply: func(*env, []value) (value, error) { return doubleValue(math.Pi), nil }}
	pow := &function{name: "pow", min: 2, max: 2, supported: true, apply: func(_ *env, a []value) (value, error) {
		x, err := a[0].toDouble()
		if err != nil {
			return value{}, err
		}
		y, err := a[1].toDouble()
		return doubleValue(math.Pow(x, y)), err
	}}
	functions["pow"], functions["power"] = pow, pow
	functions["mod"] = &function{name: "mod", min: 2, max: 2, supported: true, apply: func(_ *env, a []value) (value, error) { return arith("%", a[0], a[1]) }}
	extreme := func(name string, want int) {
		functions[name] = &function{name: name, min: 1, max: -1, supported: true, apply: func(_ *env, a []value) (value, error) {
			best := a[0]
			for _, v := range a[1:] {
				c, err := arith(map[int]string{1: ">", -1: "<"}[want], v, best)
				if err != nil {
					return value{}, err
				}
				if c.b {
					best = v
				}
			}
			// pgbench's result is a double when any argument is.
			for _, v := range a {
				if v.kind == vDouble {
					f, err := best.toDouble()
					return doubleValue(f), err
				}
			}
			return best, nil
		}}
	}
	extreme("greatest", 1)
	extreme("least", -1)
	functions["random"] = &function{name: "random", min: 2, max: 2, random: true, supported: true, apply: func(e *env, a []value) (value, error) {
		lo, hi, err := randomRange(a)
		if err != nil {
			return value{}, err
		}
		return intValue(uniform(e.rng, lo, hi)), nil
	}}
	functions["random_exponential"] = &function{name: "random_exponential", min: 3, max: 3, random: true, supported: true, apply: func(e *env, a []value) (value, error) {
		lo, hi, p, err := randomParam(a)
		if err != nil {
			return value{}, err
		}
		if !(p > 0) {
			return value{}, fmt.Errorf("exponential parameter must be greater than zero (not %f)", p)
		}
		// pgbench's getExponentialRand.
		cut := math.Exp(-p)
		u := 1.0 - e.rng.Float64()
		r := -math.Log(cut+(1.0-cut)*u) / p
		return intValue(lo + int64(float64(hi-lo+1)*r)), nil
	}}
	functions["random_gaussian"] = &function{name: "random_gaussian", min: 3, max: 3, random: true, supported: true, apply: func(e *env, a []value) (value, error) {
		lo, hi, p, err := randomParam(a)
		if err != nil {
			return value{}, err
		}
		if !(p >= 2.0) {
			return value{}, fmt.Errorf("gaussian parameter must be at least 2.000000 (not %f)", p)
		}
		// pgbench's getGaussianRand: Box-Muller, redrawn outside ±p.
		var stdev float64
		for {
			r1 := 1.0 - e.rng.Float64()
			r2 := e.rng.Float64()
			stdev = math.Sqrt(-2.0*math.Log(r1)) * math.Sin(2.0*math.Pi*r2)
			if stdev >= -p && stdev < p {
				break
			}
		}
		r := (stdev + p) / (p * 2.0)
		return intValue(lo + int64(float64(hi-lo+1)*r)), nil
	}}
	functions["random_zipfian"] = &function{name: "random_zipfian", min: 3, max: 3, random: true, supported: true, apply: func(e *env, a []value) (value, error) {
		lo, hi, s, err := randomParam(a)
		if err != nil {
			return value{}, err
		}
		if !(s >= 1.001 && s <= 1000) {
			return value{}, fmt.Errorf("zipfian parameter must be in range [1.001, 1000] (not %f)", s)
		}
		return intValue(lo - 1 + zipfian(e.rng, hi-lo+1, s)), nil
	}}
	for _, name := range []string{"hash", "hash_fnv1a", "hash_murmur2", "permute", "debug", "random_seed"} {
		functions[name] = &function{name: name, min: 0, max: -1}
	}
}

// randomRange reads random()'s bounds, checked as pgbench checks them.
func randomRange(a []value) (lo, hi int64, err error) {
	if lo, err = a[0].toInt(); err != nil {
		return
	}
	if hi, err = a[1].toInt(); err != nil {
		return
	}
	if lo > hi {
		return 0, 0, errors.New("empty range given to random")
	}
	if d := hi - lo; d < 0 || d+1 < 0 {
		return 0, 0, errors.New("random range is too large")
	}
	return lo, hi, nil
}

func randomParam(a []value) (lo, hi int64, p float64, err error) {
	if lo, hi, err = randomRange(a); err != nil {
		return
	}
	p, err = a[2].toDouble()
	return
}

// uniform is an integer drawn uniformly from [lo, hi].
func uniform(rng *rand.Rand, lo, hi int64) int64 {
	return lo + rng.Int64N(hi-lo+1)
}

// zipfian is pgbench's computeIterativeZipfian: a value in [1, n] drawn by
// rejection (Devroye), for s > 1.
func zipfian(rng *rand.Rand, n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := math.Pow(2.0, s-1.0)
	for {
		u := 1.0 - rng.Float64() // (0, 1]: pow(0, negative) would be infinite
		v := rng.Float64()
		x := math.Floor(math.Pow(u, -1.0/(s-1.0)))
		t := math.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// Parsing.

// parser reads one expression. slot numbers a variable's name in the
// script being parsed.
type parser struct {
	src  string
	pos  int
	tok  token
	slot func(name string) int
}

type token struct {
	kind tokKind
	text string // operator, identifier (lower-cased), variable name or number
	pos  int
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tDouble
	tIdent
	tVar
	tOp
)

// parseExpr parses a whole expression; errors say at which character.
func parseExpr(src string, slot func(string) int) (expr, error) {
	p := &parser{src: src, slot: slot}
	if err := p.next(); err != nil {
		return nil, err
	}
	e, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.errorf("unexpected %q", p.tok.text)
	}
	return e, nil
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("syntax error at character %d of the expression: %s", p.tok.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) next() error {
	s := p.src
	for p.pos < len(s) && (s[p.pos] == ' ' || s[p.pos] == '\t' || s[p.pos] == '\r' || s[p.pos] == '\n' || s[p.pos] == '\f' || s[p.pos] == '\v') {
		p.pos++
	}
	start := p.pos
	p.tok = token{pos: start}
	if p.pos >= len(s) {
		p.tok.kind = tEOF
		return nil
	}
	c := s[p.pos]
	switch {
	case c >= '0' && c <= '9' || c == '.' && p.pos+1 < len(s) && s[p.pos+1] >= '0' && s[p.pos+1] <= '9':
		for p.pos < len(s) && s[p.pos] >= '0' && s[p.pos] <= '9' {
			p.pos++
		}
		double := false
		if p.pos < len(s) && s[p.pos] == '.' {
			double = true
			p.pos++
			for p.pos < len(s) && s[p.pos] >= '0' && s[p.pos] <= '9' {
				p.pos++
			}
		}
		if p.pos < len(s) && (s[p.pos] == 'e' || s[p.pos] == 'E') {
			q := p.pos + 1
			if q < len(s) && (s[q] == '+' || s[q] == '-') {
				q++
			}
			if q < len(s) && s[q] >= '0' && s[q] <= '9' {
				double = true
				p.pos = q
				for p.pos < len(s) && s[p.pos] >= '0' && s[p.pos] <= '9' {
					p.pos++
				}
			}
		}
		p.tok.text = s[start:p.pos]
		p.tok.kind = tInt
		if double {
			p.tok.kind = tDouble
		}
		return nil
	case c == ':':
		p.pos++
		for p.pos < len(s) && isNameByte(s[p.pos]) {
			p.pos++
		}
		if p.pos == start+1 {
			p.tok.text = ":"
			return p.errorf("a variable name must follow ':'")
		}
		p.tok.kind, p.tok.text = tVar, s[start+1:p.pos]
		return nil
	case isNameByte(c):
		for p.pos < len(s) && isNameByte(s[p.pos]) {
			p.pos++
		}
		p.tok.kind, p.tok.text = tIdent, strings.ToLower(s[start:p.pos])
		return nil
	}
	for _, op := range []string{"<>", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "(", ")", ",", "<", ">", "=", "&", "|", "#", "~"} {
		if strings.HasPrefix(s[p.pos:], op) {
			p.pos += len(op)
			if op == "!=" {
				op = "<>"
			}
			p.tok.kind, p.tok.text = tOp, op
			return nil
		}
	}
	r := []rune(s[p.pos:])[0]
	p.tok.text = string(r)
	if !unicode.IsPrint(r) {
		p.tok.text = fmt.Sprintf("%U", r)
	}
	return p.errorf("unexpected character %q", p.tok.text)
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *parser) isOp(ops ...string) (string, bool) {
	if p.tok.kind != tOp && p.tok.kind != tIdent {
		return "", false
	}
	for _, o := range ops {
		if p.tok.text == o {
			return o, true
		}
	}
	return "", false
}

// The grammar, lowest precedence first, as exprparse.y declares it.
func (p *parser) or() (expr, error)  { return p.leftAssoc(p.and, "or") }
func (p *parser) and() (expr, error) { return p.leftAssoc(p.not, "and") }

func (p *parser) not() (expr, error) {
	if _, ok := p.isOp("not"); ok {
		if err := p.next(); err != nil {
			return nil, err
		}
		x, err := p.not()
		if err != nil {
			return nil, err
		}
		return unary{op: "not", x: x}, nil
	}
	return p.isNull()
}

func (p *parser) isNull() (expr, error) {
	x, err := p.comparison()
	if err != nil {
		return nil, err
	}
	switch op, _ := p.isOp("is", "isnull", "notnull"); op {
	case "isnull", "notnull":
		return unary{op: op, x: x}, p.next()
	case "is":
		if err := p.next(); err != nil {
			return nil, err
		}
		neg := false
		if _, ok := p.isOp("not"); ok {
			neg = true
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		if _, ok := p.isOp("null"); !ok {
			return nil, p.errorf("IS must be followed by [NOT] NULL")
		}
		if neg {
			return unary{op: "notnull", x: x}, p.next()
		}
		return unary{op: "isnull", x: x}, p.next()
	}
	return x, nil
}

func (p *parser) comparison() (expr, error) {
	l, err := p.bitwise()
	if err != nil {
		return nil, err
	}
	if op, ok := p.isOp("=", "<>", "<", "<=", ">", ">="); ok {
		if err := p.next(); err != nil {
			return nil, err
		}
		r, err := p.bitwise()
		if err != nil {
			return nil, err
		}
		return binary{op: op, l: l, r: r}, nil
	}
	return l, nil
}

func (p *parser) bitwise() (expr, error) { return p.leftAssoc(p.additive, "|", "#", "&", "<<", ">>") }
func (p *parser) additive() (expr, error) {
	return p.leftAssoc(p.multiplicative, "+", "-")
}
func (p *parser) multiplicative() (expr, error) { return p.leftAssoc(p.unary, "*", "/", "%") }

func (p *parser) leftAssoc(operand func() (expr, error), ops ...string) (expr, error) {
	l, err := operand()
	if err != nil {
		return nil, err
	}
	for {
		op, ok := p.isOp(ops...)
		if !ok {
			return l, nil
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		r, err := operand()
		if err != nil {
			return nil, err
		}
		l = binary{op: op, l: l, r: r}
	}
}

func (p *parser) unary() (expr, error) {
	if op, ok := p.isOp("-", "+", "~"); ok {
		if err := p.next(); err != nil {
			return nil, err
		}
		// The one integer beyond int64's range, 9223372036854775808, is
		// read after a minus sign: -9223372036854775808 is int64's least.
		if op == "-" && p.tok.kind == tInt && p.tok.text == minInt64Digits {
			return literal{intValue(math.MinInt64)}, p.next()
		}
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		if op == "+" {
			return x, nil
		}
		return unary{op: op, x: x}, nil
	}
	return p.primary()
}

func (p *parser) primary() (expr, error) {
	t := p.tok
	switch t.kind {
	case tInt:
		i, err := strconv.ParseInt(t.text, 10, 64)
		if err != nil {
			return nil, p.errorf("bigint constant %s out of range", t.text)
		}
		return literal{intValue(i)}, p.next()
	case tDouble:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, p.errorf("double constant %s out of range", t.text)
		}
		return literal{doubleValue(f)}, p.next()
	case tVar:
		return variable{name: t.text, slot: p.slot(t.text)}, p.next()
	case tIdent:
		switch t.text {
		case "true", "false":
			return literal{boolValue(t.text == "true")}, p.next()
		case "null":
			return literal{value{}}, p.next()
		case "case":
			return nil, p.errorf("CASE is not supported by fairbench's pgbench scripts: write the choice with least/greatest or separate scripts")
		}
		if err := p.next(); err != nil {
			return nil, err
		}
		if _, ok := p.isOp("("); !ok {
			return nil, p.errorf("unexpected word %q (variables are written :%s)", t.text, t.text)
		}
		return p.call(t)
	case tOp:
		if t.text == "(" {
			if err := p.next(); err != nil {
				return nil, err
			}
			x, err := p.or()
			if err != nil {
				return nil, err
			}
			if _, ok := p.isOp(")"); !ok {
				return nil, p.errorf("missing ')'")
			}
			return x, p.next()
		}
		return nil, p.errorf("unexpected %q", t.text)
	}
	return nil, p.errorf("unexpected end of expression")
}

func (p *parser) call(name token) (expr, error) {
	fn, ok := functions[name.text]
	if !ok {
		p.tok = name
		return nil, p.errorf("unknown function %q", name.text)
	}
	if !fn.supported {
		p.tok = name
		return nil, p.errorf("function %s is pgbench's but not supported by fairbench", name.text)
	}
	if err := p.next(); err != nil { // past "("
		return nil, err
	}
	var args []expr
	if _, ok := p.isOp(")"); !ok {
		for {
			a, err := p.or()
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			if len(args) > 1000 {
				return nil, p.errorf("too many arguments")
			}
			if _, ok := p.isOp(","); !ok {
				break
			}
			if err := p.next(); err != nil {
				return nil, err
			}
		}
		if _, ok := p.isOp(")"); !ok {
			return nil, p.errorf("missing ')' after the arguments of %s", fn.name)
		}
	}
	if len(args) < fn.min || (fn.max >= 0 && len(args) > fn.max) {
		p.tok = name
		want := strconv.Itoa(fn.min)
		if fn.max < 0 {
			want = "at least " + want
		} else if fn.max != fn.min {
			want = fmt.Sprintf("%d to %d", fn.min, fn.max)
		}
		return nil, p.errorf("%s takes %s arguments, not %d", fn.name, want, len(args))
	}
	return call{fn: fn, args: args}, p.next()
}

// constant reports whether e depends on neither a variable nor a random draw:
// its value, or its error, is then known before anything runs.
func constant(e expr) bool {
	switch x := e.(type) {
	case literal:
		return true
	case variable:
		return false
	case unary:
		return constant(x.x)
	case binary:
		return constant(x.l) && constant(x.r)
	case call:
		if x.fn.random {
			return false
		}
		for _, a := range x.args {
			if !constant(a) {
				return false
			}
		}
		return true
	}
	return false
}

// variablesOf lists the variables e reads.
func variablesOf(e expr, out []variable) []variable {
	switch x := e.(type) {
	case variable:
		out = append(out, x)
	case unary:
		out = variablesOf(x.x, out)
	case binary:
		out = variablesOf(x.r, variablesOf(x.l, out))
	case call:
		for _, a := range x.args {
			out = variablesOf(a, out)
		}
	}
	return out
}
