package pebble_test

import (
	"testing"

	_ "github.com/fairbench/fairbench/internal/driver/pebble"
	"github.com/fairbench/fairbench/internal/testenv/kvtest"
)

func TestConformance(t *testing.T) {
	kvtest.Conformance(t, kvtest.Engine{
		Scheme:   "pebble",
		NoSync:   "sync=false",
		ValidKey: "mem_table_size",
		BadValue: "cache_size=lots",
	})
}
