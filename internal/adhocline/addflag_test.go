package adhocline_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/adhocline"
	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/workload"
)

// TestAddingAnAdhocFlag walks through docs/architecture.md's "Adding an
// ad-hoc flag": a flag is a declaration in its workload, nothing else.
// flagdemo is a workload whose peer tool spells its batch size -B/--batch
// and its duration --seconds.

// Step 1: the parameter the flag sets is one of the workload's, with its
// kind, bounds, default and help (a real workload declares it in
// internal/params/<kind>params).
var batchSpec = params.Spec{Name: "batch_size", Kind: params.Int, Default: int64(16),
	Min: params.MinOf(1), Max: params.MaxOf(4096), Help: "rows per statement"}

type flagDemo struct{}

func (flagDemo) Kind() string                                 { return "flagdemo" }
func (flagDemo) Description() string                          { return "walks through adding an ad-hoc flag" }
func (flagDemo) Params() []params.Spec                        { return []params.Spec{batchSpec} }
func (flagDemo) New(params.Values) (workload.Instance, error) { return nil, errors.New("runs nothing") }

// Step 2: the workload declares the flag (workload.Flagger), named and
// spelled as its peer tool names it: a parameter flag names its Param, a
// cell field flag its Field (and the default the peer tool has); Values
// translates the peer's spellings of a value.
func (flagDemo) Flags() []workload.Flag {
	return []workload.Flag{
		{Name: "batch", Shorthand: "B", Param: batchSpec.Name, Values: map[string]string{"max": "4096"}},
		{Name: "seconds", Field: workload.FieldDuration, Default: "10", Usage: "measured duration in seconds"},
	}
}

// Step 3: the workload is registered, once, in its package's init (here the
// test's).
func init() { workload.Register(workload.Plugin{Workload: flagDemo{}}) }

func TestAddingAnAdhocFlag(t *testing.T) {
	// Every command that takes the workload's flags now defines it, with the
	// parameter's type and default in its help...
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	if _, err := adhocline.Define(fs, "flagdemo", true); err != nil {
		t.Fatal(err)
	}
	f := fs.ShorthandLookup("B")
	if f == nil || f.Name != "batch" || f.Value.Type() != "int" || f.DefValue != "16" || f.Usage != batchSpec.Help {
		t.Fatalf("-B defined as %+v; want --batch, an int, default 16, the parameter's help", f)
	}

	// ...the command line sets the cell's parameter and field...
	c, _, err := parse("--target", "sqlite:x.db", "--workload", "flagdemo", "-B", "max", "--seconds", "5")
	if err != nil {
		t.Fatal(err)
	}
	if param(c, "batch_size") != int64(4096) || c.Study.Duration != 5*time.Second {
		t.Errorf("batch_size %v, duration %s; want 4096 (the peer's max) and 5s", param(c, "batch_size"), c.Study.Duration)
	}
	c, _, err = parse("--target", "sqlite:x.db", "--workload", "flagdemo")
	if err != nil || param(c, "batch_size") != nil || c.Study.Duration != 10*time.Second {
		t.Errorf("no flags: batch_size %v, duration %v, error %v; want the parameter's default (left to the workload) and the flag's 10 s", param(c, "batch_size"), c.Study.Duration, err)
	}

	// ...a value out of the parameter's bounds is refused naming the flag...
	if _, _, err := parse("--target", "sqlite:x.db", "--workload", "flagdemo", "--batch", "0"); err == nil ||
		err.Error() != "-B/--batch: batch_size must be at least 1, got 0" {
		t.Errorf("--batch 0: %v", err)
	}

	// ...and another workload given the flag says what it means here.
	_, _, err = parse("--target", "sqlite:x.db", "--workload", "oltp", "--batch", "8")
	if err == nil || !strings.Contains(adhocline.ExplainFlagError("run", "oltp", err), "flagdemo does (-B/--batch: rows per statement)") {
		t.Errorf("oltp given --batch: %v", err)
	}
}
