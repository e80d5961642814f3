package analysis

import (
	"testing"

	"github.com/fairbench/fairbench/internal/result"
)

func viewed(id int64, target string, clients int, active int64, waits map[string]int64) *result.Run {
	r := okRun(id, target, clients, 100)
	v := &result.ServerView{Samples: 10, Active: active}
	for name, n := range waits {
		v.Waits = append(v.Waits, result.ViewWait{Name: name, Samples: n})
	}
	r.ServerView = v
	return r
}

// A wait state is named only where its shares differ by both 10 points and
// 2×, between views with enough samples; repetitions pool.
func TestWaitDifferences(t *testing.T) {
	runs := []*result.Run{
		// 1 client: 41 % vs 9 % (pooled over two repetitions of a): named.
		viewed(1, "a", 1, 50, map[string]int64{"IO:WALSync": 20, "CPU": 30}),
		viewed(2, "a", 1, 50, map[string]int64{"IO:WALSync": 21, "CPU": 29}),
		viewed(3, "b", 1, 100, map[string]int64{"IO:WALSync": 9, "CPU": 91}),
		// 2 clients: 60 % vs 50 %: not 2×. 4 % vs 1 %: not 10 points.
		viewed(4, "a", 2, 100, map[string]int64{"CPU": 60, "Lock:tuple": 4, "IO:DataFileRead": 36}),
		viewed(5, "b", 2, 100, map[string]int64{"CPU": 50, "Lock:tuple": 1, "IO:DataFileRead": 49}),
		// 4 clients: a marked difference on too few samples.
		viewed(6, "a", 4, 10, map[string]int64{"IO:WALSync": 9, "CPU": 1}),
		viewed(7, "b", 4, 10, map[string]int64{"CPU": 10}),
	}
	groups, err := GroupRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	got := WaitDifferences(groups)
	if len(got) != 1 {
		t.Fatalf("%d differences, want 1: %+v", len(got), got)
	}
	d := got[0]
	if d.Wait != "IO:WALSync" || d.High != "a" || d.Low != "b" || d.HighShare != 0.41 || d.LowShare != 0.09 || d.Clients != 1 {
		t.Fatalf("difference %+v", d)
	}
	if d.Cell != "tpcb, 1 client" {
		t.Fatalf("cell named %q", d.Cell)
	}
}
