package adapter

import (
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// endless repeats its byte forever.
type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}

// A file that is no tool's output (here endless random bytes) is refused
// from its first detectPrefix bytes, read no further.
func TestReadRefusesUnknownHavingReadThePrefix(t *testing.T) {
	c := &countingReader{r: rand.New(rand.NewSource(1))}
	_, err := Read("random.bin", c)
	if err == nil || !strings.Contains(err.Error(), "random.bin: not an output fairbench can read (judged from its first 256 KiB)") {
		t.Fatalf("err = %v", err)
	}
	if c.n > detectPrefix {
		t.Errorf("read %d bytes to refuse it, more than the %d of the prefix", c.n, detectPrefix)
	}
}

// An output its parser reads whole is refused past maxOutput, not read
// further; below it, it is read whole, however far beyond the prefix.
func TestReadBoundsAnOutput(t *testing.T) {
	defer func(m int64) { maxOutput = m }(maxOutput)
	maxOutput = 1 << 20
	doc := readFixture(t, "memtier_benchmark/mt23-json.json")

	c := &countingReader{r: io.MultiReader(strings.NewReader(doc), endless(' '))}
	_, err := Read("big.json", c)
	if err == nil || !strings.Contains(err.Error(), "big.json: larger than 1 MiB, more than any memtier_benchmark output") {
		t.Fatalf("err = %v", err)
	}
	if c.n > maxOutput+1 {
		t.Errorf("read %d bytes to refuse it, the limit is %d", c.n, maxOutput)
	}

	padded := doc + strings.Repeat(" ", detectPrefix+1000)
	f, err := Read("padded.json", strings.NewReader(padded))
	if err != nil || f.Text != padded {
		t.Fatalf("a %d-byte output under the limit: %v (%d bytes read)", len(padded), err, len(f.Text))
	}
	if _, _, err := parse(f.Name, f.Text); err != nil {
		t.Errorf("parsing it: %v", err)
	}
}

// A side log is read whole whatever its size (pgbench's per-transaction log
// has a line per transaction), recognised by its name and first line.
func TestReadKeepsALogWhole(t *testing.T) {
	defer func(m int64) { maxOutput = m }(maxOutput)
	maxOutput = 1 << 20
	line := strings.SplitAfter(readFixture(t, "pgbench/pg15-log/pgbench_log.1742"), "\n")[0]
	log := strings.Repeat(line, int(2*maxOutput)/len(line))
	name := filepath.Join("d", "pgbench_log.1742")
	f, err := Read(name, strings.NewReader(log))
	if err != nil || len(f.Text) != len(log) {
		t.Fatalf("a %d-byte log: %v (%d bytes read)", len(log), err, len(f.Text))
	}
}

// ReadFile gives a fixture's text unchanged.
func TestReadFileFixture(t *testing.T) {
	p := filepath.Join("testdata", "opensearch-benchmark", "test_run-1.json")
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(p)
	if err != nil || f.Text != string(want) || f.Name != p {
		t.Fatalf("%v: %q, %d bytes", err, f.Name, len(f.Text))
	}
}
