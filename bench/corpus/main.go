// Command corpus writes what bench/osb.sh gives both tools: the http_logs
// documents of fairbench's bulkindex generator (searchparams.WriteCorpus, one
// document per line), and the index definition fairbench's bulkindex uses
// for generated documents (searchparams.IndexDefinition: http_logs'
// mapping), as OSB's index.json.
//
//	go run ./bench/corpus -docs 500000 -seed 1 -out corpus.json -index-json index.json -shards 1 -replicas 0
//
// It prints "DOCS BYTES" of the corpus on stdout: OSB's document-count and
// uncompressed-bytes.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/searchparams"
)

func main() {
	docs := flag.Int64("docs", 500000, "documents to write")
	seed := flag.Uint64("seed", 1, "generator seed")
	out := flag.String("out", "", "corpus file to write (NDJSON)")
	indexJSON := flag.String("index-json", "", "also write the index definition here")
	shards := flag.Int64("shards", 1, "index shards")
	replicas := flag.Int64("replicas", 0, "index replicas")
	flag.Parse()
	if *out == "" || *docs < 1 {
		fmt.Fprintln(os.Stderr, "usage: corpus -docs N -out FILE [-seed S] [-index-json FILE -shards N -replicas N]")
		os.Exit(2)
	}
	if err := run(*docs, *seed, *out, *indexJSON, *shards, *replicas); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func run(docs int64, seed uint64, out, indexJSON string, shards, replicas int64) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := searchparams.WriteCorpus(w, docs, seed); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if indexJSON != "" {
		p := params.WithDefaults(searchparams.BulkSpecs(), params.Values{"docs": docs, "seed": int64(seed), "shards": shards, "replicas": replicas})
		def, err := searchparams.IndexDefinition(p)
		if err != nil {
			return err
		}
		b, err := json.MarshalIndent(def, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(indexJSON, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	fmt.Println(docs, st.Size())
	return nil
}
