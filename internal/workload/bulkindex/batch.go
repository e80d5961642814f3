package bulkindex

import (
	"math/rand/v2"
	"strconv"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// batch is one _bulk body under construction: an action line and a source
// line per item, built in a buffer a client reuses, with each item's offset
// kept so that refused items can be sent again on their own.
type batch struct {
	body []byte
	offs []int
	// action appends an item's action line (newline included).
	action func(dst []byte, rng *rand.Rand) []byte
	rng    *rand.Rand
	spare  batch0
}

// batch0 is the buffers refill builds into before swapping them in, since
// the items it copies may be its own.
type batch0 struct {
	body []byte
	offs []int
}

func (b *batch) reset(rng *rand.Rand) {
	b.body, b.offs, b.rng = b.body[:0], b.offs[:0], rng
}

// begin starts an item: its action line; the caller appends the source.
func (b *batch) begin() {
	b.offs = append(b.offs, len(b.body))
	b.body = b.action(b.body, b.rng)
}

// end ends the item's source line.
func (b *batch) end() { b.body = append(b.body, '\n') }

func (b *batch) items() int   { return len(b.offs) }
func (b *batch) done() []byte { return b.body }

// item is item k's two lines.
func (b *batch) item(k int) []byte {
	end := len(b.body)
	if k+1 < len(b.offs) {
		end = b.offs[k+1]
	}
	return b.body[b.offs[k]:end]
}

// refill makes b the items of from that the engine refused for load (429),
// which a later try may index; it returns how many. Items refused for their
// content (a mapping error) would be refused again and are not taken.
func (b *batch) refill(from *batch, failed []driver.ItemError) int {
	sp := &b.spare
	sp.body, sp.offs = sp.body[:0], sp.offs[:0]
	for _, f := range failed {
		if f.Class != result.ErrThrottled || f.Index < 0 || f.Index >= from.items() {
			continue
		}
		sp.offs = append(sp.offs, len(sp.body))
		sp.body = append(sp.body, from.item(f.Index)...)
	}
	b.body, sp.body = sp.body, b.body
	b.offs, sp.offs = sp.offs, b.offs
	return len(b.offs)
}

// appendAction is index-append's action: the engine picks the id.
func appendAction(dst []byte, _ *rand.Rand) []byte { return append(dst, "{\"index\":{}}\n"...) }

// updateAction is index-update's: an id of fairbench's, a new one or, with
// the conflict probability, one already sent (OSB's random conflicts), so
// that the engine overwrites a document.
func (in *instance) updateAction(dst []byte, rng *rand.Rand) []byte {
	var id int64
	if sent := in.ids.Load(); sent > 0 && rng.Float64() < in.conflict {
		id = rng.Int64N(sent)
	} else {
		id = in.ids.Add(1) - 1
	}
	dst = append(dst, `{"index":{"_id":"`...)
	dst = strconv.AppendInt(dst, id, 10)
	return append(dst, "\"}}\n"...)
}
