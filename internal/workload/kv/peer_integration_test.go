package kv_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

// kvCell is a one-cell kv study on url: the native workload, or tool's
// cell (tool = "memtier_benchmark") with the same parameters.
func kvCell(url, tool, prefix string) string {
	line := `kind = "kv"`
	if tool != "" {
		line = fmt.Sprintf("tool = %q", tool)
	}
	return fmt.Sprintf(`
[study]
name = "kv beside its peer"
warmup = "0s"
duration = "120s"
[[target]]
name = "valkey"
url = "%s"
[[workload]]
%s
clients = [4]
threads = 2
ratio = "1:3"
pipeline = 16
requests = 3000
key_maximum = 3999
data_size = 64
key_prefix = "%s"
`, url, line, prefix)
}

func requestCount(r *result.Run) int64 {
	var n int64
	for _, op := range r.Ops {
		n += op.Count
		for _, e := range op.Errors {
			n += e
		}
	}
	return n
}

// memtier_benchmark and fairbench's kv, one after the other on the same
// Valkey with the same parameters (SET:GET 1:3, the window of 16 requests,
// 3 000 requests on each of 4 connections, keys 0–3999 under prefixes of
// their own, nothing written before): both send exactly the requests asked
// for, memtier's count as it reports it (its JSON, read by the adapter that
// imports it) and fairbench's as it records it; and the GETs find the same
// share of keys, the hits over hits and misses memtier reports against
// fairbench's, within 5 points (binomial noise on 9 000 GETs is a fifth of
// a point; the share, about 30 %, depends only on how many SETs came before
// each GET, which the same cycle makes the same in both, and hits counted as
// misses would make it 70 %). Rates are not compared: on a
// shared 2-vCPU host they vary 2× from one minute to the next
// (bench/README.md), and bench/kv.sh pairs them instead.
func TestKVAgreesWithMemtier(t *testing.T) {
	url := testenv.ValkeyURL(t)
	bin := testenv.Memtier(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	peer := runStudy(t, kvCell(url, "memtier_benchmark", testenv.RedisKeyPrefix(t)))
	own := runStudy(t, kvCell(url, "", testenv.RedisKeyPrefix(t)))
	const want = 4 * 3000
	if n := requestCount(peer); n != want {
		t.Errorf("memtier reported %d requests, want %d (4 connections × 3000)", n, want)
	}
	if n := requestCount(own); n != want {
		t.Errorf("fairbench recorded %d requests, want %d (4 connections × 3000)", n, want)
	}
	peerHits, peerMisses := peer.Summary.Extra["hits_per_sec"], peer.Summary.Extra["misses_per_sec"]
	ownHits, ownMisses := own.Summary.Extra["hits"], own.Summary.Extra["misses"]
	if peerHits+peerMisses == 0 || ownHits+ownMisses == 0 {
		t.Fatalf("no GETs counted: memtier hits/misses per second %v/%v, fairbench hits/misses %v/%v", peerHits, peerMisses, ownHits, ownMisses)
	}
	if got := ownHits + ownMisses; got != want*3/4 {
		t.Errorf("fairbench's hits + misses = %v, want its %d GETs", got, want/2)
	}
	peerShare, ownShare := peerHits/(peerHits+peerMisses), ownHits/(ownHits+ownMisses)
	t.Logf("hit share: memtier %.4f, fairbench %.4f", peerShare, ownShare)
	if math.Abs(peerShare-ownShare) > 0.05 || ownShare < 0.1 || ownShare > 0.5 {
		t.Errorf("GETs hit %.1f %% of the time under memtier, %.1f %% under fairbench: want within 5 points, fairbench's between 10 and 50 %%", 100*peerShare, 100*ownShare)
	}
}
