package adapter

import (
	"fmt"
	"net/url"
	"strconv"

	"github.com/fairbench/fairbench/internal/params/fioparams"
)

// fioPresets are the job shapes of published disk studies.
var fioPresets = map[string][]string{
	fioparams.RandRW:   {"--rw=randrw", "--rwmixread=80", "--bs=8k", "--iodepth=32"},
	fioparams.SeqRead:  {"--rw=read", "--bs=1M", "--iodepth=16"},
	fioparams.SeqWrite: {"--rw=write", "--bs=1M", "--iodepth=16"},
}

// fioTargetDir is a fio target's directory: a fio target is written
// file:///path/to/dir.
func fioTargetDir(inv Invocation) (string, error) {
	u, err := url.Parse(inv.URL)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", fmt.Errorf("fio needs a file:///directory target (the directory fio writes its files in)")
	}
	return u.Path, nil
}

// fioWrites: fio lays out clients × size bytes of files (<preset>.<job>.0)
// in its directory; a cell's runs get a new directory inside the target's,
// so that they never overwrite a file there, and it goes with the cell.
func fioWrites(inv Invocation) (Footprint, error) {
	dir, err := fioTargetDir(inv)
	return Footprint{Dir: dir, Keep: fioparams.Decode(inv.Params).KeepFiles}, err
}

// buildFio runs the preset in the cell's own directory inside the target's.
func buildFio(inv Invocation) (Command, error) {
	dir, err := fioTargetDir(inv)
	if err != nil {
		return Command{}, err
	}
	if inv.WorkDir != "" {
		dir = inv.WorkDir
	}
	o := fioparams.Decode(inv.Params)
	a := []string{"fio", "--name=" + o.Preset, "--directory=" + dir}
	a = append(a, fioPresets[o.Preset]...)
	direct := "0"
	if o.Direct {
		direct = "1"
	}
	a = append(a, "--numjobs="+strconv.Itoa(inv.Clients), "--direct="+direct, "--ioengine="+o.IOEngine,
		"--size="+o.Size, "--runtime="+secs(inv.Duration), "--time_based", "--group_reporting",
		"--output-format=json")
	return Command{Argv: a}, nil
}
