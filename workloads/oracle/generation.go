package oracle

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/workloads/cluster"
)

// Generations holds the generation checks generation-justified and
// one-failure-per-generation. They see only boundary observations
// (cluster.Obs) and virtual time, never a coordinator label:
//
//   - A pipeline's generation is counted by the harness. Generation 1 is
//     the first; each Coordinator.Restore call the harness makes begins
//     the next one at the first status write ("RUNNING") that call makes
//     (the restore's first boundary call after it installs the
//     generation), or at its return if it makes none. Until then the
//     coordinator may be one generation ahead per restore in flight, so a
//     checkpoint or fault observed then belongs to any generation in that
//     span.
//   - A checkpoint is triggered when IDCounter.Next returns its id (or at
//     its first barrier, for ids the counter does not allocate), in the
//     generation span of that moment; it is stored when Storage.Store
//     returns nil for it.
//   - A fault belongs to the generations of what it hit: a storage,
//     barrier or task-reported error those of its checkpoint; a
//     notify-complete failure those of its checkpoint and, during a
//     restore, the restore's, and after a redeploy's READY_START report
//     (cluster.ObsTaskReport) until the pipeline's next trigger, the span
//     current at the report (the last READY_START re-commits the restored
//     checkpoint in the generation the redeploy began); an id,
//     trigger-path or status-store failure
//     the span current when it fired. A step-down (the coordinator
//     executor shut down until reactivated) justifies any failure inside
//     its window.
//
// A failure notification (JobMaster.HandleCheckpointError) fails one
// generation of the span its failure began in (its FAILED status write):
// the first that may have failed and has not failed yet, trying the span
// current at that write before the generation just replaced in that very
// instant. A generation may have failed when it is justified: it (or,
// while a restore is in flight, the next) holds a fault, or a checkpoint
// triggered in it at least the timeout before the notification and not
// stored within the timeout (an expiry). With BUGGIFY on, the simulator's
// record of each firing (SiteFired, with the thread that took the rare
// path) adds causes: executor-rejects or store-fails-after-write justify
// the next FAILED write of the thread they fired on (or of a thread it
// started before its next boundary call: Spawned), in whatever
// generation it fails, and a FAILED write that status-slow held back
// began when the site fired. (Without that record, any generation may
// have failed with BUGGIFY on and generation-justified is silent.) A
// second notification in one generation is one-failure-per-generation.
type Generations struct {
	// Buggify is set when core's BUGGIFY sites are on: unless SiteCauses is
	// set too, failures without a boundary cause are then not reported (a
	// site may have caused them).
	Buggify bool
	// SiteCauses is set when the harness feeds every BUGGIFY firing to
	// SiteFired: a failure is then justified by a site only when one fired
	// on its thread just before, and generation-justified stays on.
	SiteCauses bool
	f          *Findings
	now        func() time.Duration
	timeout    time.Duration
	pipes      map[cluster.PipelineID]*genPipe
	keys       []cluster.PipelineID // pipes in creation order
	windows    []window             // step-down windows
	// armed: threads on which a BUGGIFY site that fails generations fired,
	// with no boundary call of that thread since (SiteFired).
	armed map[int32]bool
	// slowFrom: threads on which status-slow fired, with when: the status
	// write that follows was issued that late, so its failure began then.
	slowFrom map[int32]time.Duration
	// OnRestoreBegin and OnRestore, when set, see each harness restore
	// call begin and return, with the generation it began (histories).
	OnRestoreBegin func(job int64, pipeline int, call int64)
	OnRestore      func(job int64, pipeline int, call int64, gen int)
	// OnFailureBegin sees a failure begin on a thread (its status write);
	// OnFailure the notification that ends it, with the generation it
	// fails. A failure that began and notified nobody (another error won)
	// is followed by the thread's next OnFailureBegin.
	OnFailureBegin func(job int64, pipeline int, thread int32)
	OnFailure      func(job int64, pipeline int, thread int32, gen int)
	// OnTrigger, when set, sees each checkpoint id handed out while no
	// restore of its pipeline is in flight (so the harness's generation is
	// exact), with that generation and whether it has already been
	// notified as failed.
	OnTrigger func(job int64, pipeline int, gen int, id int64, failed bool)
	// Notifications counts failure notifications; Justified those with a
	// cause; Racing the failures that began while another failure of the
	// same pipeline was in progress (two failure sources at once).
	Notifications, Justified, Racing int
}

type span struct{ lo, hi int }

func (s span) has(g int) bool { return s.lo <= g && g <= s.hi }

func (s span) String() string {
	if s.lo == s.hi {
		return fmt.Sprint(s.lo)
	}
	return fmt.Sprintf("%d-%d", s.lo, s.hi)
}

type window struct{ from, to time.Duration } // to < 0: open

// StepDownWindows are the step-down windows the harness injected, as it
// observed them at the cluster: from the step-down to the reactivation
// (To < 0: still stepped down when the run ended).
func (g *Generations) StepDownWindows() []Window {
	ws := make([]Window, len(g.windows))
	for i, w := range g.windows {
		ws[i] = Window{From: w.from, To: w.to}
	}
	return ws
}

// Window is a span of virtual time; To < 0 means still open.
type Window struct{ From, To time.Duration }

type restoreCall struct {
	call     int64
	thread   int32
	begin    time.Duration
	switched bool
	gen      int
}

type ckpt struct {
	id     int64
	at     time.Duration
	g      span
	stored time.Duration // -1: not stored
	stamp  int64         // the trigger timestamp its first barrier carried; 0: no barrier yet
}

type fault struct {
	at   time.Duration
	g    span
	kind string
	id   int64
}

// begun is a failure in progress: the status write "FAILED" that
// handleCoordinatorError makes before it notifies the job master.
type begun struct {
	at    time.Duration
	g     span
	cur   int  // the lowest generation current when it began (g.lo is one less when that generation began at this very instant)
	retry bool // its write failed with a retryable error: the next write is a retry
	site  bool // a BUGGIFY site that fails generations fired on its thread just before: the site is its cause
}

// candidates are the generations a failure may fail, in the order the
// harness tries them: those current when it began, then the one before
// (last, because a FAILED write the harness saw after the RUNNING of the
// generation that replaced it is that generation's in a coordinator that
// serialises its status writes; otherwise model-generation judges it).
func (b begun) candidates() []int {
	out := make([]int, 0, b.g.hi-b.g.lo+1)
	for x := b.cur; x <= b.g.hi; x++ {
		out = append(out, x)
	}
	for x := b.g.lo; x < b.cur; x++ {
		out = append(out, x)
	}
	return out
}

type genPipe struct {
	gen      int
	switched time.Duration   // when the last generation began
	failing  map[int32]begun // thread -> failure in progress
	failed   map[int]bool    // generations a notification was assigned to
	calls    []*restoreCall
	failures map[int]int // generation -> notifications
	cps      map[int64]*ckpt
	order    []int64 // checkpoint ids in trigger order
	faults   []fault
	// recommit: the span current at a redeploy's READY_START report,
	// until the pipeline's next trigger (nil: none): its re-commit may
	// fail a notify-complete there.
	recommit *span
}

// NewGenerations returns the generation checks reporting to f; timeout is
// the smallest checkpoint timeout the coordinators use.
func NewGenerations(f *Findings, now func() time.Duration, timeout time.Duration) *Generations {
	return &Generations{f: f, now: now, timeout: timeout, pipes: map[cluster.PipelineID]*genPipe{}, armed: map[int32]bool{}, slowFrom: map[int32]time.Duration{}}
}

// Attach subscribes the checks to a cluster's boundary observations.
func (g *Generations) Attach(c View) { c.OnBoundary(g.Observe) }

func (g *Generations) pipe(job int64, p int) *genPipe {
	k := cluster.PipelineID{Job: job, Pipeline: p}
	s, ok := g.pipes[k]
	if !ok {
		s = &genPipe{gen: 1, failures: map[int]int{}, cps: map[int64]*ckpt{}, failing: map[int32]begun{}, failed: map[int]bool{}}
		g.pipes[k] = s
		g.keys = append(g.keys, k)
	}
	return s
}

// span is the generations the coordinator may be in now: the harness's
// count, up to one more per restore in flight that has not switched.
func (p *genPipe) span() span {
	n := 0
	for _, c := range p.calls {
		if !c.switched {
			n++
		}
	}
	return span{p.gen, p.gen + n}
}

func (p *genPipe) switchTo(c *restoreCall, now time.Duration) {
	p.gen++
	p.switched = now
	c.switched, c.gen = true, p.gen
}

// SiteFired takes a BUGGIFY firing the simulator made on thread (the
// harness's record of a fault it injected, not a report of the code under
// test). executor-rejects and store-fails-after-write fail a generation on
// the thread they fired on, before that thread's next boundary call: its
// next FAILED status write, if that comes first, has the site as its
// cause, whatever generation it fails.
func (g *Generations) SiteFired(site string, thread int32) {
	switch site {
	case "executor-rejects", "store-fails-after-write":
		g.armed[thread] = true
	case "status-slow":
		g.slowFrom[thread] = g.now()
	}
}

// Spawned takes a thread a simulated thread started (the simulator's
// thread table, as it grows). A thread started by a thread that a site
// armed, before that thread's next boundary call, carries the site too:
// core may hand the failure a site caused to a thread of its own (a
// continuation's rejected hand-off fails the generation on a fallback
// thread, not on the trigger's thread that holds coord.lock).
func (g *Generations) Spawned(parent, child int32) {
	if g.armed[parent] {
		g.armed[child] = true
	}
}

// Observe takes one boundary observation.
func (g *Generations) Observe(o cluster.Obs) {
	now := g.now()
	if o.Pipeline < 0 {
		g.global(o, now)
		return
	}
	p := g.pipe(o.Job, o.Pipeline)
	site := g.armed[o.Thread]
	slowFrom, slow := g.slowFrom[o.Thread]
	if disarms(o.Kind) {
		delete(g.armed, o.Thread)
		delete(g.slowFrom, o.Thread)
	}
	if slow && o.Kind == cluster.ObsStatusSet && o.Value == coord.Failed.String() {
		now = slowFrom // the failure began when its write was held back
	}
	switch o.Kind {
	case cluster.ObsRestoreBegin:
		p.calls = append(p.calls, &restoreCall{call: o.Call, thread: o.Thread, begin: now})
		if g.OnRestoreBegin != nil {
			g.OnRestoreBegin(o.Job, o.Pipeline, o.Call)
		}
	case cluster.ObsStatusSet:
		if o.Value == coord.Failed.String() {
			g.begin(p, o, now, site)
			return
		}
		delete(p.failing, o.Thread) // the thread moved on: its last FAILED write notified nobody
		if o.Value != coord.Running.String() {
			return
		}
		if i := slices.IndexFunc(p.calls, func(c *restoreCall) bool { return !c.switched && c.thread == o.Thread }); i >= 0 {
			p.switchTo(p.calls[i], now)
		}
	case cluster.ObsRestoreEnd:
		i := slices.IndexFunc(p.calls, func(c *restoreCall) bool { return c.call == o.Call })
		if i < 0 {
			return
		}
		c := p.calls[i]
		if !c.switched {
			p.switchTo(c, now)
		}
		p.calls = slices.Delete(p.calls, i, i+1)
		if g.OnRestore != nil {
			g.OnRestore(o.Job, o.Pipeline, c.call, c.gen)
		}
	case cluster.ObsTaskReport:
		if o.Value != cluster.ReportWaitingRestore {
			sp := p.span()
			p.recommit = &sp
		}
	case cluster.ObsAllocate:
		p.recommit = nil
		g.trigger(p, o.ID, now)
		if g.OnTrigger != nil && len(p.calls) == 0 {
			g.OnTrigger(o.Job, o.Pipeline, p.gen, o.ID, p.failures[p.gen] > 0)
		}
	case cluster.ObsBarrier:
		// An id the counter did not allocate (a completed point), or a
		// known id whose barrier carries another trigger timestamp: a new
		// checkpoint under that id (a COMPLETED_POINT triggered again after
		// a restore, whether or not the earlier one was stored).
		c, ok := p.cps[o.ID]
		switch {
		case !ok || c.stamp != 0 && c.stamp != o.Stamp || !c.g.has(p.gen) && c.stored >= 0:
			g.trigger(p, o.ID, now)
			p.cps[o.ID].stamp = o.Stamp
		case c.stamp == 0:
			c.stamp = o.Stamp // the first barrier of an allocated id
		}
	case cluster.ObsStored:
		if c, ok := p.cps[o.ID]; ok && c.stored < 0 {
			c.stored = now
		}
	case cluster.ObsFault:
		g.fault(p, o, now)
	case cluster.ObsFailure:
		g.failure(o, p, now)
	}
}

// disarms reports whether an observation of kind k is a boundary call that
// ends a BUGGIFY site's hold on its thread (SiteFired). A fault is the
// harness's own act; the storage calls of a retention step (the listing
// and deletion that reconcile retention after store-fails-after-write),
// a store's begin and failure, and a task's restore hand-off come between
// a site's firing and the failure it causes.
func disarms(k cluster.ObsKind) bool {
	switch k {
	case cluster.ObsFault, cluster.ObsListed, cluster.ObsDeleted, cluster.ObsStoreBegin, cluster.ObsStoreFailed, cluster.ObsRestoreState:
		return false
	}
	return true
}

func (g *Generations) trigger(p *genPipe, id int64, now time.Duration) {
	if _, ok := p.cps[id]; !ok {
		p.order = append(p.order, id)
	}
	p.cps[id] = &ckpt{id: id, at: now, g: p.span(), stored: -1}
}

// global takes the observations that concern every pipeline: step-down
// windows.
func (g *Generations) global(o cluster.Obs, now time.Duration) {
	if o.Kind != cluster.ObsFault {
		return
	}
	switch o.Fault {
	case cluster.FaultSaturated:
		// The executor rejected the submitting thread's hand-off: as the
		// executor-rejects site, it justifies that thread's next FAILED
		// write (or one of a thread it starts: Spawned) before its next
		// boundary call.
		g.armed[o.Thread] = true
	case cluster.FaultStepDown:
		g.windows = append(g.windows, window{from: now, to: -1})
	case cluster.FaultReactivate:
		if n := len(g.windows); n > 0 && g.windows[n-1].to < 0 {
			g.windows[n-1].to = now
		}
	}
}

func (g *Generations) fault(p *genPipe, o cluster.Obs, now time.Duration) {
	sp := p.span()
	kind := o.Fault
	if kind == cluster.FaultPanic { // a call that panicked is judged as the call that failed
		switch o.Value {
		case "Transport.NotifyComplete":
			kind = cluster.FaultNotify
		case "Storage.Store", "Transport.TriggerBarrier":
			kind = cluster.FaultStorage
		}
	}
	switch kind {
	case cluster.FaultStatus:
		if b, ok := p.failing[o.Thread]; ok {
			b.retry = true
			p.failing[o.Thread] = b
		}
	case cluster.FaultAckDrop:
		return // its only consequence is an expiry, justified by its checkpoint
	case cluster.FaultBitRot, cluster.FaultTorn:
		return // a restore skips a rotted or torn checkpoint: it fails no generation
	case cluster.FaultStorage, cluster.FaultReplyLost, cluster.FaultBarrier, cluster.FaultTaskError, cluster.FaultSavepoint:
		if c, ok := p.cps[o.ID]; ok {
			sp = c.g
		}
	case cluster.FaultNotify:
		if c, ok := p.cps[o.ID]; ok {
			switch {
			case len(p.calls) > 0:
				sp = span{min(c.g.lo, sp.lo), max(c.g.hi, sp.hi)}
			case p.recommit != nil:
				sp = span{min(c.g.lo, p.recommit.lo), max(c.g.hi, p.recommit.hi, sp.hi)}
			default:
				sp = c.g
			}
		}
	}
	p.faults = append(p.faults, fault{at: now, g: sp, kind: o.Fault, id: o.ID})
}

// begin notes a failure in progress on the writing thread (a write that
// ends in no notification, because another error won, is replaced by the
// thread's next one): the
// generations it may fail are those current when it wrote the status, and
// the one before if that generation began at this very instant (the
// failing thread may have read the generation just before the restore
// installed the next one).
func (g *Generations) begin(p *genPipe, o cluster.Obs, now time.Duration, site bool) {
	if b, ok := p.failing[o.Thread]; ok && b.retry {
		b.retry = false
		p.failing[o.Thread] = b
		return // a retry of the same write
	}
	for t, b := range p.failing {
		if t != o.Thread && b.at >= p.switched { // another failure of this generation is in progress
			g.Racing++
			break
		}
	}
	sp := p.span()
	cur := sp.lo
	if p.switched == now && sp.lo > 1 {
		sp.lo--
	}
	p.failing[o.Thread] = begun{at: now, g: sp, cur: cur, site: site}
	if g.OnFailureBegin != nil {
		g.OnFailureBegin(o.Job, o.Pipeline, o.Thread)
	}
}

// failure judges a failure notification: it fails one generation of the
// span its failure began in; the first justified one not failed yet is
// chosen.
func (g *Generations) failure(o cluster.Obs, p *genPipe, now time.Duration) {
	b, ok := p.failing[o.Thread]
	if !ok {
		sp := p.span()
		b = begun{at: now, g: sp, cur: sp.lo}
	}
	delete(p.failing, o.Thread)
	subj := Subject(o.Job, o.Pipeline)
	g.Notifications++
	gen, justified := g.attribute(p, b)
	p.failures[gen]++
	if g.OnFailure != nil {
		g.OnFailure(o.Job, o.Pipeline, o.Thread, gen)
	}
	if n := p.failures[gen]; n > 1 {
		g.f.Add(OneFailurePerGeneration, now, subj, "failure notification %d of generation %d (the first error wins: one per generation)", n, gen)
	}
	if justified || b.site {
		g.Justified++
		return
	}
	if g.Buggify && !g.SiteCauses {
		// BUGGIFY sites fail generations from inside core (an executor
		// rejection, a store whose reply is lost) where no boundary sees a
		// fault: such a failure cannot be judged unjustified.
		return
	}
	g.f.Add(GenerationJustified, now, subj, "failure notification of generation %s (failure began at %v) has no cause in it: no fault injected into it, "+
		"no checkpoint triggered in it outstanding for the %v timeout%s", b.g, b.at, g.timeout, p.elsewhere(gen, b.at, g.timeout))
}

// attribute picks the generation a failure that began as b fails: the
// first candidate that may have failed and has not failed yet, else the
// first that may have failed, else the newest. A generation may have
// failed when it has a cause (justified), or the failure has a site as
// its cause; with BUGGIFY on and no record of the firings, any may, since
// a site fails generations from inside core where no boundary sees a
// cause (an executor rejection, a lost store reply): counting such a
// failure against a generation that already failed, or against one the
// restore in flight had not installed yet, made one-failure-per-generation
// and model-generation fire on correct runs (9 of 448 default-campaign
// seeds with --buggify on). It also reports whether gen is justified.
func (g *Generations) attribute(p *genPipe, b begun) (gen int, justified bool) {
	xs := b.candidates()
	possible := func(x int) bool { return b.site || g.Buggify && !g.SiteCauses || g.justified(p, x, b.at) }
	gen = -1
	for _, x := range xs {
		if possible(x) && p.failures[x] == 0 {
			gen = x
			break
		}
	}
	if gen < 0 {
		gen = b.g.hi
		for _, x := range xs {
			if possible(x) {
				gen = x
				break
			}
		}
	}
	return gen, g.justified(p, gen, b.at)
}

// justified reports whether generation x of p has a cause by now.
func (g *Generations) justified(p *genPipe, x int, now time.Duration) bool {
	for _, w := range g.windows {
		if now >= w.from && (w.to < 0 || now <= w.to) {
			return true
		}
	}
	for _, f := range p.faults {
		if f.g.has(x) && f.at <= now {
			return true
		}
	}
	for _, c := range p.cps {
		if c.g.has(x) && c.overdue(now, g.timeout) {
			return true
		}
	}
	return false
}

// overdue reports whether the checkpoint's timeout had elapsed by now
// with the checkpoint not stored before its deadline. One stored at the
// very instant of its deadline counts: its watchdog, due then too, may
// run first and expire it (a tie of virtual time, which whole-multiple
// latencies make common: swarm seed 360).
func (c *ckpt) overdue(now, timeout time.Duration) bool {
	deadline := c.at + timeout
	return now >= deadline && (c.stored < 0 || c.stored >= deadline)
}

// elsewhere names the overdue checkpoints and faults of other generations,
// which is usually what a stale effect acted on.
func (p *genPipe) elsewhere(gen int, now, timeout time.Duration) string {
	var parts []string
	for _, id := range p.order {
		c := p.cps[id]
		if !c.g.has(gen) && c.overdue(now, timeout) && now-c.at < 10*timeout {
			parts = append(parts, fmt.Sprintf("#%d of generation %s, triggered at %v", c.id, c.g, c.at))
		}
	}
	for _, f := range p.faults {
		if !f.g.has(gen) && now-f.at < 10*timeout {
			parts = append(parts, fmt.Sprintf("%s fault of generation %s at %v", f.kind, f.g, f.at))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	if len(parts) > 4 {
		parts = append(parts[len(parts)-4:], "...")
	}
	return "; recent causes of other generations: " + strings.Join(parts, ", ")
}
