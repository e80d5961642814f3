package embedkv

// The Redis semantics the embedded engines answer with, so that a study
// comparing one with a Redis server runs the same commands and reads the same
// replies and error texts. The conformance test (internal/testenv/kvtest)
// checks them through each driver.

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// Op is a decoded command.
type Op uint8

// The commands the engines answer.
const (
	opBad Op = iota // answered without the engine: unknown command, wrong arity
	opGet           // reads
	OpSet           // writes, from here on
	OpIncr
	OpDel
)

// writes reports whether the command changes the database.
func (o Op) writes() bool { return o >= OpSet }

// replyError is an error reply, in Redis's words, so that a study comparing
// an embedded engine with a Redis server reads the same error texts.
type replyError string

func (e replyError) Error() string { return string(e) }

const (
	errNotInteger replyError = "ERR value is not an integer or out of range"
	errOverflow   replyError = "ERR increment or decrement would overflow"
	errSetOptions replyError = "ERR syntax error: SET options (EX, PX, NX, XX, ...) are not supported by this embedded engine"
)

// engineError words an error the engine returned for one command as an
// error reply: "ERR bbolt: ..." (an error reply already in Redis's words
// stays as it is).
func engineError(engine string, err error) error {
	var re replyError
	if errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("ERR %s: %w", engine, err)
}

func wrongArity(name string) error {
	return replyError("ERR wrong number of arguments for '" + strings.ToLower(name) + "' command")
}

func unknownCommand(name string) error {
	if len(name) > 128 {
		name = name[:128]
	}
	return replyError("ERR unknown command '" + name + "': this embedded engine answers GET, SET, INCR and DEL")
}

// NArgs is how many arguments follow the command's name, as a Redis client
// sends them: the key, the value when it is not nil, then Args. DEL k1 k2 may
// thus carry k2 as Value or as Args[0].
func NArgs(c *driver.KVCommand) int {
	n := 1 + len(c.Args)
	if c.Value != nil {
		n++
	}
	return n
}

// Arg returns argument i, 0 being the key.
func Arg(c *driver.KVCommand, i int) []byte {
	if i == 0 {
		return c.Key
	}
	if c.Value != nil {
		if i == 1 {
			return c.Value
		}
		i--
	}
	return c.Args[i-1]
}

// decode names the command's kind, or the error reply Redis would give
// before executing it. Names are case-insensitive, as in Redis.
func decode(c *driver.KVCommand) (Op, error) {
	n := NArgs(c)
	switch {
	case strings.EqualFold(c.Name, "GET"):
		if n != 1 {
			return opBad, wrongArity(c.Name)
		}
		return opGet, nil
	case strings.EqualFold(c.Name, "SET"):
		if n < 2 {
			return opBad, wrongArity(c.Name)
		}
		if n > 2 {
			return opBad, errSetOptions
		}
		return OpSet, nil
	case strings.EqualFold(c.Name, "INCR"):
		if n != 1 {
			return opBad, wrongArity(c.Name)
		}
		return OpIncr, nil
	case strings.EqualFold(c.Name, "DEL"):
		return OpDel, nil
	}
	return opBad, unknownCommand(c.Name)
}

// bytesIn is what the command carries: its key, value and further arguments
// (a Redis client would add the name and RESP framing, which no embedded
// engine sees).
func bytesIn(c *driver.KVCommand) int64 {
	n := len(c.Key) + len(c.Value)
	for _, a := range c.Args {
		n += len(a)
	}
	return int64(n)
}

// Incr is INCR's arithmetic on the stored value (present false: absent, which
// counts as 0).
func Incr(old []byte, present bool) (int64, error) {
	if !present {
		return 1, nil
	}
	n, ok := parseInt(old)
	if !ok {
		return 0, errNotInteger
	}
	if n == math.MaxInt64 {
		return 0, errOverflow
	}
	return n + 1, nil
}

// parseInt accepts exactly what Redis's string2ll accepts: a decimal int64
// in canonical form, so no '+', no leading zeros, no "-0", no spaces.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := b[0] == '-'
	d := b
	if neg {
		d = b[1:]
	}
	if len(d) == 0 || (d[0] == '0' && (len(d) > 1 || neg)) {
		return 0, false
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		dig := uint64(c - '0')
		if u > (limit-dig)/10 {
			return 0, false
		}
		u = u*10 + dig
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}
