//go:build !linux

package blockingnet

import (
	"context"
	"net"
)

// Supported reports whether blocking sockets are available on this platform.
const Supported = false

// Enabled is false where blocking sockets are not implemented.
func Enabled() bool { return false }

// Dial falls back to Go's net package.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}
