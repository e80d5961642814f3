package clickbench

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"testing"
)

// digest hashes every value of the rows a source yields, with their types.
func digest(t testing.TB, srcs ...interface {
	Next() bool
	Values() []any
}) (string, int64) {
	h := sha256.New()
	var n int64
	for _, src := range srcs {
		for src.Next() {
			vals := src.Values()
			if len(vals) != len(columns) {
				t.Fatalf("row %d: %d values, want %d", n+1, len(vals), len(columns))
			}
			for _, v := range vals {
				switch x := v.(type) {
				case int64:
					h.Write(strconv.AppendInt([]byte{'i'}, x, 10))
				case string:
					h.Write([]byte("s" + x))
				default:
					t.Fatalf("row %d: a %T", n+1, v)
				}
				h.Write([]byte{0})
			}
			n++
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:8]), n
}

func TestChunksCover(t *testing.T) {
	g := NewSynthetic(1001, 7)
	for _, n := range []int{0, 1, 3, 16, 2000} {
		chunks := g.Chunks(n)
		next := int64(1)
		for _, c := range chunks {
			if c.Lo != next || c.Hi < c.Lo {
				t.Fatalf("Chunks(%d): %v does not continue at row %d", n, chunks, next)
			}
			next = c.Hi + 1
		}
		if next != 1002 {
			t.Fatalf("Chunks(%d) ends at row %d, want 1001", n, next-1)
		}
	}
	if got := NewSynthetic(0, 1).Chunks(4); len(got) != 1 || got[0].Hi != 0 {
		t.Errorf("no rows: %v", got)
	}
}

// TestDeterministicAcrossSplits: the rows are the same whatever the split,
// in whatever order the chunks are made, and the seed changes them.
func TestDeterministicAcrossSplits(t *testing.T) {
	const rows = 5000
	g := NewSynthetic(rows, 42)
	whole, n := digest(t, g.Rows(Chunk{1, rows}))
	if n != rows {
		t.Fatalf("%d rows, want %d", n, rows)
	}
	for _, parts := range []int{2, 7, 64} {
		chunks := g.Chunks(parts)
		srcs := make([]interface {
			Next() bool
			Values() []any
		}, len(chunks))
		// Make the last chunk first: a chunk must not depend on the ones before.
		first, _ := digest(t, NewSynthetic(rows, 42).Rows(chunks[len(chunks)-1]))
		for i, c := range chunks {
			srcs[i] = g.Rows(c)
		}
		got, _ := digest(t, srcs...)
		if got != whole {
			t.Errorf("%d chunks: digest %s, whole %s", parts, got, whole)
		}
		if again, _ := digest(t, g.Rows(chunks[len(chunks)-1])); again != first {
			t.Errorf("%d chunks: last chunk %s, then %s", parts, first, again)
		}
	}
	if other, _ := digest(t, NewSynthetic(rows, 43).Rows(Chunk{1, rows})); other == whole {
		t.Error("seeds 42 and 43 give the same rows")
	}
}

// TestValueTypes: integers as int64 in their column's range, strings for
// the text, date and time columns, dates in July 2013.
func TestValueTypes(t *testing.T) {
	limits := map[string]int64{"SMALLINT": 1<<15 - 1, "INTEGER": 1<<31 - 1, "BIGINT": 1<<63 - 1}
	src := NewSynthetic(20000, 1).Rows(Chunk{1, 20000})
	for row := 1; src.Next(); row++ {
		for i, v := range src.Values() {
			name, typ := columns[i][0], columns[i][1]
			switch x := v.(type) {
			case int64:
				lim, ok := limits[typ]
				if !ok || x > lim || x < -lim-1 {
					t.Fatalf("row %d, %s %s: int64 %d", row, name, typ, x)
				}
			case string:
				switch typ {
				case "TEXT", "VARCHAR(255)":
				case "CHAR":
					if len(x) != 1 {
						t.Fatalf("row %d, %s: %q is not one character", row, name, x)
					}
				case "Date":
					if len(x) != 10 || x[:8] != "2013-07-" {
						t.Fatalf("row %d, %s: %q", row, name, x)
					}
				case "TIMESTAMP":
					if len(x) != 19 || x[:5] != "2013-" {
						t.Fatalf("row %d, %s: %q", row, name, x)
					}
				default:
					t.Fatalf("row %d, %s %s: string %q", row, name, typ, x)
				}
			default:
				t.Fatalf("row %d, %s: %T", row, name, v)
			}
		}
	}
}

func BenchmarkSynthetic(b *testing.B) {
	g := NewSynthetic(int64(b.N), 1)
	src := g.Rows(Chunk{1, int64(b.N)})
	b.ResetTimer()
	for src.Next() {
		_ = src.Values()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
