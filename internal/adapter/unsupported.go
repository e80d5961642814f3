package adapter

import (
	"regexp"

	"github.com/fairbench/fairbench/internal/result"
)

// Tools whose output is recognised but not parsed: no real output of them
// has been captured to write a parser against (parsers are only written
// against real outputs). Recognising them lets import say exactly that
// instead of "unknown format".

var hammerdbTool = &Tool{
	Name:        "hammerdb",
	Kind:        "tpcc",
	Detect:      regexp.MustCompile(`(?m)(System achieved \d+ NOPM from \d+ .* TPM|Vuser \d+:TEST RESULT)`).MatchString,
	Parse:       func(string, string) ([]*result.Run, error) { return nil, nil },
	Unsupported: "HammerDB is not obtainable on the project's machines, so no real output could be captured to test a parser against",
}
