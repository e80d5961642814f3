package bulkindex

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/params/searchparams"
	"github.com/fairbench/fairbench/internal/workload"
)

// take reads n documents from s into one body.
func take(t *testing.T, s source, n int) string {
	t.Helper()
	b := &batch{action: appendAction}
	got, err := s.next(b, n)
	if err != nil {
		t.Fatal(err)
	}
	if got != b.items() {
		t.Fatalf("next says %d documents, the batch holds %d", got, b.items())
	}
	return string(b.done())
}

// A generator's share of the corpus is exactly the documents the whole
// corpus has at those places, for files and for the generator; the shares
// of all generators cover the corpus once.
func TestCorpusShares(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 10 {
		lines = append(lines, fmt.Sprintf(`{"n":%d}`, i))
	}
	file := filepath.Join(dir, "docs.ndjson")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []corpusDef{
		{searchparams.Corpus{Files: []string{file}, Total: 10, Share: 1}},
		{searchparams.Corpus{Docs: 10, Seed: 3, Share: 1}},
	} {
		whole := c.open()
		head := take(t, whole, 3)
		middle := take(t, whole, 4)
		share := c.openShare(3, 4)
		if got := take(t, share, 100); got != middle {
			t.Errorf("%s: documents 3-6 read as a share:\n%s\nread from the whole corpus:\n%s", c.Describe(), got, middle)
		}
		if share.taken() != 4 {
			t.Errorf("%s: the share says it handed out %d documents, want 4", c.Describe(), share.taken())
		}
		var all strings.Builder
		all.WriteString(head)
		all.WriteString(middle)
		all.WriteString(take(t, whole, 100))
		var shares strings.Builder
		for i := range 3 {
			first, n := workload.Share(10, 3, i)
			shares.WriteString(take(t, c.openShare(first, n), 100))
		}
		if shares.String() != all.String() {
			t.Errorf("%s: three generators' shares do not make the corpus once", c.Describe())
		}
	}
}
