package ycsb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fairbench/fairbench/internal/driver"
)

// docLayout is YCSB's mongodb binding's collection: one document per record,
// its string key as _id and one binary field per YCSB field. fairbench's
// marker is a document of the collection itself, with an _id that sorts
// before every YCSB key (so no scan from a key reaches it): a collection
// someone dropped and recreated has lost it, and is someone else's.
type docLayout struct {
	in    *instance
	d     driver.Document
	admin driver.DocumentAdmin
	coll  string
}

// markerID is the _id of fairbench's marker document.
const markerID = "_fairbench_ycsb"

func newDocLayout(in *instance, d driver.Document) (*docLayout, error) {
	admin, ok := d.(driver.DocumentAdmin)
	if !ok {
		return nil, errors.New("ycsb: this document target cannot list or drop collections, which fairbench needs to manage its data")
	}
	if in.cfg.Table == "" || strings.ContainsAny(in.cfg.Table, "$\x00") {
		return nil, fmt.Errorf("ycsb: table %q is not a collection name", in.cfg.Table)
	}
	return &docLayout{in: in, d: d, admin: admin, coll: in.cfg.Table}, nil
}

func (l *docLayout) describe() string { return "collection " + l.coll }

func (l *docLayout) deviations() []note { return nil }

func (l *docLayout) state(ctx context.Context, params string) (dataState, error) {
	st := dataState{holds: "a collection " + l.coll}
	names, err := l.admin.Collections(ctx)
	if err != nil {
		return st, err
	}
	if st.found = slices.Contains(names, l.coll); !st.found {
		return st, nil
	}
	m, ok, err := l.d.Get(ctx, l.coll, markerID, nil)
	if err != nil || !ok {
		return st, err
	}
	st.ours = true
	st.matches = fmt.Sprint(m["state"]) == "ready" && fmt.Sprint(m["params"]) == params
	return st, nil
}

func (l *docLayout) reset(ctx context.Context, params string) error {
	if err := l.admin.Drop(ctx, l.coll); err != nil {
		return err
	}
	res, err := l.d.Insert(ctx, l.coll, []driver.Doc{{"_id": markerID, "state": "loading", "params": params}})
	if err == nil && len(res.Failed) > 0 {
		err = fmt.Errorf("writing fairbench's marker into %s: %s", l.coll, res.Failed[0].Reason)
	}
	return err
}

func (l *docLayout) ready(ctx context.Context, params string) error {
	ok, err := l.d.Update(ctx, l.coll, markerID, driver.Doc{"state": "ready", "params": params})
	if err == nil && !ok {
		err = fmt.Errorf("fairbench's marker in %s disappeared during the load", l.coll)
	}
	return err
}

func (l *docLayout) records(ctx context.Context) (int64, bool, error) {
	n, err := l.admin.Count(ctx, l.coll)
	if err != nil {
		return 0, false, err
	}
	return max(n-1, 0), true, nil // the marker is no record
}

func (l *docLayout) drop(ctx context.Context) error { return l.admin.Drop(ctx, l.coll) }

// docSession is one worker's scratch.
type docSession struct {
	l     *docLayout
	d     driver.Document
	docs  []driver.Doc
	names []string
	one   [1]string
	set   driver.Doc
}

func (l *docLayout) session(_ context.Context, conn driver.Conn) (session, error) {
	d, ok := conn.(driver.Document)
	if !ok {
		return nil, errors.New("ycsb: the session is not a document session")
	}
	return &docSession{l: l, d: d, names: l.in.fields, set: driver.Doc{}}, nil
}

func (s *docSession) insert(ctx context.Context, keys []string, values [][][]byte) error {
	s.docs = s.docs[:0]
	for i, k := range keys {
		doc := make(driver.Doc, len(s.names)+1)
		doc["_id"] = k
		for f, v := range values[i] {
			doc[s.names[f]] = v
		}
		s.docs = append(s.docs, doc)
	}
	res, err := s.d.Insert(ctx, s.l.coll, s.docs)
	if err == nil && len(res.Failed) > 0 {
		err = fmt.Errorf("%d of %d documents refused, the first: %s", len(res.Failed), len(keys), res.Failed[0].Reason)
	}
	return err
}

// fieldNames are the projection of a read: nil for all.
func (s *docSession) fieldNames(fields []int) []string {
	switch {
	case fields == nil:
		return nil
	case len(fields) == 1:
		s.one[0] = s.names[fields[0]]
		return s.one[:]
	}
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = s.names[f]
	}
	return out
}

func (s *docSession) read(ctx context.Context, key string, fields []int) (bool, error) {
	_, ok, err := s.d.Get(ctx, s.l.coll, key, s.fieldNames(fields))
	return ok, err
}

func (s *docSession) update(ctx context.Context, key string, fields []int, values [][]byte) (bool, error) {
	clear(s.set)
	for i, f := range fields {
		s.set[s.names[f]] = values[i]
	}
	return s.d.Update(ctx, s.l.coll, key, s.set)
}

func (s *docSession) scan(ctx context.Context, key string, n int, fields []int) (int, error) {
	return s.d.Scan(ctx, s.l.coll, key, n, s.fieldNames(fields))
}
