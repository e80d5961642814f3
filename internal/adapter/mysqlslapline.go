package adapter

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/params"
	"github.com/fairbench/fairbench/internal/redact"
)

// readMysqlslapLine reads mysqlslap's command line as a study cell of the
// tool: its connection options the mysql:// target, --concurrency's list
// the clients levels, and the auto-generated SQL's options the
// parameters (mysqlslapParams). A line of its own SQL (--query, without
// --auto-generate-sql) is refused: the cell runs the generated load only.
func readMysqlslapLine(args []string) (ToolLine, error) {
	fs := pflag.NewFlagSet("mysqlslap", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	host := fs.StringP("host", "h", "localhost", "")
	port := fs.StringP("port", "P", "3306", "")
	user := fs.StringP("user", "u", "", "")
	password := fs.StringP("password", "p", "", "")
	concurrency := fs.StringP("concurrency", "c", "1", "")
	auto := fs.BoolP("auto-generate-sql", "a", false, "")
	query := fs.StringP("query", "q", "", "")
	values := map[string]*string{}
	for _, o := range []struct{ flag, shorthand, param string }{
		{"auto-generate-sql-load-type", "", "load_type"}, {"number-of-queries", "", "queries"},
		{"iterations", "i", "iterations"}, {"engine", "e", "engine"}, {"create-schema", "", "schema"},
	} {
		values[o.param] = fs.StringP(o.flag, o.shorthand, "", "")
	}
	fs.BoolP("verbose", "v", false, "")
	fs.Bool("silent", false, "")
	fs.Bool("csv", false, "")
	if err := fs.Parse(args); err != nil {
		return ToolLine{}, fmt.Errorf("mysqlslap: %v", err)
	}
	if *query != "" || !*auto {
		return ToolLine{}, fmt.Errorf("mysqlslap: a study runs mysqlslap's --auto-generate-sql load only; this line runs its own SQL (--query)")
	}
	if len(fs.Args()) > 0 {
		return ToolLine{}, fmt.Errorf("mysqlslap: %q: not an option mysqlslap's cell takes", fs.Args()[0])
	}
	l := ToolLine{Params: map[string]any{}, Password: *password != ""}
	redact.AddSecret(*password) // the line is quoted where it is reported
	for _, c := range strings.Split(*concurrency, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 || n > params.MaxClients {
			return ToolLine{}, fmt.Errorf("mysqlslap --concurrency %q: client counts from 1 to %d, separated by commas", *concurrency, params.MaxClients)
		}
		l.Clients = append(l.Clients, n)
	}
	for name, v := range values {
		if *v == "" {
			continue
		}
		spec, _ := params.Find(mysqlslapParams, name)
		x, err := params.Coerce(spec, *v)
		if err != nil {
			return ToolLine{}, fmt.Errorf("mysqlslap: %v", err)
		}
		l.Params[name] = x
	}
	u := url.URL{Scheme: "mysql", Host: *host}
	if n, err := strconv.Atoi(*port); err != nil || n < 1 || n > 65535 {
		return ToolLine{}, fmt.Errorf("mysqlslap --port %q: a number from 1 to 65535", *port)
	}
	u.Host = net.JoinHostPort(*host, *port)
	if *user != "" {
		u.User = url.User(*user)
	}
	l.URL = u.String()
	return l, nil
}
