// Package ycsb is fairbench's native YCSB workload (kind "ycsb"): YCSB's
// CoreWorkload (site.ycsb.workloads.CoreWorkload, YCSB 0.18.0-SNAPSHOT
// d9faaac8) — its number generators, key building and properties exactly as
// YCSB defines them (gen.go, keys.go, props.go, presets.go) — run by
// fairbench's clients on SQL tables, Redis/Valkey hashes, embedded KV values
// and document collections, each kept as YCSB's binding for that engine keeps
// it (store*.go), and reported in YCSB's shape (summary.go).
//
// Every generator draws from a *rand.Rand (math/rand/v2) passed in by the
// caller, so each client owns its random stream and no draw touches global
// state. Generators that are shared between clients (the zipfian whose item
// count grows, the counters) are safe for concurrent use without a lock on the
// sampling path.
//
// Why our own code rather than github.com/pingcap/go-ycsb (v1.0.1)? Its
// generators are close to YCSB's, but not the same where it matters for a
// comparison with YCSB:
//   - its util.Hash64 feeds the key number's bytes to FNV-1a most significant
//     byte first, where YCSB's Utils.fnvhash64 takes the least significant byte
//     first: for insertorder=hashed (YCSB's default) go-ycsb loads other keys
//     than YCSB (only key 0 agrees; see testdata/ and TestHashedKeysYCSB), and
//     the scrambled zipfian spreads its hot items differently;
//   - it has no minfieldlength and no minscanlength: its uniform and zipfian
//     field lengths and scan lengths always start at 1;
//   - its Zipfian takes a spin lock when the item count has grown (in
//     "latest", each time the inserts advanced) but reads zetan/eta outside that lock, and its acknowledged
//     counter's window is a plain []bool written by many goroutines: data
//     races under Go's memory model. Here the zeta state is an immutable
//     snapshot behind an atomic pointer and the window is atomic.
//
// Its zipfian constant is YCSB's 0.99 (and it does not read a
// "zipfianconstant" property either); it does not take a lock per sample.
// Where this package deliberately differs from YCSB, the doc comment of the
// function says so (AckCounter.Acknowledge, NewHotspot, ParseConfig).
package ycsb
