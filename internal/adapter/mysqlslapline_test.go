package adapter

import (
	"slices"
	"strings"
	"testing"
)

// TestMysqlslapLineAsACell: mysqlslap's documented line is its tool cell
// (the target from --host/--port/--user, --concurrency's list as levels,
// the generated load's options as parameters, no password in the URL);
// its own SQL, a bad level or port is refused naming the option.
func TestMysqlslapLineAsACell(t *testing.T) {
	l, err := mysqlslapTool.FromLine(strings.Fields("--host=10.0.0.5 --user=bench -psecret99 --concurrency=1,2,4,8 --iterations=3 " +
		"--number-of-queries=10000 --auto-generate-sql --auto-generate-sql-load-type=read --create-schema=slap"))
	if err != nil {
		t.Fatal(err)
	}
	if l.URL != "mysql://bench@10.0.0.5:3306" || !slices.Equal(l.Clients, []int{1, 2, 4, 8}) || !l.Password {
		t.Errorf("URL %q, clients %v, password %v", l.URL, l.Clients, l.Password)
	}
	if l.Params["load_type"] != "read" || l.Params["queries"] != int64(10000) || l.Params["schema"] != "slap" {
		t.Errorf("params %v", l.Params)
	}
	for line, want := range map[string]string{
		"--query=select1 --concurrency=2":                        "--query",
		"--auto-generate-sql --concurrency=0,2":                  "--concurrency",
		"--auto-generate-sql --port=0":                           "--port",
		"--auto-generate-sql --iterations=0":                     "iterations",
		"--auto-generate-sql --no-such-option=1":                 "no-such-option",
		"--auto-generate-sql --auto-generate-sql-load-type=drop": "load_type",
	} {
		if _, err := mysqlslapTool.FromLine(strings.Fields(line)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one naming %s", line, err, want)
		}
	}
}
