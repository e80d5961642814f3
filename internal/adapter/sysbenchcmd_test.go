package adapter

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/params/oltpparams"
)

// TestBuildSysbenchEvents: the oltp kind's events parameter is sysbench's
// --events, given only when set (sysbench's 0 is no limit).
func TestBuildSysbenchEvents(t *testing.T) {
	for events, want := range map[int64]string{0: "", 40: " --events=40 "} {
		v := params.WithDefaults(oltpparams.Specs(), params.Values{oltpparams.Events: events})
		c, err := buildSysbench(Invocation{URL: "mysql://sb@127.0.0.1:3306/sbtest", Clients: 2, Duration: 3 * time.Second, Params: v})
		if err != nil {
			t.Fatal(err)
		}
		argv := strings.Join(c.Argv, " ") + " "
		if want != "" && !strings.Contains(argv, want) || want == "" && strings.Contains(argv, "--events") {
			t.Errorf("events %d: %s", events, argv)
		}
	}
}
