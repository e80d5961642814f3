package tpcb

import (
	"fmt"
	"strconv"
)

// Facts the summary reads to print pgbench's per-script and per-statement
// report: "script S" is a script's name and weight, "statement S.C" a
// command's first line (with -r).
func (in *instance) scriptFacts() [][2]string {
	if in.scripts == nil {
		return nil
	}
	var facts [][2]string
	for si, sc := range in.scripts.scripts {
		if in.custom && len(in.scripts.scripts) > 1 {
			facts = append(facts, [2]string{scriptFact(si), fmt.Sprintf("%d %s", sc.weight, sc.name)})
		}
		if !in.perStatement {
			continue
		}
		for ci, cmd := range sc.cmds {
			facts = append(facts, [2]string{statementFact(si, ci), cmd.first})
		}
	}
	return facts
}

func scriptFact(script int) string { return "script " + strconv.Itoa(script+1) }

func statementFact(script, cmd int) string {
	return "statement " + strconv.Itoa(script+1) + "." + strconv.Itoa(cmd+1)
}
