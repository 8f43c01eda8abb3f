package exec_test

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/exec"
)

// TestConfigDefaults: a pool whose Max is unset or below Core, and a timer
// with no thread count, get the defaults. Every caller in core passes all
// of them (results/coverage/defensive.txt).
func TestConfigDefaults(t *testing.T) {
	e := env.Wall{}
	for _, c := range []struct {
		cfg  exec.PoolConfig
		want int
	}{
		{exec.PoolConfig{Name: "below", Core: 2, Max: 1}, 2},
		{exec.PoolConfig{Name: "unset"}, 1},
	} {
		p := exec.NewPool(e, c.cfg)
		if got := p.Name(); got != c.cfg.Name {
			t.Errorf("Name() = %q, want %q", got, c.cfg.Name)
		}
		done := make(chan struct{})
		if err := p.Execute(func() { close(done) }); err != nil {
			t.Fatalf("%s: %v", c.cfg.Name, err)
		}
		<-done
		p.Shutdown()
	}
	tm := exec.NewTimer(e, exec.TimerConfig{Name: "no-threads"})
	tm.ShutdownNow()
}

// TestNilFunctionPanicsOnThePoolThread: Execute(nil) and
// ExecuteRunner(nil) are accepted and panic on the pool thread, as Java's
// executor does with a null task; no caller in core passes nil.
func TestNilFunctionPanicsOnThePoolThread(t *testing.T) {
	panics := make(chan any, 2)
	p := exec.NewPool(env.Wall{}, exec.PoolConfig{Name: "nil", Core: 1, Max: 1, OnPanic: func(_ string, v any) { panics <- v }})
	if err := p.Execute(nil); err != nil {
		t.Fatal(err)
	}
	<-panics
	if err := p.ExecuteRunner(nil); err != nil {
		t.Fatal(err)
	}
	<-panics
	p.Shutdown()
}
