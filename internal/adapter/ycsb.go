package adapter

import "github.com/fairbench/fairbench/internal/result"

var ycsbTool = &Tool{Name: "ycsb", Kind: "ycsb", Detect: func(string) bool { return false }, Parse: func(string, string) ([]*result.Run, error) { return nil, nil }}
