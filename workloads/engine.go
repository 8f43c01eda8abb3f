package workloads

import (
	"cmp"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// SwarmFaults is the faults one seed of a swarm scenario runs with
// (TigerBeetle's swarm testing: a seed with few fault kinds finds bugs
// that all of them together hide). Each kind the scenario switches on
// (FaultKinds, in table order) is kept with probability 1/2 (1/KeepOneIn
// for a kind that sets it: redeploy, 1/8), at a
// magnitude drawn from its swarm range: its rate (probability, per_hour,
// the inverse of every, a distribution's scale) times a multiplier drawn
// log-uniformly from Swarm, and a schedule's `for` times one from
// SwarmFor. At least one kind stays on. The draws come from the seed
// alone and every kind draws whether on or not, so adding a kind to a
// scenario does not change the others' draws. chosen maps every kind the
// scenario switches on to its drawn value as YAML, or "off".
func SwarmFaults(f Faults, seed uint64) (out Faults, chosen map[string]string) {
	r := sim.NewRand(seed, sim.StreamSwarm)
	out, chosen = f.Clone(), map[string]string{}
	var enabled, kept []FaultKind
	for _, k := range faultKinds {
		keep, x, y := r.IntN(cmp.Or(k.KeepOneIn, 2)) == 0, r.Float64(), r.Float64()
		if !k.On(&f) {
			continue
		}
		enabled = append(enabled, k)
		k.scale(&out, k.Swarm.at(x), k.SwarmFor.at(y))
		if keep {
			kept = append(kept, k)
		}
	}
	if len(kept) == 0 && len(enabled) > 0 {
		kept = append(kept, enabled[r.IntN(len(enabled))])
	}
	for _, k := range enabled {
		if !slices.ContainsFunc(kept, func(o FaultKind) bool { return o.Field == k.Field }) {
			k.Off(&out)
			chosen[k.Field] = "off"
			continue
		}
		chosen[k.Field] = k.Value(&out)
	}
	return out, chosen
}

// SwarmString renders a swarm's choice (Outcome.Swarm) on one line, the
// kinds kept, in table order: "failover={per_hour: 45} task_error=0.02".
func SwarmString(chosen map[string]string) string {
	var parts []string
	for _, k := range faultKinds {
		if v, ok := chosen[k.Field]; ok && v != "off" {
			parts = append(parts, k.Field+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// Run executes one seed of the scenario and judges it. It never panics: a
// panic anywhere is a Crash outcome with its stack.
func Run(s *Scenario, opt Options) (out Outcome) {
	start := time.Now()
	v := s.effectiveVariants(opt.Variants)
	out = Outcome{Scenario: s.Name, Seed: opt.Seed, Variants: VariantString(v), Profile: opt.Profile,
		Strategy: opt.Strategy, BuggifyFlag: opt.Buggify, Replay: ReplayCommand(s, opt.Seed, v)}
	if opt.Buggify != "" {
		out.Replay += " --buggify " + opt.Buggify
	}
	defer func() {
		if p := recover(); p != nil {
			out.Verdict = Crash
			out.Violations = append(out.Violations, fmt.Sprintf("harness panic: %v\n%s", p, debug.Stack()))
		}
		out.WallNs = time.Since(start).Nanoseconds()
	}()
	faults := s.Faults
	if s.Swarm {
		faults, out.Swarm = SwarmFaults(faults, opt.Seed)
		s, out.Options = SwarmConfig(s, opt.Seed)
	}
	ccfg, err := s.clusterConfig(v, faults)
	if err != nil {
		out.Verdict = Crash
		out.Violations = []string{err.Error()}
		return out
	}
	if out.Options != nil {
		out.Options["design"] = designOf(ccfg.Sched.Design) // the variants' design wins over the draw
	}
	r := &runner{s: s, opt: opt, ccfg: ccfg, faults: faults, swarm: out.Swarm, options: out.Options}
	return r.run(out)
}

type runner struct {
	s       *Scenario
	opt     Options
	ccfg    cluster.Config
	faults  Faults
	swarm   map[string]string // the swarm's choice (nil: no swarm)
	options map[string]string // the swarm's options (SwarmConfig; nil: no swarm)
	w       *sim.World
	c       *cluster.Cluster
	sp      *savepoints
	// plantLoad, when set (tests only), replaces the restore from a
	// savepoint with a planted one (TestSavepointRotIsNeverLoaded).
	planted  plantedLoad
	h        *histories
	wm       *watermarks
	delays   []time.Duration
	find     oracle.Findings // every check reports here (workloads/oracle)
	late     oracle.Findings // the lease and pipeline checks report here, added to find after the run in their order (as the verdict always listed them)
	lease    *oracle.Lease
	cps      *oracle.Checkpoints
	store    *oracle.Storage
	gens     *oracle.Generations
	healAt   time.Duration
	in       *injector
	prog     *oracle.Progress
	fin      *oracle.Finish
	ans      *oracle.Answers
	status   *oracle.Status
	causes   *oracle.Causes
	lat      *oracle.Latency
	closedAt time.Duration // when main closed the scheduler (0: it did not)
	tl       tl            // what the timeline page needs
}

func (r *runner) worldConfig() sim.Config {
	s := r.s
	cfg := sim.Config{Seed: r.opt.Seed, MaxSteps: s.Run.MaxSteps, LockOrder: true, Trace: r.opt.Trace,
		RecordDecisions: r.opt.RecordDecisions, PCTDepth: s.Run.PCTDepth}
	if r.opt.MaxSteps > 0 {
		cfg.MaxSteps = r.opt.MaxSteps
	}
	cfg.MaxHeap, cfg.Progress = r.opt.MaxHeap, r.opt.Progress
	strategy := s.Run.Strategy
	if r.opt.Strategy != "" {
		strategy = r.opt.Strategy
	}
	cfg.Strategy, _ = sim.ParseStrategy(strategy)
	cfg.Buggify = s.buggifyConfig(r.opt.Buggify)
	if len(r.opt.Replay) > 0 {
		cfg.Strategy, cfg.Replay = sim.StrategyReplay, r.opt.Replay
	}
	// A run that does not end an hour of virtual time after its phases is
	// livelocked; the budget says so instead of hanging.
	cfg.MaxTime = s.Run.Duration.D + s.heal() + time.Hour
	return cfg
}

func (r *runner) run(out Outcome) Outcome {
	cfg := r.worldConfig()
	if m, ok := sim.HorizonRun(cfg); ok {
		cfg = sim.WithHorizon(cfg, r.measure(m))
	}
	r.w = sim.New(cfg)
	r.w.Harness().SpawnStacksFor(spawnedByExecutor) // the thread checks' roles (roles.go)
	r.tl.attach(r.w)
	r.ccfg.Sched.Observe = func(f sched.Firing) { r.tl.firings = append(r.tl.firings, f) } // the timeline's hand-offs
	res := r.w.Run(r.main)
	out.TraceHash = fmt.Sprintf("%016x", res.TraceHash)
	out.SimNs, out.Steps = int64(res.Elapsed), res.Steps
	out.Events, out.Decisions, out.LockGraph = r.w.Events(), res.Decisions, r.w.Harness().LockGraph()
	out.Buggify = siteOutcomes(r.w.Harness().BuggifyReport())
	out.Probes = r.w.Harness().ProbeHits()
	out.Verdict = Pass
	switch res.Outcome {
	case sim.OutcomeDeadlock:
		oracle.WorldDeadlock(&r.find, res.Elapsed, res.Reason)
	default:
		oracle.WaitCycle(&r.find, res.Elapsed, blockedOf(res.WaitCycle))
	case sim.OutcomePanic:
		r.fail(&out, Crash, fmt.Sprintf("panic in %s: %v\n%s", res.Panic.Thread, res.Panic.Value, res.Panic.Stack))
		r.tl.check("panic", fmt.Sprintf("panic in %s: %v", res.Panic.Thread, res.Panic.Value), res.Elapsed, -1, -1)
	case sim.OutcomeBudget:
		r.fail(&out, Budget, res.Reason)
		r.tl.check("budget", res.Reason, res.Elapsed, -1, -1)
	case sim.OutcomeDivergence:
		r.fail(&out, Crash, res.Reason)
		r.tl.check("divergence", res.Reason, res.Elapsed, -1, -1)
	}
	if r.c != nil {
		r.judge(&out, res)
	}
	r.report(&out)
	if r.c != nil {
		r.writeTimeline(&out)
	}
	return out
}

// measure is PCT's horizon (sim.HorizonRun, as sim.Run measures it): the
// same seed, variants and budgets run once under the random walk, on a
// runner of its own that judges nothing and writes nothing, and its step
// count is the k over which the PCT run spreads its change points. A PCT
// seed costs two runs.
func (r *runner) measure(m sim.Config) int64 {
	mr := &runner{s: r.s, opt: r.opt, ccfg: r.ccfg, faults: r.faults, swarm: r.swarm, options: r.options, planted: r.planted}
	mr.w = sim.New(m)
	return mr.w.Run(mr.main).Steps
}

// report turns the run's findings into the verdict: each finding is a
// violation line and its check's class; Checks lists the ids that fired.
func (r *runner) report(out *Outcome) {
	out.Findings = r.find.List()
	out.Checks = oracle.IDs(out.Findings)
	for _, f := range out.Findings {
		v := Safety
		if f.Class == oracle.Liveness {
			v = Liveness
		}
		r.fail(out, v, f.String())
		if strings.HasPrefix(f.Check, "model-") || f.Check == oracle.CheckpointProgress {
			continue // drawn where the model or the liveness phase located it (locateModel, liveness)
		}
		j, p := subject(f.Subject)
		r.tl.check(f.Check, f.Message, f.At, j, p)
	}
}

func (r *runner) fail(out *Outcome, v Verdict, msg string) {
	if rank(v) < rank(out.Verdict) || out.Verdict == Pass {
		out.Verdict = v
	}
	out.Violations = append(out.Violations, msg)
}

// rank orders verdicts: safety first, then liveness, crash, unknown,
// budget.
func rank(v Verdict) int {
	return strings.Index("safety liveness crash unknown budget pass", string(v))
}

// main is the simulated program: build, start, inject faults, heal, wait.
func (r *runner) main() {
	var err error
	r.c, err = cluster.New(r.w, r.ccfg)
	if err != nil {
		panic(err)
	}
	r.c.OnTask = func(te cluster.TaskEvent) { r.tl.tasks = append(r.tl.tasks, te) }
	if r.swarm != nil {
		r.w.Note("swarm: %s", SwarmString(r.swarm))
		r.w.Note("swarm options: %s", OptionsString(r.options))
	}
	r.h = newHistories(r.w, r.s.Cluster.Jobs, r.s.Cluster.Pipelines)
	r.h.attach(r.c)
	r.cps = oracle.NewCheckpoints(&r.find, r.w.Elapsed)
	r.cps.Attach(r.c)
	r.store = oracle.NewStorage(&r.find, r.w.Elapsed, r.maxRetained())
	r.store.Attach(r.c)
	r.gens = oracle.NewGenerations(&r.find, r.w.Elapsed, r.minTimeout())
	r.causes = oracle.NewCauses(&r.find, r.w.Elapsed)
	r.causes.Attach(r.c)
	r.gens.Buggify = r.s.buggifyConfig(r.opt.Buggify) != nil
	if r.gens.Buggify {
		r.gens.SiteCauses = true
		r.w.Harness().OnBuggify(func(s env.Site, thread int32) { r.gens.SiteFired(s.String(), thread) })
	}
	if r.gens.Buggify || r.s.Cluster.ExecutorMax > 0 { // a saturated executor's rejection arms its thread too (FaultSaturated)
		r.w.Harness().OnSpawn(r.gens.Spawned)
	}
	r.gens.Attach(r.c)
	r.prog = oracle.NewProgress(&r.find, r.w.Elapsed)
	if r.faults.Redeploy.On() {
		// Two periods and 10 s for the reports' hop to the coordinator
		// executor, a schema change or savepoint in the way, a slow trigger.
		r.prog.RedeployWithin = 2*(r.ccfg.Coord.Interval+r.ccfg.Coord.MinPause) + 10*time.Second
	}
	r.prog.Attach(r.c)
	r.fin = oracle.NewFinish(&r.find, r.w.Elapsed, r.s.Cluster.Tasks)
	r.fin.Attach(r.c)
	r.ans = oracle.NewAnswers(&r.find, r.w.Elapsed)
	r.ans.Attach(r.c)
	r.status = oracle.NewStatus(&r.find, r.w.Elapsed)
	r.status.Attach(r.c)
	idle := oracle.NewIdle(&r.find, r.w.Elapsed)
	idle.Tasks = r.s.Cluster.Tasks
	idle.Attach(r.c)
	r.lat = oracle.NewLatency(r.w.Elapsed)
	r.lat.Attach(r.c)
	r.lease = oracle.NewLease(&r.late, r.w.Elapsed)
	r.lease.PerLeaseThreads = r.c.Sched.Design() == sched.PerPipeline
	r.lease.Attach(r.c)
	broker := oracle.NewBroker(&r.late, r.w.Elapsed)
	broker.Note = r.w.Note // the trace has always carried the broker's findings
	broker.Attach(r.c)
	r.h.attachGenerations(r.c, r.gens)
	r.wm = newWatermarks(r.w, r.s.Cluster.Pipelines)
	r.wm.attach(r.c)
	r.sp = newSavepoints(r.w, r.s.Cluster.Pipelines, r.faults.MasterCrash.On(), r.ccfg.Coord.Variants.SavepointList)
	r.sp.h = r.h
	r.sp.rotWith(r.faults.SavepointRot, r.c.Healed)
	r.sp.failWith(r.faults.SavepointFailure, r.c.Healed)
	if r.planted != nil {
		r.sp.load = r.planted(r.sp)
	}
	r.sp.onWrite = r.c.SavepointWrite
	r.sp.onError = func(job int64, pipeline int, id int64, err error) {
		r.gens.Observe(cluster.Obs{Kind: cluster.ObsFault, Job: job, Pipeline: pipeline, ID: id, Fault: cluster.FaultSavepoint,
			Thread: r.w.ThreadID()})
	}
	d := r.s.Run.Duration.D
	in := &injector{w: r.w, c: r.c, s: r.s, f: r.faults, r: r.w.Rand(sim.StreamInjector), end: d, sp: r.sp}
	r.in = in
	in.start()
	cs := r.s.Run.Cancel
	cancel := func(j int64) { // the operator's cancel of job j, then its savepoints' disposal
		r.c.CancelJob(j)
		if cs.DeleteSavepoints {
			r.in.awaitSavepoints(j)
			r.sp.deleteAll(j)
		}
	}
	if cs.Jobs > 0 && cs.AtFailure {
		r.c.TrackFailures()
		rnd := r.w.Rand(sim.StreamCancelAtFailure)
		for j := r.s.Cluster.Jobs - 1; j >= r.s.Cluster.Jobs-cs.Jobs; j-- {
			lead, yields := time.Duration(0), rnd.IntN(cancelAtFailureYields)
			if rnd.IntN(2) == 0 {
				lead = time.Duration(rnd.Int64N(int64(cancelAtFailureLead)))
			}
			r.w.Go(fmt.Sprintf("cancel-%d", j), func() {
				r.w.Sleep(cs.At.D)
				r.awaitFailure(int64(j), lead, yields)
				cancel(int64(j))
			})
		}
	} else if cs.Jobs > 0 {
		r.w.Go("cancel", func() {
			r.w.Sleep(cs.At.D)
			for j := r.s.Cluster.Jobs - 1; j >= r.s.Cluster.Jobs-cs.Jobs; j-- {
				cancel(int64(j))
			}
		})
	}
	r.w.Go("monitor", r.monitor)
	r.c.Start()
	r.w.Sleep(d)
	r.healAt = r.w.Elapsed()
	r.c.Heal()
	r.w.Sleep(r.s.heal())
	if ps := r.c.Pipelines; ps != nil { // watermarks: stop the sources, let commits catch up, compare
		ps.StopSources()
		r.w.Sleep(ps.SettleAfterStop())
		ps.CheckCommitted()
	}
	if r.s.Run.CloseAtFiring {
		r.closeAtFiring()
	}
	r.closedAt = r.w.Elapsed()
	r.c.Quiesce() // close the scheduler: every lease task must settle (lease checks)
}

// closeAtFiring (run.close_at_firing) waits, before the run's close of
// the scheduler, for the instant the next lease task is due, so that the
// close meets a firing in flight: a timer thread handing the task to a
// dispatcher, a body re-arming its trigger or arming a watchdog (sched
// Lease.ScheduleAt finds the scheduler open and its timer shut down:
// probes lease-arm-refused, timer-schedule-closed). With a timer lead,
// two closes in three come that lead before the due instant, when a
// timer thread claims the task and hands the claim to a dispatcher
// (sched shared.claimed: claim-hand-off-refused), the window the harder
// to enter. The choices are drawn from sim.StreamCloseAtFiring, after the
// rest of the run, so no other draw moves.
func (r *runner) closeAtFiring() {
	rnd := r.w.Rand(sim.StreamCloseAtFiring)
	lead := r.ccfg.Sched.TimerLead
	// The tasks due now were claimed a lead ago and their bodies re-arm
	// only as they run: look again a little later until a task is due
	// far enough ahead (at most closeAtFiringWithin).
	var due time.Duration
	for waited := time.Duration(0); ; waited += lookAgainEvery {
		var ok bool
		if due, ok = r.c.NextLeaseDue(r.w.Elapsed() + lead); ok {
			break
		}
		if waited >= closeAtFiringWithin {
			return
		}
		r.w.Sleep(lookAgainEvery)
	}
	// Where in the firing the close lands: the threads at the instant
	// run in a random order, and the harness yields a number of
	// scheduling points first. At the claim the hand-off follows within a
	// few points; at the deadline a body re-arms after a dozen or more
	// (staleTrigger, the generation, coord.lock, the pending map).
	at, yields := "deadline", closeAtDueYields+rnd.IntN(closeAtDueYields)
	if lead > 0 && rnd.IntN(3) != 0 {
		due -= lead
		at, yields = "claim", rnd.IntN(closeAtClaimYields)
	}
	r.w.Note("close at firing: the scheduler closes at %v (a lease task's %s) after %d yields", due, at, yields)
	if wait := due - r.w.Elapsed(); wait > 0 {
		r.w.Sleep(wait)
	}
	for range yields {
		r.w.Yield()
	}
}

// awaitFailure (run.cancel.at_failure) waits, before the cancel of job,
// for the instant a failure may next reach core from a task of it (a
// task's error report, the end of a barrier's dispatch:
// Cluster.NextFailureDue), or lead before it, then yields scheduling
// points, so that the cancel meets the
// failure in flight: the failure's handler checks the generation's
// future, writes FAILED and completes the future, while the cancel checks
// it, cleans (a status delete), writes CANCELED and completes it (coord
// failGeneration and Cancel). At the instant the failure's handler has
// the status lock first; a lead of a few milliseconds lets the cancel's
// write come first, with the failure past its look at the future. With no
// failure due within cancelAtFailureWithin, the cancel comes where it stands.
func (r *runner) awaitFailure(job int64, lead time.Duration, yields int) {
	for waited := time.Duration(0); waited < cancelAtFailureWithin; waited += lookAgainEvery {
		if due, ok := r.c.NextFailureDue(job, r.w.Elapsed()+lead); ok {
			r.w.Note("cancel at failure: job %d is canceled at %v (%v before a failure may come) after %d yields", job, due-lead, lead, yields)
			if wait := due - lead - r.w.Elapsed(); wait > 0 {
				r.w.Sleep(wait)
			}
			for range yields {
				r.w.Yield()
			}
			return
		}
		r.w.Sleep(lookAgainEvery)
	}
}

// cancelAtFailureWithin, cancelAtFailureLead and cancelAtFailureYields:
// how long a cancel waits for a failure to come, the most it comes before
// it (in half the cancels; the others come at the instant), and the
// scheduling points it yields there (fewer than this many).
const (
	cancelAtFailureWithin = 10 * time.Second
	cancelAtFailureLead   = 10 * time.Millisecond
	cancelAtFailureYields = 40
)

// lookAgainEvery: how often closeAtFiring looks for a lease task due
// ahead and awaitFailure for a failure to come; closeAtFiringWithin: how
// long closeAtFiring looks before it gives up and closes the scheduler
// where it stands.
const (
	lookAgainEvery      = time.Millisecond
	closeAtFiringWithin = 10 * time.Second
)

// closeAtDueYields and closeAtClaimYields: the scheduling points the
// harness yields before it closes at a deadline (from this many to twice
// as many) and at a claim (fewer than this many). Over 100 seeds of
// close-at-firing, 16 to 31 at the deadline entered lease-arm-refused in
// 64 of them (0 to 15: 12; 32 to 63: 19); at the claim the number barely
// matters (claim-hand-off-refused in 13 to 18 of them for 0 to 3, 7, 15
// or 31; 6 with none).
const (
	closeAtDueYields   = 16
	closeAtClaimYields = 8
)

// monitor samples the stores once a virtual second (retention,
// storage-retention), and the leases' due tasks that neither started nor
// were cancelled (lease-outstanding while the scheduler is open). The scheduler's threads are judged after the run
// from the world's thread table (threads).
func (r *runner) monitor() {
	for {
		r.retention(0)
		r.c.LeasePending() // lease-outstanding: a task dropped while the scheduler is open
		r.w.Sleep(time.Second)
	}
}

// threads judges timer-threads, dispatch-bound and worker-died from the
// simulator's thread table: each thread's role read from its spawn record
// (schedRoles: which executor spawned it, for which package; never its
// name), the bounds of the scheduler's configuration, and the keep-alive
// after which an idle dispatch thread may be reaped.
func (r *runner) threads() {
	cfg := r.ccfg.Sched
	th := oracle.Threads{TimerMax: -1, KeepAlive: cfg.KeepAlive}
	if th.KeepAlive <= 0 {
		th.KeepAlive = 60 * time.Second // sched.Config's default
	}
	design := r.c.Sched.Design()
	switch design {
	case sched.Shared:
		th.TimerMax, th.DispatchMax = 2, cfg.Bound()
	case sched.SharedInline:
		th.TimerMax = 2
	case sched.LeaderFollower: // one pool of at most bound threads, the leader among them; no timer threads
		th.TimerMax, th.DispatchMax = 0, cfg.Bound()
	}
	closed := r.closedAt
	if closed == 0 {
		closed = r.w.Elapsed() // the run ended before the harness closed the scheduler
	}
	table := threadTable(design, r.w.Harness().Threads())
	if onThreadTable != nil {
		onThreadTable(design, table)
	}
	th.Judge(&r.find, table, r.lease.BodyEnds, closed)
}

// onThreadTable, when set (by a test), sees each run's thread table as the
// thread checks get it.
var onThreadTable func(sched.Design, []oracle.Thread)

func (r *runner) now() time.Duration { return r.w.Elapsed() }

func (r *runner) maxRetained() int {
	if n := r.ccfg.Coord.MaxRetained; n > 0 {
		return n
	}
	return 20
}

// retention samples what storage holds per pipeline for the storage
// checks (oracle.Storage), settle > 0 at the end of the run. The monitor
// still calls Storage.Count, a scheduling point, as it always did (the
// runs stay as they were), but judges the ids Peek reads without one: the
// count and the retention step the check reads must be of one instant.
// Judged by the count, the monitor could take Count's lock between a
// store's return and its retention's Delete (2N held, the step open), lose
// the processor at the unlock, and judge after the Delete closed the step
// (a false retention finding: swarm seeds 101 and 142, per-pipeline).
func (r *runner) retention(settle time.Duration) {
	for _, co := range r.c.Coordinators() {
		job, p := co.Job(), co.Pipeline()
		if settle == 0 {
			_ = r.c.Storage.Count(job, p)
			r.store.Retention(job, p, r.c.Storage.Peek(job, p))
		}
		r.store.Judge(job, p, r.c.Storage.Peek(job, p), settle)
	}
}

// blockedOf hands the simulator's blocked threads to the checks as plain
// values.
func blockedOf(bs []sim.BlockedThread) []oracle.Blocked {
	out := make([]oracle.Blocked, len(bs))
	for i, b := range bs {
		out[i] = oracle.Blocked{Name: b.Name, WaitOn: b.WaitOn, Since: b.Since}
	}
	return out
}

// lockEdges hands the run's lock-order graph to lock-order as plain values.
func lockEdges(g *sim.LockGraph) []oracle.LockEdge {
	var out []oracle.LockEdge
	for _, e := range g.Edges() {
		out = append(out, oracle.LockEdge{From: e.From, To: e.To, FromSite: e.FromSite, ToSite: e.ToSite, Thread: e.Thread})
	}
	return out
}

// threadTable hands the simulator's thread table to the thread checks as
// plain values, each thread with its role from its spawn record.
func threadTable(design sched.Design, ts []sim.ThreadInfo) []oracle.Thread {
	roles := schedRoles(design, ts)
	out := make([]oracle.Thread, len(ts))
	for i, t := range ts {
		out[i] = oracle.Thread{ID: t.ID, Name: t.Name, Role: roles[i], Spawned: t.Spawned, Exited: t.Exited, ExitAt: t.ExitAt}
	}
	return out
}

// judge applies the safety and liveness checks after the run.
func (r *runner) judge(out *Outcome, res sim.Result) {
	rec := r.c.Recorder
	if res.Outcome == sim.OutcomeDone {
		r.c.SelfReport()
		r.lease.Quiesce()
	}
	for _, f := range r.late.List() { // the lease checks and the pipelines', in the order they fired
		r.find.Add(f.Check, f.At, f.Subject, "%s", f.Message)
	}
	r.sp.chk.IntegrityFindings(&r.find)
	r.sp.chk.CrashFindings(&r.find, r.now())
	r.retention(time.Second) // storage-retention at the end of the run
	r.sp.retention(&r.find, r.now())
	oracle.LockOrderCycles(&r.find, r.now(), lockEdges(r.w.Harness().LockGraph()))
	r.models(out)
	r.threads()
	if res.Outcome == sim.OutcomeDone {
		r.liveness(out)
		r.progress(res)
	}
	r.delays = r.lease.Delays // as the lease decorator saw them (due to body start)
	out.Latency = Latencies{TriggerToComplete: r.lat.TriggerToComplete, SchedDelay: r.delays,
		ExpiryToTrigger: rec.ExpiryToTrigger, FailoverToFirst: r.lat.FailoverToFirst}
	if res.Outcome == sim.OutcomeDone && r.s.buggifyConfig(r.opt.Buggify) == nil {
		// BUGGIFY injects delays the configuration does not describe.
		r.checkBounds(out.Latency, r.ccfg.Sched.Design, r.lease.Dues, r.gens.StepDownWindows())
	}
	oracle.MaxDelay(&r.find, r.now(), r.delays, r.s.Checks.MaxDelay.D)
	out.Counts = map[string]int{}
	for k, n := range rec.Counts {
		out.Counts[k.String()] = n
	}
	if closed, idle := r.c.ClosedTasks(); closed > 0 {
		out.Counts["tasks-closed"], out.Counts["tasks-closed-idle"] = closed, idle
	}
	out.Windows = rec.Windows
	out.Windows[WindowRacingFailures] = r.gens.Racing
	st := r.c.Sched.Stats()
	out.Windows[cluster.WindowCancelAfterHandoff] = int(st.RanAfterCancel) // the body ran although its cancel returned true
}

// models checks the recorded histories with porcupine.
func (r *runner) models(out *Outcome) {
	histories, harness := r.wm.check(r.h.check())
	verdicts := oracle.CheckModels(&r.find, r.now(), histories, checkOptions(r.opt.MaxHeap)) // model-* findings
	r.tl.verdicts = verdicts
	for _, msg := range harness {
		r.fail(out, Crash, msg)
	}
	for i := range verdicts {
		v := &verdicts[i]
		switch {
		case v.Pass():
			continue
		case v.Result == linearizability.Unknown:
			r.fail(out, Unknown, fmt.Sprintf("%s %s: %s: unknown: %s (unknown is not a pass)", r.now(), v.Partition, oracle.ModelCheckID(v.Model), v.Message))
			r.unknownArtifact(out, v)
		default:
			r.visualize(out, v)
			r.locateModel(*v)
		}
	}
}

// unknownArtifact writes the unfinished partition of an unknown model
// check as a history file, which larger bounds can decide.
func (r *runner) unknownArtifact(out *Outcome, v *linearizability.Verdict) {
	if r.opt.ArtifactDir == "" {
		return
	}
	path, err := v.WriteUnknownHistory(r.artifactDir(), specs[v.Model])
	if err != nil {
		out.IOErrors = append(out.IOErrors, fmt.Sprintf("writing the unknown history: %v", err))
		return
	}
	out.Artifacts = append(out.Artifacts, path)
}

// locateModel records where a porcupine check fired: the call of the
// earliest operation that cannot follow the longest legal prefix (the
// recorders use the Logical clock: virtual ns << 10).
func (r *runner) locateModel(v linearizability.Verdict) {
	at := time.Duration(v.At >> 10)
	j, p := r.keyLane(v)
	where := v.Partition
	if p >= 0 {
		where = fmt.Sprintf("%s (histories number pipelines job*%d+pipeline)", where, r.s.Cluster.Pipelines)
	}
	r.tl.check(oracle.ModelCheckID(v.Model), where+": "+v.Message, at, j, p)
}

// artifactDir is this seed's directory under Options.ArtifactDir.
func (r *runner) artifactDir() string {
	return filepath.Join(r.opt.ArtifactDir, fmt.Sprintf("%s-seed-%d", r.s.Name, r.opt.Seed))
}

func (r *runner) visualize(out *Outcome, v *linearizability.Verdict) {
	if r.opt.ArtifactDir == "" {
		return
	}
	dir := r.artifactDir()
	if err := v.WriteVisualization(dir); err != nil {
		out.IOErrors = append(out.IOErrors, fmt.Sprintf("writing visualisation: %v", err))
		return
	}
	out.Artifacts = append(out.Artifacts, v.HTMLPath)
}

// liveness requires every pipeline that is not finished to store a
// checkpoint durably after faults stopped (checkpoint-progress), and, with
// bounded sources, every pipeline to finish (bounded-finish); both from
// boundary observations only (oracle.Progress).
func (r *runner) liveness(out *Outcome) {
	within := r.s.heal()
	if lw := r.s.Checks.LivenessWithin.D; lw > 0 && lw < within {
		within = lw
	}
	pipes := r.pipes()
	for i, q := range r.prog.Stalled(pipes, r.healAt, within) {
		if i < 10 {
			r.tl.check(oracle.CheckpointProgress, fmt.Sprintf("stored no checkpoint in the %v after faults stopped", within),
				r.healAt+within, q.Job, q.Pipeline)
		}
	}
	r.prog.Unfinished(pipes)
	if r.status != nil {
		r.status.Judge(pipes, r.now()-answerGrace)
	}
	r.prog.Restarted()
	if r.wm != nil && r.wm.used {
		r.wm.live.Judge(&r.find, r.now(), r.healAt)
	}
}

// pipes lists every pipeline the harness built, job-major, with the value
// its status key holds in the simulated status store now (the harness's
// own store, read without a scheduling point).
func (r *runner) pipes() []oracle.Pipe {
	var out []oracle.Pipe
	for j := range r.s.Cluster.Jobs {
		for p := range r.s.Cluster.Pipelines {
			_, finished := r.fin.SourcesFinished(int64(j), p)
			q := oracle.Pipe{Job: int64(j), Pipeline: p,
				Status: r.c.PipelineStatus(int64(j), p), Finished: finished, Canceled: r.prog.Canceled(int64(j), p)}
			if finished {
				q.Unclosed = r.fin.Unclosed(int64(j), p)
			}
			out = append(out, q)
		}
	}
	return out
}

// answerGrace is how long before the end of a run a call into core may
// be made and still be in flight at the end (calls-answered).
const answerGrace = 30 * time.Second

// WindowRacingFailures counts failures that began while another failure
// of the same pipeline was in progress (two failure sources at once).
const WindowRacingFailures = "racing-failures"

// minTimeout is the smallest checkpoint timeout the coordinators use
// (coord.Config's defaults: 30 s).
func (r *runner) minTimeout() time.Duration {
	def := func(d time.Duration) time.Duration {
		if d <= 0 {
			return 30 * time.Second
		}
		return d
	}
	return min(def(r.ccfg.Coord.Timeout), def(r.ccfg.Coord.SchemaTimeout))
}

// progress: no thread stayed blocked without a deadline through the whole
// liveness phase (outside the idle waits; oracle.BlockedThreads, handed the
// simulator's blocked threads and the coordinator executor's report about
// itself), and every savepoint the harness requested came back, completed
// or failed with an error, at the call that requested it.
func (r *runner) progress(res sim.Result) {
	var exec *oracle.ExecutorStats
	if r.c != nil && r.c.Executor() != nil {
		st := r.c.Executor().Stats() // after the run: the pool's lock is not a scheduling point
		exec = &oracle.ExecutorStats{Queued: st.Queued, Threads: st.Threads}
	}
	oracle.BlockedThreads(&r.find, r.now(), r.healAt, blockedOf(res.Blocked), exec)
	if r.ans != nil {
		r.ans.Judge(r.now(), r.now()-answerGrace)
	}
	if r.causes != nil {
		r.causes.Finish()
	}

	if r.in == nil {
		return
	}
	reqs := make([]oracle.SavepointRequest, len(r.in.requests))
	for i, q := range r.in.requests {
		reqs[i] = oracle.SavepointRequest{Job: q.job, At: q.at, Answered: q.answered, Completed: q.answered && q.err == nil, Committed: q.committed}
	}
	oracle.SavepointOutcomes(&r.find, r.now(), reqs)
}
