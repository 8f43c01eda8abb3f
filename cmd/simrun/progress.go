package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads"
)

// progress reports a campaign on stderr: a redrawn bar on a terminal,
// plain lines (about every 10% and on each failure) otherwise. A seed that
// runs long shows its own progress (virtual time reached, steps per
// second; see poll), so that the campaign is never silent for long.
type progress struct {
	mu        sync.Mutex
	w         io.Writer
	tty       bool
	width     int // the terminal's columns (0: unknown)
	total     int
	done      int
	failed    int
	start     time.Time
	drawn     time.Time
	said      time.Time // the last plain line (not a terminal)
	lastTenth int
	running   map[int]*running // the seeds running, by job index
	// lone shows the running seed alone, without the campaign's bar or
	// counts (replay: one seed).
	lone bool
}

// Seeds show their progress once they have run longer than seedQuiet (on
// a terminal); in logs a line comes when nothing was printed for logEvery.
// A seed's rate is measured over rateWindow.
const (
	seedQuiet  = 2 * time.Second
	logEvery   = 4 * time.Second
	rateWindow = 2 * time.Second
)

// seedProgress is how far a running seed has come (sim.Progress).
type seedProgress interface {
	Steps() int64
	Elapsed() time.Duration
}

// running is a seed in progress, as poll last measured it.
type running struct {
	label   string        // "smoke seed 3"
	span    time.Duration // the virtual time its run covers (Scenario.Span)
	at      seedProgress
	start   time.Time
	sampled time.Time // when rate was measured
	steps   int64     // the steps then
	rate    float64   // steps per wall second over the window before sampled (0: none yet)
}

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, total: total, start: wallNow(), running: map[int]*running{}}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.tty = true
		p.width, _, _ = term.GetSize(int(f.Fd()))
	}
	p.said = p.start
	return p
}

// begin counts job i as running from now on, showing at.
func (p *progress) begin(i int, label string, span time.Duration, at seedProgress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := wallNow()
	p.running[i] = &running{label: label, span: span, at: at, start: now, sampled: now}
}

// finish counts job i as no longer running.
func (p *progress) finish(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.running, i)
}

// run runs job i (runJob), showing its progress while it runs.
func (p *progress) run(i int, j job) workloads.Outcome {
	var at sim.Progress
	j.opt.Progress = &at
	p.begin(i, fmt.Sprintf("%s seed %d", j.sc.Name, j.opt.Seed), j.sc.Span(), &at)
	defer p.finish(i)
	return runJob(j)
}

// seed counts one finished seed and prints a failure at once.
func (p *progress) seed(o workloads.Outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := wallNow()
	p.done++
	if o.Verdict != workloads.Pass {
		p.failed++
		p.clear()
		first := ""
		if len(o.Violations) > 0 {
			first, _, _ = strings.Cut(o.Violations[0], "\n")
		}
		fmt.Fprintf(p.w, "FAIL %s seed %d: %s%s: %s\n  replay: %s\n", o.Scenario, o.Seed, o.Verdict, checkList(o.Checks), first, o.Replay)
		p.said = now
	}
	switch {
	case p.tty && (now.Sub(p.drawn) > 100*time.Millisecond || p.done == p.total || o.Verdict != workloads.Pass):
		p.bar(now)
	case !p.tty && p.done*10/max(p.total, 1) > p.lastTenth:
		p.lastTenth = p.done * 10 / max(p.total, 1)
		fmt.Fprintf(p.w, "simrun: %s\n", p.status(now))
		p.said = now
	}
}

func (p *progress) status(now time.Time) string {
	el := now.Sub(p.start)
	s := fmt.Sprintf("%d/%d seeds (%d%%), %d failed", p.done, p.total, p.done*100/max(p.total, 1), p.failed)
	if el <= 0 || p.done == 0 {
		return s // a stopped clock (wallFrozen) has no rate, nor a campaign with no seed done
	}
	s += fmt.Sprintf(", %.1f seeds/s", float64(p.done)/el.Seconds())
	if p.done > 0 && p.done < p.total {
		eta := time.Duration(float64(el) / float64(p.done) * float64(p.total-p.done))
		s += fmt.Sprintf(", %v left", eta.Round(time.Second))
	}
	return s
}

func (p *progress) bar(now time.Time) {
	const width = 30
	n := p.done * width / max(p.total, 1)
	line := fmt.Sprintf("[%s%s] %s", strings.Repeat("=", n), strings.Repeat(" ", width-n), p.status(now))
	if s := p.seeds(now, seedQuiet, false); s != "" {
		line += " | " + s
	}
	fmt.Fprintf(p.w, "\r\033[K%s", p.fit(line))
	p.drawn = now
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
	now := wallNow()
	p.said = now
	if p.tty && !p.drawn.IsZero() {
		p.bar(now)
	}
}

// poll measures the running seeds at now and shows them: on a terminal it
// redraws the bar, with the seed that has run longest once it has run
// seedQuiet; in logs, when nothing was printed for logEvery, it prints the
// campaign's status and every seed that has run logEvery (a seed that runs
// for minutes gives a line every logEvery, a campaign of short seeds too).
// With lone, only the seeds show. The wall clock is its argument, so that
// a test can drive it.
func (p *progress) poll(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.running {
		r.measure(now)
	}
	switch {
	case p.tty && p.lone:
		if s := p.seeds(now, seedQuiet, false); s != "" {
			fmt.Fprintf(p.w, "\r\033[K%s", p.fit(s))
			p.drawn = now
		}
	case p.tty:
		p.bar(now)
	case now.Sub(p.said) < logEvery:
	case p.lone:
		if s := p.seeds(now, logEvery, true); s != "" {
			fmt.Fprintln(p.w, "simrun: "+s)
			p.said = now
		}
	default:
		line := "simrun: " + p.status(now)
		if s := p.seeds(now, logEvery, true); s != "" {
			line += "; " + s
		}
		fmt.Fprintln(p.w, line)
		p.said = now
	}
}

// fit cuts line to the terminal's width: a line that wraps is not redrawn
// in place.
func (p *progress) fit(line string) string {
	if p.width > 1 && len(line) >= p.width {
		return line[:p.width-1]
	}
	return line
}

// seeds describes the seeds that have run at least quiet: the longest
// running one, and either the others (all) or how many there are.
func (p *progress) seeds(now time.Time, quiet time.Duration, all bool) string {
	var long []*running
	for _, r := range p.running {
		if now.Sub(r.start) >= quiet {
			long = append(long, r)
		}
	}
	if len(long) == 0 {
		return ""
	}
	slices.SortFunc(long, func(a, b *running) int {
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		return strings.Compare(a.label, b.label)
	})
	if !all {
		s := long[0].String()
		if len(long) > 1 {
			s += fmt.Sprintf(" (%d more running)", len(long)-1)
		}
		return s
	}
	parts := make([]string, len(long))
	for i, r := range long {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// measure samples the seed's steps at now, and its rate once rateWindow
// has passed since the last sample.
func (r *running) measure(now time.Time) {
	d := now.Sub(r.sampled)
	if d < rateWindow {
		return
	}
	steps := r.at.Steps()
	r.rate = float64(steps-r.steps) / d.Seconds()
	r.sampled, r.steps = now, steps
}

// String is the seed's progress: "smoke seed 3: 1m2s of 6m0s virtual,
// 1.23M steps, 456.7k steps/s".
func (r *running) String() string {
	s := fmt.Sprintf("%s: %v of %v virtual, %s steps", r.label, r.at.Elapsed().Round(time.Second), r.span, count(float64(r.at.Steps())))
	if r.rate > 0 {
		s += fmt.Sprintf(", %s steps/s", count(r.rate))
	}
	return s
}

// count writes n with a k, M or G suffix past a thousand.
func count(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fG", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

// tick polls the seeds twice a second (redrawing the bar on a terminal),
// so that the rate and the time left stay current while long seeds run,
// until the returned stop is called.
func (p *progress) tick() (stop func()) {
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
				p.poll(wallNow())
			}
		}
	}()
	return func() { close(quit); <-finished }
}

// end finishes the bar's line.
func (p *progress) end() {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.tty && p.lone:
		p.clear() // the report follows on the line the seed's status held
	case p.tty && !p.drawn.IsZero():
		p.bar(wallNow())
		fmt.Fprintln(p.w)
	}
}
