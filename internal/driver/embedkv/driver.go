package embedkv

import "github.com/fairbench/fairbench/internal/driver"

// InProcessDriver is what every embedded engine's driver.Driver answers the
// same way: the engine runs in fairbench's process, and the clients of a
// database share the process's one handle on it (Registry), so that a client
// holds no file of its own. An engine's Driver embeds it and adds Name and
// Open (through Registry.Open).
type InProcessDriver struct{}

// InProcess implements driver.InProcess.
func (InProcessDriver) InProcess() bool { return true }

// FilesPerClient implements driver.FilesPerClienter.
func (InProcessDriver) FilesPerClient() int { return 0 }

// SessionMemory implements driver.SessionMemorier: a session holds its
// embedkv session and a 4 KB reply buffer that grows with the values of a
// pipeline (the workload declares those).
func (InProcessDriver) SessionMemory() int64 { return 16 << 10 }

// Open is an engine driver's Open: it parses url with parse, acquires the
// database the URL names (Acquire, with open) and wraps the handle in the
// engine's client.
func (r *Registry[C, DB]) Open(url string, parse func(url string) (C, error), open func(abs string, cfg C) (DB, map[string]string, error), client func(*Handle[C, DB]) driver.Client) (driver.Client, error) {
	cfg, err := parse(url)
	if err != nil {
		return nil, err
	}
	h, err := r.acquire(cfg, open)
	if err != nil {
		return nil, err
	}
	return client(h), nil
}
