package workloads

import (
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/sim/cluster"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// streamSwarm draws the swarm's choice of fault kinds, apart from the
// faults the cluster draws during the run.
const streamSwarm sim.Stream = 100

// swarm switches each fault kind on or off for this seed (TigerBeetle's
// swarm testing: a seed with few fault kinds finds bugs that all of them
// together hide). At least one kind stays on.
func swarm(f Faults, seed uint64) (Faults, []string) {
	r := sim.NewRand(seed, streamSwarm)
	on := func() bool { return r.IntN(2) == 0 }
	var kept []string
	keep := func(name string, zero func()) {
		if on() {
			kept = append(kept, name)
		} else {
			zero()
		}
	}
	keep("failover", func() { f.Failover = Schedule{} })
	keep("step_down", func() { f.StepDown = Schedule{} })
	keep("savepoint", func() { f.Savepoint = Schedule{} })
	keep("schema_change", func() { f.SchemaChange = Schedule{} })
	keep("task_failure", func() { f.TaskFailure = 0 })
	keep("status_retryable", func() { f.StatusRetryable = 0; f.StatusSlow = Dist{} })
	keep("storage_failure", func() { f.StorageFailure = 0 })
	keep("id_failure", func() { f.IDFailure = 0 })
	keep("barrier_failure", func() { f.BarrierFailure = 0 })
	keep("notify_failure", func() { f.NotifyFailure = 0 })
	keep("trigger_throw", func() { f.TriggerThrow = 0 })
	keep("task_error", func() { f.TaskError = 0 })
	keep("master_crash", func() { f.MasterCrash = Schedule{} })
	return f, kept
}

// Run executes one seed of the scenario and judges it. It never panics: a
// panic anywhere is a Crash outcome with its stack.
func Run(s *Scenario, opt Options) (out Outcome) {
	start := time.Now()
	v := s.effectiveVariants(opt.Variants)
	out = Outcome{Scenario: s.Name, Seed: opt.Seed, Variants: VariantString(v), Replay: ReplayCommand(s, opt.Seed, v)}
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
	var kinds []string
	if s.Swarm {
		faults, kinds = swarm(faults, opt.Seed)
	}
	ccfg, err := s.clusterConfig(v, faults)
	if err != nil {
		out.Verdict = Crash
		out.Violations = []string{err.Error()}
		return out
	}
	r := &runner{s: s, opt: opt, ccfg: ccfg, faults: faults, kinds: kinds}
	return r.run(out)
}

type runner struct {
	s      *Scenario
	opt    Options
	ccfg   cluster.Config
	faults Faults
	kinds  []string
	w      *sim.World
	c      *cluster.Cluster
	sp     *savepoints
	h      *histories
	wm     *watermarks
	delays []time.Duration
	find   oracle.Findings // every check reports here (workloads/oracle)
	cps    *oracle.Checkpoints
	gens   *oracle.Generations
	healAt time.Duration
	in     *injector
	tl     tl // what the timeline page needs
}

func (r *runner) worldConfig() sim.Config {
	s := r.s
	cfg := sim.Config{Seed: r.opt.Seed, MaxSteps: s.Run.MaxSteps, LockOrder: true, Trace: r.opt.Trace,
		RecordDecisions: r.opt.RecordDecisions, PCTDepth: s.Run.PCTDepth}
	if r.opt.MaxSteps > 0 {
		cfg.MaxSteps = r.opt.MaxSteps
	}
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
	if cfg.PCTSteps == 0 {
		cfg.PCTSteps = 200_000
	}
	return cfg
}

func (r *runner) run(out Outcome) Outcome {
	r.w = sim.New(r.worldConfig())
	r.tl.attach(r.w)
	r.ccfg.Sched.Observe = func(f sched.Firing) { r.tl.firings = append(r.tl.firings, f) } // the timeline's hand-offs
	res := r.w.Run(r.main)
	out.TraceHash = fmt.Sprintf("%016x", res.TraceHash)
	out.SimNs, out.Steps = int64(res.Elapsed), res.Steps
	out.Events, out.Decisions, out.LockGraph = r.w.Events(), res.Decisions, r.w.LockGraph()
	out.Buggify = siteOutcomes(r.w.BuggifyReport())
	out.Verdict = Pass
	switch res.Outcome {
	case sim.OutcomeDeadlock:
		r.find.Add(oracle.Deadlock, res.Elapsed, "world", "%s", res.Reason)
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
	if len(r.kinds) > 0 {
		r.w.Note("swarm: %s", strings.Join(r.kinds, ","))
	}
	r.h = newHistories(r.w, r.s.Cluster.Jobs, r.s.Cluster.Pipelines)
	r.h.attach(r.c)
	r.cps = oracle.NewCheckpoints(&r.find, r.w.Elapsed)
	r.cps.Attach(r.c)
	r.gens = oracle.NewGenerations(&r.find, r.w.Elapsed, r.minTimeout())
	r.gens.Buggify = r.s.buggifyConfig(r.opt.Buggify) != nil
	r.gens.Attach(r.c)
	r.h.attachGenerations(r.c, r.gens)
	r.c.Recorder.OnEvent = func(rec cluster.Record) {
		r.h.event(rec)
	}
	r.wm = newWatermarks(r.w, r.s.Cluster.Pipelines)
	r.wm.attach(r.c)
	r.sp = newSavepoints(r.w, r.s.Cluster.Pipelines, r.faults.MasterCrash.on())
	r.sp.h = r.h
	r.sp.onError = func(job int64, pipeline int, id int64, err error) {
		r.gens.Observe(cluster.Obs{Kind: cluster.ObsFault, Job: job, Pipeline: pipeline, ID: id, Fault: cluster.FaultSavepoint,
			Thread: r.w.ThreadID()})
	}
	d := r.s.Run.Duration.D
	in := &injector{w: r.w, c: r.c, s: r.s, f: r.faults, r: r.w.Rand(sim.StreamFaults), end: d, sp: r.sp}
	r.in = in
	in.start()
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
	r.c.Quiesce() // close the scheduler: every lease task must settle (lease checks)
}

// monitor samples the scheduler's thread counts once a second.
func (r *runner) monitor() {
	bound := r.ccfg.Sched.Bound()
	var deaths int64
	over := map[[2]int64]bool{}
	for {
		st := r.c.Sched.Stats()
		switch r.c.Sched.Design() {
		case sched.Shared, sched.SharedInline:
			r.find.Assert(st.TimerThreads <= 2, oracle.TimerThreads, r.now(), "scheduler", "%d timer threads, want at most 2", st.TimerThreads)
		case sched.LeaderFollower: // one pool of at most bound threads, the leader among them
			r.find.Assert(st.TimerThreads == 0, oracle.TimerThreads, r.now(), "scheduler", "%d timer threads beside the leader-follower pool, want 0", st.TimerThreads)
		}
		r.find.Assert(st.DispatchThreads <= bound, oracle.DispatchBound, r.now(), "scheduler", "%d dispatch threads, bound %d", st.DispatchThreads, bound)
		if !r.find.Assert(st.WorkerDeaths <= deaths, oracle.WorkerDied, r.now(), "dispatch pool",
			"%d dispatch worker threads died (a failing body must leave its worker alive)", st.WorkerDeaths-deaths) {
			deaths = st.WorkerDeaths
		}
		r.retention(over)
		r.w.Sleep(time.Second)
	}
}

func (r *runner) now() time.Duration { return r.w.Elapsed() }

// retention checks that no pipeline keeps more checkpoints than the
// batch-deletion scheme allows (max-retained N keeps N..2N-1; H10).
func (r *runner) retention(over map[[2]int64]bool) {
	n := r.ccfg.Coord.MaxRetained
	if n <= 0 {
		n = 20
	}
	for _, co := range r.c.Coordinators() {
		k := [2]int64{co.Job(), int64(co.Pipeline())}
		if got := r.c.Storage.Count(co.Job(), co.Pipeline()); got > 2*n && !over[k] {
			over[k] = true
			r.find.Add(oracle.Retention, r.now(), oracle.Subject(co.Job(), co.Pipeline()),
				"holds %d checkpoints, max-retained %d allows at most %d", got, n, 2*n-1)
		}
	}
}

// judge applies the safety and liveness checks after the run.
func (r *runner) judge(out *Outcome, res sim.Result) {
	rec := r.c.Recorder
	if res.Outcome == sim.OutcomeDone {
		r.c.QuiesceCheck()
	}
	for _, v := range rec.Violations { // the simulated broker's and runtimes' checks, and the lease checks
		r.find.Add(v.Check, v.At, oracle.Subject(v.Job, v.Pipeline), "%s", v.Message)
	}
	for _, v := range r.sp.findings {
		r.find.Add(oracle.SavepointCrash, r.now(), "savepoint store", "%s", v)
	}
	for _, v := range r.sp.check() {
		r.find.Add(oracle.SavepointRetention, r.now(), "savepoint store", "%s", v)
	}
	for _, cyc := range r.w.LockGraph().Cycles() {
		r.find.Add(oracle.LockOrder, r.now(), "lock-order graph", "%s", cyc.String())
	}
	r.models(out)
	if res.Outcome == sim.OutcomeDone {
		r.liveness(out)
		r.progress(res)
	}
	r.delays = r.c.SchedDelays() // as the lease decorator saw them (due to body start)
	out.Latency = Latencies{TriggerToComplete: rec.TriggerToComplete, SchedDelay: r.delays,
		ExpiryToTrigger: rec.ExpiryToTrigger, FailoverToFirst: rec.FailoverToFirst}
	if res.Outcome == sim.OutcomeDone && r.s.buggifyConfig(r.opt.Buggify) == nil {
		// BUGGIFY injects delays the configuration does not describe.
		r.checkBounds(out.Latency, r.ccfg.Sched.Design)
	}
	if md := r.s.Checks.MaxDelay.D; md > 0 {
		if worst := maxDur(r.delays); worst > md {
			r.find.Add(oracle.LatencyBound, r.now(), "scheduler", "scheduling delay reached %v, bound %v", worst, md)
		}
	}
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
	verdicts, harness := r.wm.check(r.h.check())
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
			r.fail(out, Unknown, fmt.Sprintf("%s %s: %s: unknown: %s (unknown is not a pass)", r.now(), v.Partition, modelCheckID(v.Model), v.Message))
			r.unknownArtifact(out, v)
		default:
			r.find.Add(modelCheckID(v.Model), r.now(), v.Partition, "%s", v.Message)
			r.visualize(out, v)
			r.locateModel(*v)
		}
	}
}

// unknownArtifact writes the unfinished partition of an unknown model
// check as a history file, which a larger step bound can decide.
func (r *runner) unknownArtifact(out *Outcome, v *linearizability.Verdict) {
	if r.opt.ArtifactDir == "" {
		return
	}
	path, err := v.WriteUnknownHistory(r.artifactDir(), specs[v.Model])
	if err != nil {
		out.Violations = append(out.Violations, fmt.Sprintf("writing the unknown history: %v", err))
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
	r.tl.check(modelCheckID(v.Model), where+": "+v.Message, at, j, p)
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
		out.Violations = append(out.Violations, fmt.Sprintf("writing visualisation: %v", err))
		return
	}
	out.Artifacts = append(out.Artifacts, v.HTMLPath)
}

// liveness requires every pipeline that is running and not finished to
// complete a checkpoint after faults stopped.
func (r *runner) liveness(out *Outcome) {
	var stuck []string
	within := r.s.heal()
	if lw := r.s.Checks.LivenessWithin.D; lw > 0 && lw < within {
		within = lw
	}
	progressed := r.progressWithin(within)
	for _, co := range r.c.Coordinators() {
		_, _, finished := r.c.Recorder.LastCompleted(co.Job(), co.Pipeline())
		if finished || progressed[[2]int64{co.Job(), int64(co.Pipeline())}] {
			continue
		}
		stuck = append(stuck, fmt.Sprintf("%d/%d", co.Job(), co.Pipeline()))
		if len(stuck) <= 10 {
			r.tl.check(oracle.CheckpointProgress, fmt.Sprintf("completed no checkpoint in the %v after faults stopped", within),
				r.healAt+within, co.Job(), co.Pipeline())
		}
	}
	r.unfinished()
	if wm := r.wm.stuck(int64(r.healAt)); len(wm) > 0 {
		shown := wm
		if len(shown) > 10 {
			shown = append(shown[:10:10], fmt.Sprintf("... %d more", len(wm)-10))
		}
		r.find.Add(oracle.WatermarkProgress, r.now(), "pipelines", "%d assigned partitions committed no watermark after faults stopped: %s",
			len(wm), strings.Join(shown, ", "))
	}
	if len(stuck) == 0 {
		return
	}
	sort.Strings(stuck)
	shown := stuck
	if len(shown) > 10 {
		shown = append(shown[:10:10], fmt.Sprintf("... %d more", len(stuck)-10))
	}
	r.find.Add(oracle.CheckpointProgress, r.now(), "pipelines", "%d pipelines completed no checkpoint in the %v after faults stopped: %s",
		len(stuck), within, strings.Join(shown, ", "))
}

// unfinished requires, when the scenario's sources finish (bounded), every
// pipeline to have finished with its COMPLETED_POINT by the end.
func (r *runner) unfinished() {
	if r.s.Workload.FinishAfter == (Dist{}) {
		return
	}
	var open []string
	for _, co := range r.c.Coordinators() {
		if _, _, finished := r.c.Recorder.LastCompleted(co.Job(), co.Pipeline()); !finished {
			open = append(open, fmt.Sprintf("%d/%d", co.Job(), co.Pipeline()))
		}
	}
	if len(open) > 0 {
		r.find.Add(oracle.BoundedFinish, r.now(), "pipelines", "%d bounded pipelines did not finish: %s", len(open), strings.Join(open[:min(len(open), 10)], ", "))
	}
}

// progressWithin returns the pipelines that completed a checkpoint in
// [heal, heal+within].
func (r *runner) progressWithin(within time.Duration) map[[2]int64]bool {
	out := map[[2]int64]bool{}
	for _, rec := range r.c.Recorder.Records {
		if rec.Kind == coord.EvCompleted && rec.At >= r.healAt && rec.At <= r.healAt+within {
			out[[2]int64{rec.Job, int64(rec.Pipeline)}] = true
		}
	}
	return out
}

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

// modelCheckID is the check id of a porcupine model.
func modelCheckID(model string) string { return "model-" + model }

func maxDur(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

// idleWaits are the untimed waits a thread may rest in at the end of a
// run: an idle pool worker or timer thread with nothing to do, and the
// harness's own pipeline runtimes waiting for events.
var idleWaits = []string{"wait on cond of exec.pool", "wait on cond of exec.timer", "wait on cond of sim.pipeline"}

// progress: no thread stayed blocked without a deadline through the whole
// liveness phase (outside the idle waits), and every savepoint the harness
// requested came back, completed or failed with an error, at the call
// that requested it.
func (r *runner) progress(res sim.Result) {
	for _, b := range res.Blocked {
		if b.Since > r.healAt || slices.Contains(idleWaits, b.WaitOn) {
			continue
		}
		r.find.Add(oracle.BlockedForever, r.now(), b.Name, "blocked since %v (%s), through the whole %v after faults stopped",
			b.Since, b.WaitOn, r.w.Elapsed()-r.healAt)
	}
	if r.in == nil {
		return
	}
	for _, q := range r.in.requests {
		if !q.answered {
			r.find.Add(oracle.SavepointOutcome, r.now(), fmt.Sprintf("job %d", q.job),
				"the savepoint requested at %v neither completed nor failed by the end of the run", q.at)
		}
	}
}
