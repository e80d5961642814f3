package ycsb

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/bbolt"
	_ "github.com/fairbench/fairbench/internal/driver/mongodb"
	_ "github.com/fairbench/fairbench/internal/driver/mysql"
	_ "github.com/fairbench/fairbench/internal/driver/pebble"
	_ "github.com/fairbench/fairbench/internal/driver/postgres"
	_ "github.com/fairbench/fairbench/internal/driver/redis"
	_ "github.com/fairbench/fairbench/internal/driver/sqlite"
	"github.com/fairbench/fairbench/internal/testenv"
	"github.com/fairbench/fairbench/internal/workload"
)

// loadTargets are the engines of TestBatchedLoadWritesTheSameRecordsEverywhere:
// the embedded ones always, the test servers when the environment names them.
func loadTargets(t *testing.T) map[string]string {
	dir := t.TempDir()
	ts := map[string]string{
		"sqlite": "sqlite:" + filepath.Join(dir, "y.db"),
		"pebble": "pebble:" + filepath.Join(dir, "pebble"),
		"bbolt":  "bbolt:" + filepath.Join(dir, "y.bolt"),
	}
	servers := os.Getenv("FAIRBENCH_REQUIRE_SERVERS") == "1"
	if servers || os.Getenv("FAIRBENCH_TEST_PG") != "" {
		ts["postgres"] = testenv.FreshPostgres(t)
		ts["mysql"] = testenv.FreshMySQL(t)
	}
	if servers || os.Getenv("FAIRBENCH_TEST_REDIS") != "" {
		ts["redis"] = testenv.RedisURL(t)
		ts["valkey"] = testenv.ValkeyURL(t)
	}
	if servers || os.Getenv("FAIRBENCH_TEST_MONGODB") != "" {
		ts["ferretdb"] = testenv.MongoDBURL(t)
	}
	return ts
}

// The load writes its records in batches on several sessions (one on
// SQLite); every engine must end up with the same records: for each part of
// the key range, the keys in order with the values of that part's own
// random stream, written by any session. The records here are rebuilt one
// by one from that definition and compared with what each engine holds,
// read back field by field (and on Redis and Valkey, the index's score of
// each key).
func TestBatchedLoadWritesTheSameRecordsEverywhere(t *testing.T) {
	const records = loadParts * (loadBatch + 75) // parts of a full batch and a short one
	table := fmt.Sprintf("fbtest_ycsbload_%x", rand.Uint32())
	for name, url := range loadTargets(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			in, err := newInstance(t, map[string]any{"recordcount": int64(records), "properties": []string{"table=" + table}})
			if err != nil {
				t.Fatal(err)
			}
			cl := testenv.Open(t, url, driver.Options{})
			conn, err := cl.Session(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(ctx) })
			env := workload.PrepareEnv{Load: true, Conn: conn, Open: cl.Session, Logf: t.Logf}
			if err := in.Prepare(ctx, env); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := in.cleanup(ctx, conn); err != nil {
					t.Errorf("cleanup: %v", err)
				}
			})
			// FerretDB reads about a hundred documents a second here: every
			// 40th record and each part's last are read back there.
			stride := int64(1)
			if name == "ferretdb" {
				stride = 40
			}
			read := recordReader(t, in, conn)
			n := 0
			for p := range loadParts {
				lo, hi := in.cfg.part(p)
				rng := rand.New(rand.NewPCG(uint64(p), uint64(lo)))
				for k := lo; k < hi; k++ {
					key := buildKeyName(k, in.cfg.ZeroPadding, in.cfg.OrderedInserts)
					want := in.record(rng)
					n++
					if (k-lo)%stride != 0 && k != hi-1 {
						continue
					}
					got := read(key)
					if len(got) != len(want) {
						t.Fatalf("record %s: %d fields, want %d", key, len(got), len(want))
					}
					for f := range want {
						if !bytes.Equal(got[f], want[f]) {
							t.Fatalf("record %s (part %d), %s = %q, want %q", key, p, in.fields[f], got[f], want[f])
						}
					}
				}
			}
			if n != records {
				t.Fatalf("the parts hold %d records, want %d", n, records)
			}
			if kl, ok := in.layout.(*kvLayout); ok && kl.hashes {
				checkIndex(t, kl, conn, records)
			}
		})
	}
}

// recordReader returns a function reading one record's fields, in field
// order, from the engine; it fails the test when the record is missing.
func recordReader(t *testing.T, in *instance, conn driver.Conn) func(key string) [][]byte {
	ctx := context.Background()
	switch l := in.layout.(type) {
	case *sqlLayout:
		st, err := conn.(driver.SQL).Prepare(ctx, "SELECT * FROM "+l.table+" WHERE ycsb_key = $1")
		if err != nil {
			t.Fatal(err)
		}
		return func(key string) [][]byte {
			rows, err := st.Query(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			if !rows.Next() {
				t.Fatalf("no row %s: %v", key, rows.Err())
			}
			dest := make([]any, len(in.fields)+1)
			cols := make([][]byte, len(dest))
			for i := range dest {
				dest[i] = &cols[i]
			}
			if err := rows.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			if string(cols[0]) != key {
				t.Fatalf("row %s has key %s", key, cols[0])
			}
			return cols[1:]
		}
	case *kvLayout:
		kv := conn.(driver.KV)
		return func(key string) [][]byte {
			cmd := driver.KVCommand{Name: "GET", Key: []byte(l.prefix + key)}
			if l.hashes {
				cmd.Name = "HGETALL"
			}
			r := make([]driver.KVReply, 1)
			if err := kv.Pipeline(ctx, []driver.KVCommand{cmd}, r); err != nil || r[0].Err != nil || r[0].Miss {
				t.Fatalf("%s %s: %v %v (missing: %v)", cmd.Name, cmd.Key, err, r[0].Err, r[0].Miss)
			}
			if !l.hashes {
				fields, err := decodeRecord(nil, r[0].Value, len(in.fields))
				if err != nil {
					t.Fatalf("record %s: %v", key, err)
				}
				return fields
			}
			byName := map[string][]byte{}
			for i := 0; i+1 < len(r[0].Elements); i += 2 {
				byName[string(r[0].Elements[i])] = bytes.Clone(r[0].Elements[i+1])
			}
			return fieldsInOrder(t, in, key, len(r[0].Elements)/2, byName)
		}
	case *docLayout:
		d := conn.(driver.Document)
		return func(key string) [][]byte {
			doc, ok, err := d.Get(ctx, l.coll, key, nil)
			if err != nil || !ok {
				t.Fatalf("document %s: %v (found: %v)", key, err, ok)
			}
			byName := map[string][]byte{}
			for name, v := range doc {
				switch v := v.(type) {
				case []byte:
					byName[name] = v
				case string:
					byName[name] = []byte(v)
				}
			}
			return fieldsInOrder(t, in, key, len(doc)-1, byName) // less _id
		}
	}
	t.Fatalf("no reader for layout %T", in.layout)
	return nil
}

// fieldsInOrder are a record's values by field order; the record must have
// exactly the workload's fields.
func fieldsInOrder(t *testing.T, in *instance, key string, n int, byName map[string][]byte) [][]byte {
	t.Helper()
	if n != len(in.fields) {
		t.Fatalf("record %s has %d fields, want %d", key, n, len(in.fields))
	}
	out := make([][]byte, len(in.fields))
	for i, f := range in.fields {
		v, ok := byName[f]
		if !ok {
			t.Fatalf("record %s has no %s", key, f)
		}
		out[i] = v
	}
	return out
}

// checkIndex: the index holds every record's key, scored by Java's
// String.hashCode of the record's name, as YCSB's redis binding scores it.
func checkIndex(t *testing.T, l *kvLayout, conn driver.Conn, records int) {
	t.Helper()
	r := make([]driver.KVReply, 1)
	cmd := driver.KVCommand{Name: "ZRANGE", Key: l.index, Args: [][]byte{[]byte("0"), []byte("-1"), []byte("WITHSCORES")}}
	if err := conn.(driver.KV).Pipeline(context.Background(), []driver.KVCommand{cmd}, r); err != nil || r[0].Err != nil {
		t.Fatalf("ZRANGE %s: %v %v", l.index, err, r[0].Err)
	}
	if len(r[0].Elements) != 2*records {
		t.Fatalf("the index holds %d members, want %d", len(r[0].Elements)/2, records)
	}
	for i := 0; i < len(r[0].Elements); i += 2 {
		member, score := string(r[0].Elements[i]), string(r[0].Elements[i+1])
		name, ok := bytes.CutPrefix([]byte(member), []byte(l.prefix))
		if !ok {
			t.Fatalf("index member %s is not under %s", member, l.prefix)
		}
		if want := fmt.Sprint(javaHashCode(string(name))); score != want {
			t.Fatalf("index member %s scores %s, want %s", member, score, want)
		}
	}
}
