package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/fairbench/fairbench/internal/driver"
	"github.com/fairbench/fairbench/internal/result"
)

// librarySession runs the measured commands through go-redis (client=go-redis
// in the URL), one connection per session: for comparison with the RESP path,
// in throughput and client CPU (bench/kv.sh). go-redis returns a pipeline's
// replies together, so each reply's latency is the whole pipeline's; reply
// sizes are estimated from the values, since the library does not expose the
// bytes it read.
type librarySession struct {
	c    *client
	cl   goredis.UniversalClient
	args []any
}

func newLibrarySession(c *client) *librarySession {
	tc, _ := c.cfg.tlsConfig()
	var cl goredis.UniversalClient
	if c.cfg.Cluster {
		cl = goredis.NewClusterClient(&goredis.ClusterOptions{
			Addrs: []string{c.cfg.Addr}, Username: c.cfg.User, Password: c.cfg.Password, TLSConfig: tc,
			DialTimeout: c.cfg.Timeout, Protocol: 2, DisableIdentity: true, PoolSize: 1, MaxRetries: -1,
		})
	} else {
		cl = goredis.NewClient(&goredis.Options{
			Addr: c.cfg.Addr, Username: c.cfg.User, Password: c.cfg.Password, DB: c.cfg.DB, TLSConfig: tc,
			DialTimeout: c.cfg.Timeout, Protocol: 2, DisableIdentity: true, PoolSize: 1, MaxRetries: -1,
		})
	}
	return &librarySession{c: c, cl: cl}
}

// Pipeline implements driver.KV.
func (s *librarySession) Pipeline(ctx context.Context, cmds []driver.KVCommand, replies []driver.KVReply) error {
	p := s.cl.Pipeline()
	out := make([]*goredis.Cmd, len(cmds))
	sizes := make([]int, len(cmds))
	var scratch []byte
	for i := range cmds {
		c := &cmds[i]
		args := append(s.args[:0], c.Name)
		if c.Key != nil {
			args = append(args, c.Key)
		}
		if c.Value != nil {
			args = append(args, c.Value)
		}
		for _, a := range c.Args {
			args = append(args, a)
		}
		out[i] = p.Do(ctx, args...)
		scratch, sizes[i] = appendCommand(scratch[:0], c)
	}
	start := time.Now()
	_, err := p.Exec(ctx)
	lat := time.Since(start)
	var ne net.Error
	if err != nil && (errors.As(err, &ne) || errors.Is(err, context.Canceled) || errors.Is(err, goredis.ErrClosed)) {
		return err
	}
	for i, c := range out {
		r := &replies[i]
		*r = driver.KVReply{Latency: lat, Bytes: int64(sizes[i])}
		v, err := c.Result()
		switch {
		case errors.Is(err, goredis.Nil):
			r.Miss = true
			r.Bytes += 5 // $-1\r\n
		case err != nil:
			se := &serverError{Msg: err.Error()}
			r.Err, r.Class = se, classOf(se)
		default:
			switch x := v.(type) {
			case string:
				r.Value = []byte(x)
			case int64:
				r.Value = fmt.Appendf(nil, "%d", x)
			case []any:
				r.Elements = make([][]byte, 0, len(x))
				for _, e := range x {
					switch y := e.(type) {
					case string:
						r.Elements = append(r.Elements, []byte(y))
						r.Bytes += int64(len(y)) + 8
					case int64:
						r.Elements = append(r.Elements, fmt.Appendf(nil, "%d", y))
					}
				}
			}
			r.Bytes += int64(len(r.Value)) + 8
		}
	}
	return nil
}

// Close implements driver.Conn.
func (s *librarySession) Close(context.Context) error { return s.cl.Close() }

// Classify implements driver.Conn.
func (s *librarySession) Classify(err error) result.ErrorClass { return classify(err) }

// ClientPath implements driver.Path.
func (s *librarySession) ClientPath() string {
	return "go-redis v9 pipeline (every reply timed at the pipeline's end)"
}

// DeletePrefix implements driver.KVPrefixDeleter.
func (s *librarySession) DeletePrefix(ctx context.Context, prefix string) (int64, error) {
	return s.c.DeletePrefix(ctx, prefix)
}

// ScanPrefix implements driver.KVPrefixScanner.
func (s *librarySession) ScanPrefix(ctx context.Context, prefix string, fn func(keys []string) bool) error {
	return s.c.ScanPrefix(ctx, prefix, fn)
}

// KeyCount implements driver.KVKeyCounter.
func (s *librarySession) KeyCount(ctx context.Context) (int64, error) { return s.c.KeyCount(ctx) }
