package mongodb

import (
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

// The measured calls on a loaded collection of YCSB-like documents (string
// _ids, 4 binary fields). Run with FAIRBENCH_TEST_MONGODB set:
//
//	go test -run XXX -bench . -benchtime 2s ./internal/driver/mongodb/
//
// allocs/op includes the official driver's own (message building, the
// implicit session, the reply's decoding), which are most of them.
const benchDocs = 10000

func loaded(b *testing.B) *conn {
	b.Helper()
	s := session(b, freshDB(b))
	ctx := ctxT(b)
	batch := make([]driver.Doc, 0, 1000)
	for i := 0; i < benchDocs; i++ {
		batch = append(batch, ycsbDoc(i))
		if len(batch) == cap(batch) {
			if r, err := s.Insert(ctx, "usertable", batch); err != nil || len(r.Failed) > 0 {
				b.Fatalf("load: %+v %v", r, err)
			}
			batch = batch[:0]
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	return s
}

func BenchmarkGet(b *testing.B) {
	s := loaded(b)
	ctx := ctxT(b)
	for i := 0; b.Loop(); i++ {
		if _, ok, err := s.Get(ctx, "usertable", id(i*7919%benchDocs), nil); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkGetOneField(b *testing.B) {
	s := loaded(b)
	ctx := ctxT(b)
	fields := []string{"field1"}
	for i := 0; b.Loop(); i++ {
		if _, ok, err := s.Get(ctx, "usertable", id(i*7919%benchDocs), fields); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkUpdate(b *testing.B) {
	s := loaded(b)
	ctx := ctxT(b)
	set := driver.Doc{"field2": make([]byte, 100)}
	for i := 0; b.Loop(); i++ {
		if ok, err := s.Update(ctx, "usertable", id(i*7919%benchDocs), set); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

func BenchmarkScan10(b *testing.B) {
	s := loaded(b)
	ctx := ctxT(b)
	for i := 0; b.Loop(); i++ {
		if n, err := s.Scan(ctx, "usertable", id(i*7919%(benchDocs-10)), 10, nil); err != nil || n != 10 {
			b.Fatal(n, err)
		}
	}
}

func BenchmarkInsertOne(b *testing.B) {
	s := loaded(b)
	ctx := ctxT(b)
	docs := []driver.Doc{nil}
	for i := 0; b.Loop(); i++ {
		docs[0] = ycsbDoc(benchDocs + i)
		if r, err := s.Insert(ctx, "usertable", docs); err != nil || len(r.Failed) > 0 {
			b.Fatal(r, err)
		}
	}
}
