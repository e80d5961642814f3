# go-ycsb (github.com/pingcap/go-ycsb; binary /work/main/.bin/go-ycsb, go1.26.8,
# module version "(devel)" per `go version -m`, presumably the v1.0.1 source), run on 2026-11-25T19:13:20Z:
/work/main/.bin/go-ycsb load basic -p recordcount=20 -p insertorder=hashed -p verbose=true -p threadcount=1 > goycsb_load_hashed.out 2>&1
# go-ycsb's keys differ from YCSB's for every key number but 0 (its Hash64
# hashes the number's bytes big-endian; YCSB's fnvhash64 low byte first).
