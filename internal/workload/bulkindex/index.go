package bulkindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/searchparams"
)

// corpusDef is the corpus and index of a cell, with what the workloads do
// with the index on the engine.
type corpusDef struct {
	searchparams.Corpus
}

func newCorpusDef(p params.Values) (corpusDef, error) {
	c, err := searchparams.NewCorpus(p)
	return corpusDef{c}, err
}

// open starts reading the corpus from its first document.
func (c *corpusDef) open() source { return c.openShare(0, c.Count()) }

// openShare opens the corpus's documents first … first+count-1: one load
// generator's share of it.
func (c *corpusDef) openShare(first, count int64) source {
	if len(c.Files) == 0 {
		return &genSource{seed: c.Seed, start: first, pos: first, limit: first + count}
	}
	return &fileSource{files: c.Files, skip: first, limit: count}
}

// errForeign is the refusal to touch an index fairbench did not create.
func (c *corpusDef) errForeign() error {
	return fmt.Errorf("index %s exists and fairbench did not create it (its mapping's _meta has no %q marker): fairbench never deletes or fills it; choose another index (--index) or delete it yourself", c.Index, searchparams.MarkerKey)
}

// recreate deletes fairbench's earlier index of this name and creates it
// anew, with the marker; an index of another's is refused.
func (c *corpusDef) recreate(ctx context.Context, conn driver.Conn) error {
	a, err := searchAdmin(conn)
	if err != nil {
		return err
	}
	meta, exists, err := a.IndexMeta(ctx, c.Index)
	if err != nil {
		return fmt.Errorf("index %s: %w", c.Index, err)
	}
	if exists {
		if !searchparams.Owned(meta) {
			return c.errForeign()
		}
		if err := a.DeleteIndex(ctx, c.Index); err != nil {
			return fmt.Errorf("deleting fairbench's index %s: %w", c.Index, err)
		}
	}
	def, err := c.MarkedDefinition()
	if err != nil {
		return err
	}
	body, err := json.Marshal(def)
	if err != nil {
		return err
	}
	if err := a.CreateIndex(ctx, c.Index, body); err != nil {
		if errors.Is(err, driver.ErrIndexExists) {
			return fmt.Errorf("index %s was created by someone else meanwhile: %w", c.Index, err)
		}
		return fmt.Errorf("creating index %s: %w", c.Index, err)
	}
	return nil
}

// reusable reports whether the index holds what this definition would load:
// fairbench's marker for the same corpus, and every document.
func (c *corpusDef) reusable(ctx context.Context, conn driver.Conn) (bool, error) {
	a, err := searchAdmin(conn)
	if err != nil {
		return false, err
	}
	meta, exists, err := a.IndexMeta(ctx, c.Index)
	if err != nil || !exists {
		return false, err
	}
	if !searchparams.Owned(meta) {
		return false, c.errForeign()
	}
	m := meta[searchparams.MarkerKey].(map[string]any)
	if m["corpus"] != c.Describe() || !sameNumber(m["documents"], c.Count()) {
		return false, nil
	}
	n, err := c.count0(ctx, conn)
	return err == nil && n == c.Count(), err
}

// count0 refreshes the index and counts its documents.
func (c *corpusDef) count0(ctx context.Context, conn driver.Conn) (int64, error) {
	a, err := searchAdmin(conn)
	if err != nil {
		return 0, err
	}
	if err := a.Refresh(ctx, c.Index); err != nil {
		return 0, fmt.Errorf("refreshing index %s: %w", c.Index, err)
	}
	n, err := a.Count(ctx, c.Index)
	if err != nil {
		return 0, fmt.Errorf("counting index %s: %w", c.Index, err)
	}
	return n, nil
}

// drop deletes the index if it is fairbench's.
func (c *corpusDef) drop(ctx context.Context, conn driver.Conn) error {
	a, err := searchAdmin(conn)
	if err != nil {
		return err
	}
	meta, exists, err := a.IndexMeta(ctx, c.Index)
	if err != nil || !exists {
		return err
	}
	if !searchparams.Owned(meta) {
		return c.errForeign()
	}
	return a.DeleteIndex(ctx, c.Index)
}

// sameNumber compares a number decoded from JSON, whatever the decoder made
// of it, with n.
func sameNumber(v any, n int64) bool {
	switch x := v.(type) {
	case float64:
		return x == float64(n)
	case int64:
		return x == n
	case json.Number:
		i, err := x.Int64()
		return err == nil && i == n
	}
	return false
}

// refuseForeign fails when the index exists without fairbench's marker.
func (c *corpusDef) refuseForeign(ctx context.Context, conn driver.Conn) error {
	a, err := searchAdmin(conn)
	if err != nil {
		return err
	}
	meta, exists, err := a.IndexMeta(ctx, c.Index)
	if err != nil {
		return fmt.Errorf("index %s: %w", c.Index, err)
	}
	if exists && !searchparams.Owned(meta) {
		return c.errForeign()
	}
	return nil
}
