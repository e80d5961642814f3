// Command gofloor is the smallest Go client that drives pgbench's select-only
// transaction the way fairbench's event loops do: one locked OS thread per
// loop, edge-triggered epoll, a Bind/Describe/Execute/Sync written in one
// write as libpq does, no read until the socket says the reply is there, and a
// runtime.Gosched every 8 ms (fastpath.YieldEvery). It has none of fairbench's
// runner, driver or histograms, so it measures what any Go client costs on a
// machine; bench/floor/cfloor.c is the same loop in C ("The floor
// of a Go client" in bench/README.md at 13fc635).
//
//	go run ./bench/floor/gofloor URL CLIENTS THREADS SECONDS
//
// The URL's database must hold pgbench's tables at scale 10 (aid up to
// 1 000 000). It prints "tps N", counted from the first request to the stop,
// and "transactions N", the count (bench/cpu.sh's CPU per transaction).
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/sys/unix"
)

const accounts = 1000000 // pgbench_accounts rows at scale 10

type client struct {
	fd  int
	rng uint64
	in  []byte
	out []byte
}

// send writes the next transaction's messages, as PQsendQueryPrepared does.
func (c *client) send() error {
	c.rng = c.rng*6364136223846793005 + 1442695040888963407
	b := append(c.out[:0], 'B', 0, 0, 0, 0, 0, 'P', '_', '0', 0, 0, 0, 0, 1, 0, 0, 0, 0)
	// The parameter is formatted in place behind its length, which is filled
	// in after: no allocation per transaction.
	b = strconv.AppendInt(b, int64((c.rng>>33)%accounts)+1, 10)
	binary.BigEndian.PutUint32(b[14:], uint32(len(b)-18))
	b = append(b, 0, 0)
	binary.BigEndian.PutUint32(b[1:], uint32(len(b)-1))
	b = append(b, 'D', 0, 0, 0, 6, 'P', 0, 'E', 0, 0, 0, 9, 0, 0, 0, 0, 0, 'S', 0, 0, 0, 4)
	c.out = b
	n, err := unix.Write(c.fd, b)
	if err == nil && n != len(b) {
		err = errors.New("short write")
	}
	return err
}

// receive reads what is there and reports whether a whole reply (up to
// ReadyForQuery) has arrived.
func (c *client) receive() (bool, error) {
	n, err := unix.Read(c.fd, c.in[len(c.in):cap(c.in)])
	switch {
	case err == unix.EAGAIN:
		return false, nil
	case err != nil:
		return false, err
	case n == 0:
		return false, errors.New("server closed the connection")
	}
	c.in = c.in[:len(c.in)+n]
	for off := 0; len(c.in)-off >= 5; {
		end := off + 1 + int(binary.BigEndian.Uint32(c.in[off+1:]))
		if end > len(c.in) {
			break
		}
		switch c.in[off] {
		case 'E':
			return false, errors.New("server error")
		case 'Z':
			c.in = c.in[:copy(c.in, c.in[end:])]
			return true, nil
		}
		off = end
	}
	return false, nil
}

// connect opens a connection with pgconn, prepares P_0 as pgbench -M prepared
// does, and keeps only a non-blocking duplicate of its socket, out of Go's netpoller.
func connect(ctx context.Context, url string) (int, error) {
	pc, err := pgconn.Connect(ctx, url)
	if err != nil {
		return -1, err
	}
	if _, err := pc.Prepare(ctx, "P_0", "SELECT abalance FROM pgbench_accounts WHERE aid = $1;", nil); err != nil {
		pc.Close(ctx)
		return -1, err
	}
	hc, err := pc.Hijack()
	if err != nil {
		return -1, err
	}
	defer hc.Conn.Close()
	tc, ok := hc.Conn.(*net.TCPConn)
	if !ok {
		return -1, errors.New("a TCP URL is needed")
	}
	f, err := tc.File()
	if err != nil {
		return -1, err
	}
	defer f.Close() // closing it drops the netpoller's registration; the duplicate stays
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return -1, err
	}
	return fd, unix.SetNonblock(fd, true)
}

func loop(url string, id, n int, stop *atomic.Bool, total *atomic.Int64) error {
	runtime.LockOSThread()
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(ep)
	clients := make([]*client, n)
	for i := range clients {
		fd, err := connect(context.Background(), url)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		clients[i] = &client{fd: fd, rng: uint64(id*1000 + i + 1), in: make([]byte, 0, 16384)}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: int32(i)}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return err
		}
	}
	for _, c := range clients {
		if err := c.send(); err != nil {
			return err
		}
	}
	var done int64
	events := make([]unix.EpollEvent, len(clients))
	lastYield := time.Now()
	for !stop.Load() {
		k, err := unix.EpollWait(ep, events, 100)
		if err != nil && err != unix.EINTR {
			return err
		}
		for _, ev := range events[:max(k, 0)] {
			if ev.Events&unix.EPOLLIN == 0 {
				continue
			}
			c := clients[ev.Fd]
			complete, err := c.receive()
			if err == nil && complete {
				done++
				err = c.send()
			}
			if err != nil {
				return err
			}
		}
		if now := time.Now(); now.Sub(lastYield) > 8*time.Millisecond {
			lastYield = now
			runtime.Gosched()
		}
	}
	total.Add(done)
	return nil
}

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: gofloor URL CLIENTS THREADS SECONDS")
		os.Exit(2)
	}
	url := os.Args[1]
	clients, err1 := strconv.Atoi(os.Args[2])
	threads, err2 := strconv.Atoi(os.Args[3])
	secs, err3 := strconv.Atoi(os.Args[4])
	if err := errors.Join(err1, err2, err3); err != nil || threads < 1 || clients%threads != 0 {
		fmt.Fprintln(os.Stderr, "gofloor: CLIENTS, THREADS and SECONDS are whole numbers, CLIENTS a multiple of THREADS")
		os.Exit(2)
	}
	var (
		stop  atomic.Bool
		total atomic.Int64
		wg    sync.WaitGroup
		errs  = make([]error, threads)
	)
	for i := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = loop(url, i, clients/threads, &stop, &total)
			if errs[i] != nil {
				stop.Store(true)
			}
		}()
	}
	time.Sleep(time.Duration(secs) * time.Second)
	stop.Store(true)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
	fmt.Printf("tps %.0f\ntransactions %d\n", float64(total.Load())/float64(secs), total.Load())
}
