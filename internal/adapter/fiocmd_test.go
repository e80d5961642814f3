package adapter

import (
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/params/fioparams"
)

// A fio cell's parameters are fioparams': the kind's catalog and the command
// builder read the same names, and a parameter left out takes its default.
func TestBuildFio(t *testing.T) {
	specs, ok := KindParams("fio")
	if !ok || len(specs) != len(fioparams.Specs()) {
		t.Fatalf("KindParams(fio) = %d specs, %v; want fioparams.Specs()", len(specs), ok)
	}
	inv := Invocation{URL: "file:///srv/disk", WorkDir: "/srv/disk/cell-1", Clients: 4, Duration: 30 * time.Second,
		Params: map[string]any{fioparams.Preset: fioparams.SeqRead, fioparams.Direct: false}}
	c, err := buildFio(inv)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "argv", strings.Join(c.Argv, " "), "fio --name=seqread --directory=/srv/disk/cell-1 --rw=read --bs=1M --iodepth=16 "+
		"--numjobs=4 --direct=0 --ioengine=libaio --size=1G --runtime=30 --time_based --group_reporting --output-format=json")
	fp, err := fioWrites(inv)
	if err != nil || fp.Dir != "/srv/disk" || fp.Keep {
		t.Errorf("fioWrites = %+v, %v; want the target's directory, not kept", fp, err)
	}
	inv.Params[fioparams.KeepFiles] = true
	if fp, _ := fioWrites(inv); !fp.Keep {
		t.Error("keep_files = true: the files are not kept")
	}
	if _, err := buildFio(Invocation{URL: "postgres://h/db"}); err == nil || !strings.Contains(err.Error(), "file:///directory") {
		t.Errorf("a postgres:// target: err = %v", err)
	}
}
