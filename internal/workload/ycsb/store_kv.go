package ycsb

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params/ycsbparams"
)

// kvLayout keeps records on key-value targets under fairbench's own key
// prefix (fb:ycsb:<table>:), with a marker key there once fairbench loaded
// them: keys under the prefix without the marker are someone else's, and
// cleanup deletes only the keys with the names fairbench gives records. On Redis
// and Valkey a record is a hash, and the sorted set <prefix>_indices scores
// each key by Java's String.hashCode, as YCSB's redis binding does, for
// scans; on the embedded engines, which answer GET, SET, INCR and DEL only,
// a record is one value encoding its fields.
type kvLayout struct {
	in     *instance
	kv     driver.KV
	hashes bool
	prefix string
	index  []byte
	marker []byte
}

func newKVLayout(ctx context.Context, in *instance, kv driver.KV) (*kvLayout, error) {
	p := "fb:ycsb:" + in.cfg.Table + ":"
	l := &kvLayout{in: in, kv: kv, prefix: p, index: []byte(p + "_indices"), marker: []byte(p + "_marker")}
	// HLEN of a key nobody uses tells a server with hashes from an engine
	// without them, which refuses the command.
	r, err := l.do(ctx, driver.KVCommand{Name: "HLEN", Key: []byte(p + "_probe")})
	if err != nil {
		return nil, err
	}
	switch {
	case r.Err == nil:
		l.hashes = true
	case strings.Contains(strings.ToLower(r.Err.Error()), "unknown command"):
	default:
		return nil, fmt.Errorf("ycsb: probing the key-value target: %w", r.Err)
	}
	return l, nil
}

// do sends one command and returns its reply (valid until the next one).
func (l *kvLayout) do(ctx context.Context, c driver.KVCommand) (driver.KVReply, error) {
	replies := make([]driver.KVReply, 1)
	if err := l.kv.Pipeline(ctx, []driver.KVCommand{c}, replies); err != nil {
		return driver.KVReply{}, err
	}
	return replies[0], nil
}

func (l *kvLayout) describe() string {
	if l.hashes {
		return "hashes " + l.prefix + "user…, index " + string(l.index)
	}
	return "values " + l.prefix + "user… (fields encoded in one value)"
}

func (l *kvLayout) deviations() []note {
	if l.hashes {
		return []note{{ops: []string{ycsbparams.Scan},
			text: "a scan reads the records ZRANGEBYSCORE names in one pipeline (YCSB's redis binding reads them one by one)"}}
	}
	return []note{{ops: []string{ycsbparams.Update, ycsbparams.ReadModifyWrite},
		text: "a record is one value (the engine has no hashes): an update reads it, changes the fields and writes it back"}}
}

func (l *kvLayout) state(ctx context.Context, params string) (dataState, error) {
	st := dataState{holds: "keys under " + l.prefix}
	r, err := l.do(ctx, driver.KVCommand{Name: "GET", Key: l.marker})
	if err != nil {
		return st, err
	}
	if r.Err != nil {
		return st, fmt.Errorf("reading fairbench's marker %s: %w", l.marker, r.Err)
	}
	if !r.Miss {
		st.found, st.ours = true, true
		st.matches = string(r.Value) == "ready "+params
		return st, nil
	}
	// No marker: any key under the prefix is someone else's. The walk
	// (SCAN visits the whole database, once, before the first load) finds
	// any of them, not only the names the load would write: cleanup deletes
	// every key of fairbench's names under the prefix.
	sc, err := l.scanner()
	if err != nil {
		return st, err
	}
	err = sc.ScanPrefix(ctx, l.prefix, func(keys []string) bool {
		st.found = true
		st.holds = fmt.Sprintf("keys under %s (%s among them)", l.prefix, keys[0])
		return false
	})
	return st, err
}

func (l *kvLayout) scanner() (driver.KVPrefixScanner, error) {
	sc, ok := l.kv.(driver.KVPrefixScanner)
	if !ok {
		return nil, errors.New("ycsb: this key-value target cannot list the keys under a prefix, so fairbench cannot tell its records from someone else's")
	}
	return sc, nil
}

// ours reports whether key is one fairbench writes under the prefix: a
// record (YCSB's "user" and a number), the index or the marker.
func (l *kvLayout) ours(key string) bool {
	rest, ok := strings.CutPrefix(key, l.prefix)
	if !ok {
		return false
	}
	if rest == "_indices" || rest == "_marker" {
		return true
	}
	digits, ok := strings.CutPrefix(rest, keyPrefix)
	if !ok || digits == "" {
		return false
	}
	_, err := strconv.ParseUint(digits, 10, 64)
	return err == nil
}

// deleteOurs deletes the keys under the prefix that have the names fairbench
// gives its records, index and marker: keys of other names are not
// fairbench's and stay (never a pattern delete).
func (l *kvLayout) deleteOurs(ctx context.Context) error {
	sc, err := l.scanner()
	if err != nil {
		return err
	}
	var failed error
	var cmds []driver.KVCommand
	var replies []driver.KVReply
	err = sc.ScanPrefix(ctx, l.prefix, func(keys []string) bool {
		cmds = cmds[:0]
		for _, k := range keys {
			if l.ours(k) {
				cmds = append(cmds, driver.KVCommand{Name: "DEL", Key: []byte(k)})
			}
		}
		if len(cmds) == 0 {
			return true
		}
		replies = slices.Grow(replies[:0], len(cmds))[:len(cmds)]
		if failed = l.kv.Pipeline(ctx, cmds, replies); failed != nil {
			return false
		}
		for _, r := range replies {
			if r.Err != nil {
				failed = fmt.Errorf("ycsb: deleting fairbench's records: %w", r.Err)
				return false
			}
		}
		return true
	})
	if failed != nil {
		return failed
	}
	return err
}

func (l *kvLayout) setMarker(ctx context.Context, v string) error {
	r, err := l.do(ctx, driver.KVCommand{Name: "SET", Key: l.marker, Value: []byte(v)})
	if err == nil && r.Err != nil {
		err = r.Err
	}
	return err
}

func (l *kvLayout) reset(ctx context.Context, params string) error {
	if err := l.deleteOurs(ctx); err != nil {
		return err
	}
	return l.setMarker(ctx, "loading "+params)
}

func (l *kvLayout) ready(ctx context.Context, params string) error {
	return l.setMarker(ctx, "ready "+params)
}

func (l *kvLayout) records(ctx context.Context) (int64, bool, error) {
	if !l.hashes {
		return 0, false, nil
	}
	r, err := l.do(ctx, driver.KVCommand{Name: "ZCARD", Key: l.index})
	if err != nil {
		return 0, false, err
	}
	if r.Err != nil {
		return 0, false, r.Err
	}
	n, err := strconv.ParseInt(string(r.Value), 10, 64)
	return n, err == nil, err
}

func (l *kvLayout) drop(ctx context.Context) error { return l.deleteOurs(ctx) }

// kvSession is one worker's pipeline scratch.
type kvSession struct {
	l       *kvLayout
	kv      driver.KV
	cmds    []driver.KVCommand
	replies []driver.KVReply
	keyBuf  []byte
	fields  [][]byte // field names as bytes
	args    [][]byte
	enc     []byte
	scores  []byte // the index scores of the records an insert writes
	noIndex bool   // inserts write the hashes only (a load: indexLoaded adds them)
	decoded [][]byte
}

func (l *kvLayout) session(_ context.Context, conn driver.Conn) (session, error) {
	kv, ok := conn.(driver.KV)
	if !ok {
		return nil, errors.New("ycsb: the session is not a key-value session")
	}
	s := &kvSession{l: l, kv: kv}
	for _, f := range l.in.fields {
		s.fields = append(s.fields, []byte(f))
	}
	return s, nil
}

// key returns prefix+key in the session's key buffer (valid until reset).
func (s *kvSession) key(k string) []byte {
	at := len(s.keyBuf)
	s.keyBuf = append(s.keyBuf, s.l.prefix...)
	s.keyBuf = append(s.keyBuf, k...)
	return s.keyBuf[at:len(s.keyBuf):len(s.keyBuf)]
}

func (s *kvSession) reset(n int) {
	if cap(s.cmds) < n {
		s.cmds = make([]driver.KVCommand, n)
		s.replies = make([]driver.KVReply, n)
	}
	s.cmds, s.replies = s.cmds[:n], s.replies[:n]
	s.keyBuf = s.keyBuf[:0]
	s.args = s.args[:0]
}

// send runs the pipeline; the first command the server refused is the error.
func (s *kvSession) send(ctx context.Context) error {
	if err := s.kv.Pipeline(ctx, s.cmds, s.replies); err != nil {
		return err
	}
	for i := range s.replies {
		if err := s.replies[i].Err; err != nil {
			return err
		}
	}
	return nil
}

// javaHashCode is Java's String.hashCode, YCSB's redis binding's index score.
func javaHashCode(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	return h
}

// pairs appends field name, value pairs for HSET to s.args and returns them.
func (s *kvSession) pairs(fields []int, values [][]byte) [][]byte {
	at := len(s.args)
	for i, v := range values {
		f := i
		if fields != nil {
			f = fields[i]
		}
		s.args = append(s.args, s.fields[f], v)
	}
	return s.args[at:len(s.args):len(s.args)]
}

func (s *kvSession) insert(ctx context.Context, keys []string, values [][][]byte) error {
	if !s.l.hashes {
		s.reset(len(keys))
		s.enc = s.enc[:0]
		for i, k := range keys {
			at := len(s.enc)
			s.enc = encodeRecord(s.enc, values[i])
			s.cmds[i] = driver.KVCommand{Name: "SET", Key: s.key(k), Value: s.enc[at:len(s.enc):len(s.enc)]}
		}
		return s.send(ctx)
	}
	if s.noIndex {
		s.reset(len(keys))
		for i, k := range keys {
			s.cmds[i] = driver.KVCommand{Name: "HSET", Key: s.key(k), Args: s.pairs(nil, values[i])}
		}
		return s.send(ctx)
	}
	// One HSET per record and one ZADD of every record's score and key (a
	// run's inserts; a load indexes its records afterwards, indexLoaded).
	s.reset(len(keys) + 1)
	s.scores = s.scores[:0]
	index := make([][]byte, 0, 2*len(keys))
	for i, k := range keys {
		key := s.key(k)
		s.cmds[i] = driver.KVCommand{Name: "HSET", Key: key, Args: s.pairs(nil, values[i])}
		at := len(s.scores)
		s.scores = strconv.AppendInt(s.scores, int64(javaHashCode(k)), 10)
		index = append(index, s.scores[at:len(s.scores):len(s.scores)], key)
	}
	s.cmds[len(keys)] = driver.KVCommand{Name: "ZADD", Key: s.l.index, Args: index}
	return s.send(ctx)
}

// withoutIndex makes a loading session's inserts write the hashes only:
// indexLoaded adds the records to the index once they are all there.
func (l *kvLayout) withoutIndex(s session) {
	if ks, ok := s.(*kvSession); ok {
		ks.noIndex = l.hashes
	}
}

// indexLoaded adds the loaded records to the index in score order, eight
// ZADDs of loadBatch members a round trip: a skiplist insert beside the
// previous one finds its nodes in the server's cache, and costs it less than
// half of one at a random place (300 k members: 48–62 against 113–141 ticks).
// The sort holds 16 bytes per record.
func (l *kvLayout) indexLoaded(ctx context.Context, conn driver.Conn) error {
	if !l.hashes {
		return nil
	}
	c := l.in.cfg
	type member struct {
		score int32
		k     int64
	}
	ms := make([]member, 0, c.InsertCount)
	for k := c.InsertStart; k < c.InsertStart+c.InsertCount; k++ {
		ms = append(ms, member{javaHashCode(buildKeyName(k, c.ZeroPadding, c.OrderedInserts)), k})
	}
	slices.SortFunc(ms, func(a, b member) int { return cmp.Compare(a.score, b.score) })
	kv, ok := conn.(driver.KV)
	if !ok {
		return errors.New("ycsb: the session is not a key-value session")
	}
	const perTrip = 8
	var (
		cmds    []driver.KVCommand
		args    [][]byte
		buf     []byte
		replies = make([]driver.KVReply, perTrip)
	)
	for at := 0; at < len(ms); {
		cmds, args, buf = cmds[:0], args[:0], buf[:0]
		for len(cmds) < perTrip && at < len(ms) {
			end := min(at+loadBatch, len(ms))
			from := len(args)
			for _, m := range ms[at:end] {
				s0 := len(buf)
				buf = strconv.AppendInt(buf, int64(m.score), 10)
				k0 := len(buf)
				buf = append(buf, l.prefix...)
				buf = append(buf, buildKeyName(m.k, c.ZeroPadding, c.OrderedInserts)...)
				args = append(args, buf[s0:k0:k0], buf[k0:len(buf):len(buf)])
			}
			cmds = append(cmds, driver.KVCommand{Name: "ZADD", Key: l.index, Args: args[from:len(args):len(args)]})
			at = end
		}
		if err := kv.Pipeline(ctx, cmds, replies[:len(cmds)]); err != nil {
			return err
		}
		for _, r := range replies[:len(cmds)] {
			if r.Err != nil {
				return fmt.Errorf("ycsb: indexing the loaded records in %s: %w", l.index, r.Err)
			}
		}
	}
	return nil
}

// readCmd is HGETALL (all fields) or HMGET of the named fields.
func (s *kvSession) readCmd(key []byte, fields []int) driver.KVCommand {
	if fields == nil {
		return driver.KVCommand{Name: "HGETALL", Key: key}
	}
	at := len(s.args)
	for _, f := range fields {
		s.args = append(s.args, s.fields[f])
	}
	return driver.KVCommand{Name: "HMGET", Key: key, Args: s.args[at:len(s.args):len(s.args)]}
}

func (s *kvSession) read(ctx context.Context, key string, fields []int) (bool, error) {
	s.reset(1)
	if !s.l.hashes {
		s.cmds[0] = driver.KVCommand{Name: "GET", Key: s.key(key)}
		if err := s.send(ctx); err != nil {
			return false, err
		}
		return !s.replies[0].Miss, nil
	}
	s.cmds[0] = s.readCmd(s.key(key), fields)
	if err := s.send(ctx); err != nil {
		return false, err
	}
	// HGETALL of a missing key is an empty array; HMGET's, nils only.
	return len(s.replies[0].Elements) > 0, nil
}

func (s *kvSession) update(ctx context.Context, key string, fields []int, values [][]byte) (bool, error) {
	s.reset(1)
	k := s.key(key)
	if s.l.hashes {
		s.cmds[0] = driver.KVCommand{Name: "HSET", Key: k, Args: s.pairs(fields, values)}
		return true, s.send(ctx)
	}
	s.cmds[0] = driver.KVCommand{Name: "GET", Key: k}
	if err := s.send(ctx); err != nil {
		return false, err
	}
	if s.replies[0].Miss {
		return false, nil
	}
	rec, err := decodeRecord(s.decoded[:0], s.replies[0].Value, len(s.fields))
	if err != nil {
		return false, fmt.Errorf("record %s: %w", key, err)
	}
	s.decoded = rec
	for i, f := range fields {
		rec[f] = values[i]
	}
	s.enc = encodeRecord(s.enc[:0], rec)
	s.cmds[0] = driver.KVCommand{Name: "SET", Key: k, Value: s.enc}
	return true, s.send(ctx)
}

func (s *kvSession) scan(ctx context.Context, key string, n int, fields []int) (int, error) {
	s.reset(1)
	score := strconv.AppendInt(nil, int64(javaHashCode(key)), 10)
	s.cmds[0] = driver.KVCommand{Name: "ZRANGEBYSCORE", Key: s.l.index,
		Args: [][]byte{score, []byte("+inf"), []byte("LIMIT"), []byte("0"), []byte(strconv.Itoa(n))}}
	if err := s.send(ctx); err != nil {
		return 0, err
	}
	members := s.replies[0].Elements
	if len(members) == 0 {
		return 0, nil
	}
	// The members live in the reply buffer, which the next pipeline reuses.
	keys := make([][]byte, len(members))
	for i, m := range members {
		keys[i] = append([]byte(nil), m...)
	}
	s.reset(len(keys))
	for i, k := range keys {
		s.cmds[i] = s.readCmd(k, fields)
	}
	if err := s.send(ctx); err != nil {
		return 0, err
	}
	got := 0
	for i := range s.replies {
		if len(s.replies[i].Elements) > 0 {
			got++
		}
	}
	return got, nil
}

// encodeRecord appends the fields as uvarint length, bytes.
func encodeRecord(b []byte, values [][]byte) []byte {
	for _, v := range values {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return b
}

// decodeRecord reads n fields encoded by encodeRecord; they alias b.
func decodeRecord(out [][]byte, b []byte, n int) ([][]byte, error) {
	for range n {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return nil, errors.New("not a record fairbench wrote")
		}
		out = append(out, b[k:k+int(l)])
		b = b[k+int(l):]
	}
	return out, nil
}
