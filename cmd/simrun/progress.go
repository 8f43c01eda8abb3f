package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/ckptsim/ckptsim/workloads"
)

// progress reports a campaign on stderr: a redrawn bar on a terminal,
// plain lines (about every 10% and on each failure) otherwise.
type progress struct {
	mu        sync.Mutex
	w         io.Writer
	tty       bool
	total     int
	done      int
	failed    int
	start     time.Time
	drawn     time.Time
	lastTenth int
}

func newProgress(w io.Writer, total int) *progress {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &progress{w: w, tty: tty, total: total, start: wallNow()}
}

// seed counts one finished seed and prints a failure at once.
func (p *progress) seed(o workloads.Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if o.Verdict != workloads.Pass {
		p.failed++
		p.clear()
		first := ""
		if len(o.Violations) > 0 {
			first, _, _ = strings.Cut(o.Violations[0], "\n")
		}
		fmt.Fprintf(p.w, "FAIL %s seed %d: %s%s: %s\n  replay: %s\n", o.Scenario, o.Seed, o.Verdict, checkList(o.Checks), first, o.Replay)
	}
	switch {
	case p.tty && (wallSince(p.drawn) > 100*time.Millisecond || p.done == p.total || o.Verdict != workloads.Pass):
		p.bar()
	case !p.tty && p.done*10/max(p.total, 1) > p.lastTenth:
		p.lastTenth = p.done * 10 / max(p.total, 1)
		fmt.Fprintf(p.w, "simrun: %s\n", p.status())
	}
}

func (p *progress) status() string {
	el := wallSince(p.start)
	s := fmt.Sprintf("%d/%d seeds (%d%%), %d failed", p.done, p.total, p.done*100/max(p.total, 1), p.failed)
	if el <= 0 {
		return s // a stopped clock (wallFrozen) has no rate
	}
	s += fmt.Sprintf(", %.1f seeds/s", float64(p.done)/el.Seconds())
	if p.done > 0 && p.done < p.total {
		eta := time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))
		s += fmt.Sprintf(", %v left", eta.Round(time.Second))
	}
	return s
}

func (p *progress) bar() {
	const width = 30
	n := p.done * width / max(p.total, 1)
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %s", strings.Repeat("=", n), strings.Repeat(" ", width-n), p.status())
	p.drawn = wallNow()
}

func (p *progress) clear() {
	if p.tty && !p.drawn.IsZero() {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// note prints a line without garbling the bar.
func (p *progress) note(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintf(p.w, format+"\n", args...)
	if p.tty && !p.drawn.IsZero() {
		p.bar()
	}
}

// tick redraws the bar twice a second, so that the rate and the time left
// stay current while long seeds run, until the returned stop is called.
func (p *progress) tick() (stop func()) {
	if !p.tty {
		return func() {}
	}
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				p.mu.Lock()
				p.bar()
				p.mu.Unlock()
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// end finishes the bar's line.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && !p.drawn.IsZero() {
		p.bar()
		fmt.Fprintln(p.w)
	}
}
