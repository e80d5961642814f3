package study

import (
	"sort"
	"strconv"

	"github.com/pelletier/go-toml/v2/unstable"
)

// pos is where something starts in the study file (1-based).
type pos struct{ line, col int }

// keyPositions maps every key path of a TOML document to where it was first
// written. Decoding into maps loses positions, and most of the study's errors are
// semantic (a percentage without cores, a reference to a missing target), so the
// positions are collected separately from the syntax tree.
//
// Paths join keys with dots and index arrays with [i]: "study.duration",
// "target[0]" (the [[target]] header), "workload[1].clients[2]" (an array element).
// The document must already be known to parse; a parse error just ends the walk.
func keyPositions(data []byte) map[string]pos {
	var p unstable.Parser
	p.Reset(data)
	w := walker{out: map[string]pos{}, arrays: map[string]int{}, lines: lineStarts(data)}
	prefix := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			prefix = w.header(e)
		case unstable.KeyValue:
			w.keyValue(prefix, e)
		}
	}
	return w.out
}

type walker struct {
	out map[string]pos
	// lines holds the offset at which each line starts: the parser's own
	// Shape counts newlines from the top of the file for every node, which
	// made a study of 16 000 targets take a minute to validate.
	lines []int
	// arrays counts the elements of each array of tables seen so far, so that a
	// later [[workload]] gets the next index and a [workload.sub] header refers to
	// the last element, as TOML specifies.
	arrays map[string]int
}

func (w *walker) record(path string, at pos, ok bool) {
	if !ok {
		return
	}
	if _, seen := w.out[path]; !seen {
		w.out[path] = at
	}
}

func (w *walker) header(e *unstable.Node) string {
	var keys []*unstable.Node
	it := e.Key()
	for it.Next() {
		keys = append(keys, it.Node())
	}
	path := ""
	for i, k := range keys {
		path = join(path, string(k.Data))
		at, ok := w.position(k)
		if i == len(keys)-1 && e.Kind == unstable.ArrayTable {
			// The array itself is located at its first element, for errors
			// about the whole array ("write [study], not [[study]]").
			w.record(path, at, ok)
			n := w.arrays[path]
			w.arrays[path] = n + 1
			path = index(path, n)
		} else if n := w.arrays[path]; n > 0 {
			path = index(path, n-1)
		}
		w.record(path, at, ok)
	}
	return path
}

func (w *walker) keyValue(prefix string, kv *unstable.Node) {
	path := prefix
	it := kv.Key()
	for it.Next() {
		k := it.Node()
		path = join(path, string(k.Data))
		at, ok := w.position(k)
		w.record(path, at, ok)
	}
	w.value(path, kv.Value())
}

func (w *walker) value(path string, v *unstable.Node) {
	switch v.Kind {
	case unstable.Array:
		i := 0
		it := v.Children()
		for it.Next() {
			el := it.Node()
			p := index(path, i)
			at, ok := w.position(el)
			w.record(p, at, ok)
			w.value(p, el)
			i++
		}
	case unstable.InlineTable:
		it := v.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				w.keyValue(path, kv)
			}
		}
	}
}

// position falls back to the first child because container nodes (arrays) carry
// no range of their own.
func (w *walker) position(n *unstable.Node) (pos, bool) {
	if n.Raw.Length > 0 {
		off := int(n.Raw.Offset)
		line := sort.Search(len(w.lines), func(i int) bool { return w.lines[i] > off }) // 1-based
		return pos{line, off - w.lines[line-1] + 1}, true
	}
	if c := n.Child(); c != nil {
		return w.position(c)
	}
	return pos{}, false
}

// lineStarts returns the offset of the first byte of every line.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}
