package runner

import (
	"errors"
	"testing"
)

func TestDistinctErrorsCountsRepeats(t *testing.T) {
	refused := errors.New(`target "db": connection refused`)
	errs := make([]error, 10000)
	for i := range errs {
		errs[i] = refused
	}
	errs[7] = nil
	errs[42] = errors.New("client 43: too many connections")
	err := distinctErrors(errs)
	if err == nil || !errors.Is(err, refused) {
		t.Fatalf("err %v: want the refusal kept", err)
	}
	if got := err.Error(); got != "9998 clients: target \"db\": connection refused\nclient 43: too many connections" {
		t.Fatalf("joined text %q", got)
	}
	if distinctErrors(make([]error, 3)) != nil {
		t.Fatal("no error from three clients that connected")
	}
}
