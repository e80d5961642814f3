package redis_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fairbench/fairbench/internal/driver"
	_ "github.com/fairbench/fairbench/internal/driver/redis"
	"github.com/fairbench/fairbench/internal/result"
	"github.com/fairbench/fairbench/internal/testenv"
)

func kvSession(t *testing.T, raw string) driver.KV {
	t.Helper()
	return testenv.Connect(t, raw, driver.Options{}).(driver.KV)
}

func pipeline(t *testing.T, kv driver.KV, cmds ...driver.KVCommand) []driver.KVReply {
	t.Helper()
	r := make([]driver.KVReply, len(cmds))
	if err := kv.Pipeline(context.Background(), cmds, r); err != nil {
		t.Fatal(err)
	}
	return r
}

func cmd(name string, args ...string) driver.KVCommand {
	c := driver.KVCommand{Name: name}
	for i, a := range args {
		switch i {
		case 0:
			c.Key = []byte(a)
		case 1:
			c.Value = []byte(a)
		default:
			c.Args = append(c.Args, []byte(a))
		}
	}
	return c
}

// A pipeline's replies come back in order, each with its own latency from
// the send (never less than the one before), hits and misses told apart, and
// the wire size of command and reply.
func TestPipelineOnRedisAndValkey(t *testing.T) {
	for name, raw := range map[string]string{"redis": testenv.RedisURL(t), "valkey": testenv.ValkeyURL(t)} {
		t.Run(name, func(t *testing.T) {
			p := testenv.RedisKeyPrefix(t)
			kv := kvSession(t, raw)
			r := pipeline(t, kv, cmd("SET", p+"a", "hello"), cmd("GET", p+"a"), cmd("GET", p+"missing"),
				cmd("INCR", p+"n"), cmd("INCR", p+"n"), cmd("INCR", p+"a"), cmd("NOSUCHCOMMAND", p+"x"))
			if string(r[0].Value) != "OK" || string(r[1].Value) != "hello" || r[1].Miss || !r[2].Miss {
				t.Fatalf("SET/GET/GET-miss: %+v %+v %+v", r[0], r[1], r[2])
			}
			if string(r[3].Value) != "1" || string(r[4].Value) != "2" {
				t.Fatalf("INCR: %q %q", r[3].Value, r[4].Value)
			}
			if r[5].Err == nil || r[6].Err == nil || r[5].Class == "" {
				t.Fatalf("error replies must come back as errors of the reply: %+v %+v", r[5], r[6])
			}
			for i := range r {
				if r[i].Latency <= 0 || (i > 0 && r[i].Latency < r[i-1].Latency) {
					t.Errorf("reply %d: latency %v after %v", i, r[i].Latency, r[max(i-1, 0)].Latency)
				}
			}
			// *3 $3 SET $len key $5 hello (command) + +OK (reply)
			if want := int64(len("*3\r\n$3\r\nSET\r\n$"+fmt.Sprint(len(p+"a"))+"\r\n"+p+"a\r\n$5\r\nhello\r\n") + len("+OK\r\n")); r[0].Bytes != want {
				t.Errorf("SET bytes %d, want %d", r[0].Bytes, want)
			}
		})
	}
}

func environment(t *testing.T, raw string) result.Database {
	t.Helper()
	env, err := testenv.Open(t, raw, driver.Options{}).(driver.Environment).Environment(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestEnvironmentTellsRedisFromValkey(t *testing.T) {
	r := environment(t, testenv.RedisURL(t))
	v := environment(t, testenv.ValkeyURL(t))
	if r.Engine != "redis" || !strings.HasPrefix(r.Version, "7.") {
		t.Errorf("redis: engine %v version %v", r.Engine, r.Version)
	}
	if v.Engine != "valkey" || !strings.HasPrefix(v.Version, "9.") {
		t.Errorf("valkey: engine %v version %v", v.Engine, v.Version)
	}
	for _, env := range []result.Database{r, v} {
		s := env.Settings
		if s["maxmemory-policy"] == "" || s["appendonly"] != "no" {
			t.Errorf("%v: settings %v lack the memory policy or persistence", env.Engine, s)
		}
		info, _ := env.Extra["info"].(map[string]string)
		if info["mem_allocator"] == "" {
			t.Errorf("%v: INFO facts %v lack the allocator", env.Engine, info)
		}
	}
}

func TestTLSAndCredentials(t *testing.T) {
	raw, ca := testenv.RedisTLS(t)
	withCA := testenv.WithQuery(t, raw, "ca", ca)
	p := testenv.RedisKeyPrefix(t)
	r := pipeline(t, kvSession(t, withCA), cmd("SET", p+"tls", "1"), cmd("GET", p+"tls"))
	if string(r[1].Value) != "1" {
		t.Fatalf("over TLS: %+v", r)
	}
	if tls, _ := environment(t, withCA).Extra["tls"].(map[string]any); tls["enabled"] != true || tls["verified"] != true {
		t.Errorf("tls facts %v", tls)
	}
	auth := testenv.RedisAuthURL(t)
	r = pipeline(t, kvSession(t, auth), cmd("SET", p+"auth", "1"), cmd("GET", p+"auth"))
	if string(r[1].Value) != "1" {
		t.Fatalf("with an ACL user: %+v", r)
	}
}

// Every way of pointing at the wrong thing fails in Open, within seconds,
// with one line that says what is wrong, and never the password.
func TestConnectErrorsAreClearAndKeepThePassword(t *testing.T) {
	auth := testenv.RedisAuthURL(t)
	u, _ := url.Parse(auth)
	wrong := "redis://" + u.User.Username() + ":WRONG-pw-4711@" + u.Host
	tlsURL, _ := testenv.RedisTLS(t)
	tu, _ := url.Parse(tlsURL)
	plain, _ := url.Parse(testenv.RedisURL(t))
	pg, _ := url.Parse(testenv.PostgresURL(t))
	cases := []struct{ name, url, want string }{
		{"unreachable", "redis://127.0.0.1:1", "refused the connection"},
		{"wrong password", wrong, "refused the credentials"},
		{"no password", "redis://" + u.Host, "requires a password"},
		{"not Redis", "redis://" + pg.Host, "not a Redis server"},
		{"TLS required, plain given", "redis://" + tu.Host, "TLS-only one (then use rediss://)"},
		{"TLS given, plain server", "rediss://" + plain.Host + "?skip_verify=true", "TLS handshake"},
		{"unknown CA", "rediss://" + tu.Host, "TLS handshake"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := driver.ForURL(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			start := time.Now()
			cl, err := d.Open(ctx, driver.Target{Name: "t", URL: tc.url}, driver.Options{})
			if err == nil {
				cl.Close(ctx)
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line with %q", msg, tc.want)
			}
			if strings.Contains(msg, "WRONG-pw-4711") || strings.Contains(msg, testenv.Password(t, auth)) {
				t.Errorf("the error shows a password: %q", msg)
			}
			t.Logf("%.2f s: %s", time.Since(start).Seconds(), msg)
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v, want under 10 s", took)
			}
		})
	}
}

// DeletePrefix takes the keys under the prefix and nothing else.
func TestDeletePrefixTakesOnlyItsKeys(t *testing.T) {
	p := testenv.RedisKeyPrefix(t)
	s := testenv.Connect(t, testenv.RedisURL(t), driver.Options{})
	kv := s.(driver.KV)
	var cmds []driver.KVCommand
	for i := range 2500 {
		cmds = append(cmds, cmd("SET", fmt.Sprintf("%sdel-%d", p, i), "x"))
	}
	cmds = append(cmds, cmd("SET", p+"keep*", "x"), cmd("SET", strings.TrimSuffix(p, "-")+"_keep", "x"))
	pipeline(t, kv, cmds...)
	n, err := s.(driver.KVPrefixDeleter).DeletePrefix(context.Background(), p+"del-")
	if err != nil || n != 2500 {
		t.Fatalf("deleted %d (%v), want 2500", n, err)
	}
	r := pipeline(t, kv, cmd("GET", p+"keep*"), cmd("GET", strings.TrimSuffix(p, "-")+"_keep"), cmd("GET", p+"del-7"))
	if r[0].Miss || r[1].Miss || !r[2].Miss {
		t.Fatalf("after DeletePrefix: %+v", r)
	}
	pipeline(t, kv, cmd("DEL", strings.TrimSuffix(p, "-")+"_keep"))
}

func TestMain(m *testing.M) { os.Exit(m.Run()) }
