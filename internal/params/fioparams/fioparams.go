// Package fioparams declares the parameters of the fio kind — a fio study
// cell's job — once, for the fio command builder (internal/adapter) and the
// study catalog, so that no one reads them by string key. fio has no native
// workload: the adapter registers the kind. It imports nothing but params.
package fioparams

import "github.com/fairbench/fairbench/internal/params"

// Names of the fio kind's parameters, spelled here only.
const (
	Preset    = "preset"
	size      = "size"
	Direct    = "direct"
	ioEngine  = "ioengine"
	KeepFiles = "keep_files"
)

// Presets, the job shapes of published disk studies.
const (
	RandRW   = "randrw"
	SeqRead  = "seqread"
	SeqWrite = "seqwrite"
)

// Specs are the fio kind's parameters.
func Specs() []params.Spec {
	return []params.Spec{
		{Name: Preset, Kind: params.String, Default: RandRW, Choices: []string{RandRW, SeqRead, SeqWrite},
			Help: "randrw: random 80/20 read/write, 8k, iodepth 32; seqread / seqwrite: 1M, iodepth 16 (the shapes of published disk studies)"},
		{Name: size, Kind: params.String, Default: "1G", Help: "file size per job (fio --size)"},
		{Name: Direct, Kind: params.Bool, Default: true, Help: "O_DIRECT, bypassing the page cache"},
		{Name: ioEngine, Kind: params.String, Default: "libaio", Help: "fio --ioengine"},
		{Name: KeepFiles, Kind: params.Bool, Default: false,
			Help: "keep the cell's data files (clients × size) in the directory fairbench made for them inside the target's; by default it is removed after the cell"},
	}
}

// Options are a fio cell's parameters, decoded once.
type Options struct {
	Preset    string
	Size      string
	Direct    bool
	IOEngine  string
	KeepFiles bool
}

// Decode reads a fio cell's values; a missing one takes its default.
func Decode(v params.Values) Options {
	v = params.WithDefaults(Specs(), v)
	return Options{Preset: v.String(Preset), Size: v.String(size), Direct: v.Bool(Direct),
		IOEngine: v.String(ioEngine), KeepFiles: v.Bool(KeepFiles)}
}
