package redis

import (
	"io"
	"net"
	"testing"

	"github.com/fairbench/fairbench/internal/driver"
)

// A pipeline's replies are timed at the read that brought them: the ones one
// read delivers share its time (the decoding is not part of the latency), and
// one that comes in a later read is timed later.
func TestPipelineTimesEachReplyAtTheReadThatBroughtIt(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	n := &node{nc: client, rd: newReader(client)}
	cmds := []driver.KVCommand{{Name: "GET", Key: []byte("a")}, {Name: "GET", Key: []byte("b")}, {Name: "GET", Key: []byte("c")}}
	var sent []byte
	for i := range cmds {
		sent, _ = appendCommand(sent, &cmds[i])
	}
	served := make(chan error, 1)
	go func() {
		if _, err := io.ReadFull(server, make([]byte, len(sent))); err != nil {
			served <- err
			return
		}
		// net.Pipe's Write returns once the reader has taken every byte, so
		// the third reply can only come with a later read.
		if _, err := server.Write([]byte("$1\r\nA\r\n$-1\r\n")); err != nil {
			served <- err
			return
		}
		_, err := server.Write([]byte("$1\r\nC\r\n"))
		served <- err
	}()
	replies := make([]driver.KVReply, len(cmds))
	if err := n.pipeline(cmds, replies); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if string(replies[0].Value) != "A" || !replies[1].Miss || string(replies[2].Value) != "C" {
		t.Fatalf("replies out of step: %+v", replies)
	}
	if replies[0].Latency <= 0 || replies[0].Latency != replies[1].Latency {
		t.Errorf("two replies of one read: latencies %v and %v, want one positive time", replies[0].Latency, replies[1].Latency)
	}
	if replies[2].Latency <= replies[1].Latency {
		t.Errorf("a reply of a later read timed at %v, not after the earlier read's %v", replies[2].Latency, replies[1].Latency)
	}
}
