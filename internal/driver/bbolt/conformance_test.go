package bbolt_test

import (
	"testing"

	_ "github.com/fairbench/fairbench/internal/driver/bbolt"
	"github.com/fairbench/fairbench/internal/testenv/kvtest"
)

func TestConformance(t *testing.T) {
	kvtest.Conformance(t, kvtest.Engine{
		Scheme:   "bbolt",
		NoSync:   "nosync=true",
		ValidKey: "nosync",
		BadValue: "nosync=maybe",
	})
}
