package adhocline

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/redact"
	"github.com/fairbench/fairbench/internal/workload"
)

// connection is a workload's peer connection flags as Define put them on
// the flag set, read back by Flags.Target.
type connection struct {
	decl   *workload.Connection
	values map[string]*string // by flag name, the scheme flag's too
}

// defineConnection defines the connection flags of c on fs: string flags,
// with their shorthand unless fs has it already or it is "h" (help's,
// which PeerLine turns into the host flag when a value follows).
func defineConnection(fs *pflag.FlagSet, c *workload.Connection) *connection {
	if c == nil {
		return nil
	}
	conn := &connection{decl: c, values: map[string]*string{}}
	define := func(name, shorthand, usage string) {
		if fs.Lookup(name) != nil {
			return
		}
		if shorthand == "h" || (shorthand != "" && fs.ShorthandLookup(shorthand) != nil) {
			shorthand = ""
		}
		conn.values[name] = fs.StringP(name, shorthand, "", usage)
	}
	if c.SchemeFlag != "" {
		define(c.SchemeFlag, "", "the server's kind: "+strings.Join(sortedKeys(c.Schemes), " or ")+" (builds the target URL with the flags below, instead of --target)")
	}
	for _, f := range c.Flags {
		usage := f.Usage
		if f.Part == workload.PartPassword {
			usage += "; it goes into the target URL, which fairbench never prints or stores with its password"
		}
		define(f.Name, f.Shorthand, usage)
	}
	return conn
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Target is the target URL of the line: given (--target) when no peer
// connection flag is given, else the URL those flags build. Both is an
// error, as is a flag of another scheme than the line's (sysbench's
// --pgsql-host with --db-driver=mysql). A password given as a flag is
// registered as a secret (internal/redact) before anything prints it.
func (f *Flags) Target(given string) (string, error) {
	c := f.conn
	if c == nil {
		return given, nil
	}
	var changed []string
	for _, name := range f.connNames() {
		if f.fs.Changed(name) {
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 {
		return given, nil
	}
	if given != "" {
		return "", fmt.Errorf("--target and --%s: give the server one way, --target URL or the peer tool's connection flags", changed[0])
	}
	scheme := c.decl.Scheme
	if name := c.decl.SchemeFlag; name != "" && f.fs.Changed(name) {
		v := *c.values[name]
		s, ok := c.decl.Schemes[v]
		if !ok {
			return "", fmt.Errorf("--%s=%s: this workload runs on %s", name, v, strings.Join(sortedKeys(c.decl.Schemes), " or "))
		}
		scheme = s
	}
	parts := map[workload.URLPart]string{}
	for _, d := range []map[workload.URLPart]string{c.decl.Defaults[""], c.decl.Defaults[scheme]} {
		for p, v := range d {
			parts[p] = v
		}
	}
	for _, fl := range c.decl.Flags {
		v, ok := c.values[fl.Name]
		if !ok || !f.fs.Changed(fl.Name) {
			continue
		}
		if fl.Scheme != "" && fl.Scheme != scheme {
			return "", fmt.Errorf("--%s is for %s:// servers, and this line's is %s://%s", fl.Name, fl.Scheme, scheme, c.otherFlag(fl.Part, scheme))
		}
		parts[fl.Part] = *v
	}
	return buildURL(scheme, parts, c.flagOf(workload.PartPort, scheme))
}

// connNames are the connection's flags defined on the flag set.
func (f *Flags) connNames() []string {
	names := make([]string, 0, len(f.conn.values))
	if n := f.conn.decl.SchemeFlag; n != "" {
		names = append(names, n)
	}
	for _, fl := range f.conn.decl.Flags {
		if _, ok := f.conn.values[fl.Name]; ok {
			names = append(names, fl.Name)
		}
	}
	return names
}

// flagOf names the connection flag of part for scheme ("-p/--port"),
// "--port" without one.
func (c *connection) flagOf(part workload.URLPart, scheme string) string {
	for _, fl := range c.decl.Flags {
		if fl.Part == part && (fl.Scheme == "" || fl.Scheme == scheme) {
			if fl.Shorthand != "" {
				return "-" + fl.Shorthand + "/--" + fl.Name
			}
			return "--" + fl.Name
		}
	}
	return "--" + string(part)
}

// otherFlag is ": use --NAME", the flag of part for scheme, or "".
func (c *connection) otherFlag(part workload.URLPart, scheme string) string {
	for _, fl := range c.decl.Flags {
		if fl.Part == part && fl.Scheme == scheme {
			return ": use --" + fl.Name
		}
	}
	return ""
}

// buildURL is scheme://user[:password]@host[:port]/database; host
// defaults to localhost. portFlag names the port's flag in its error.
func buildURL(scheme string, parts map[workload.URLPart]string, portFlag string) (string, error) {
	if scheme == "" {
		return "", fmt.Errorf("the connection flags name no kind of server: give --target URL")
	}
	host := parts[workload.PartHost]
	if host == "" {
		host = "localhost"
	}
	if strings.ContainsAny(host, "/@?#") {
		return "", fmt.Errorf("host %q: a host name or address, without a scheme or path (or give --target URL)", host)
	}
	if p := parts[workload.PartPort]; p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("%s %q: a port is a number from 1 to 65535", portFlag, p)
		}
		host = net.JoinHostPort(host, p)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	u := url.URL{Scheme: scheme, Host: host}
	user, password := parts[workload.PartUser], parts[workload.PartPassword]
	switch {
	case password != "":
		redact.AddSecret(password)
		u.User = url.UserPassword(user, password)
	case user != "":
		u.User = url.User(user)
	}
	if db := parts[workload.PartDatabase]; db != "" {
		u.Path = "/" + db
	}
	return u.String(), nil
}
