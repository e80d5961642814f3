package tpcc

import (
	"context"
	"errors"

	"github.com/fairbench/fairbench/internal/driver"
)

// Replaced by procs.go.
func installProcedures(context.Context, driver.SQL) error { return errors.New("not yet") }

func newProcTxns(context.Context, driver.SQL) (txns, error) { return nil, errors.New("not yet") }
