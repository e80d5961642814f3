package bulkindex

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sync"

	"github.com/fairbench/fairbench/internal/boundfile"
	"github.com/fairbench/fairbench/internal/params/searchparams"
)

// source hands out the corpus's documents in order, to every client of a
// run: each call appends up to n documents to a batch. It ends after limit
// documents.
type source interface {
	next(b *batch, n int) (int, error)
	// taken is how many documents were handed out.
	taken() int64
}

// genSource hands out generated documents; only the counter is shared.
type genSource struct {
	seed  uint64
	start int64 // the first document of this share
	limit int64
	mu    sync.Mutex
	pos   int64
}

func (g *genSource) next(b *batch, n int) (int, error) {
	g.mu.Lock()
	first := g.pos
	k := min(int64(n), g.limit-first)
	if k < 0 {
		k = 0
	}
	g.pos += k
	g.mu.Unlock()
	for i := first; i < first+k; i++ {
		b.begin()
		b.body = searchparams.AppendLogDoc(b.body, g.seed, i)
		b.end()
	}
	return int(k), nil
}

func (g *genSource) taken() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pos - g.start
}

// fileSource reads the corpus files in turn; clients take lines under its lock.
type fileSource struct {
	files []string
	skip  int64 // documents before this share, read and passed over
	limit int64

	mu   sync.Mutex
	pos  int64
	cur  int
	f    *os.File
	sc   *bufio.Scanner
	name string
	line int
}

func (s *fileSource) next(b *batch, n int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := 0
	for got < n && s.pos < s.limit {
		if s.sc == nil {
			if s.cur >= len(s.files) {
				break
			}
			f, err := boundfile.Open(s.files[s.cur])
			if err != nil {
				return got, fmt.Errorf("corpus: %w", err)
			}
			s.f, s.name, s.line = f, s.files[s.cur], 0
			s.sc = bufio.NewScanner(f)
			s.sc.Buffer(make([]byte, 0, 1<<20), searchparams.MaxLine)
			s.cur++
		}
		if !s.sc.Scan() {
			err := s.sc.Err()
			s.f.Close()
			s.sc, s.f = nil, nil
			if err != nil {
				return got, fmt.Errorf("corpus %s: %w", s.name, err)
			}
			continue
		}
		s.line++
		if s.skip > 0 {
			s.skip--
			continue
		}
		doc := bytes.TrimSpace(s.sc.Bytes())
		b.begin()
		b.body = append(b.body, doc...)
		b.end()
		s.pos++
		got++
	}
	return got, nil
}

func (s *fileSource) taken() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pos
}

func (s *fileSource) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
		s.sc, s.f = nil, nil
	}
}
