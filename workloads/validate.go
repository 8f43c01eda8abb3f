package workloads

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ckptsim/ckptsim/core/env"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/core/variant"
)

// Limits on scenario values.
const (
	MaxPipelines = 2000
	MaxJobs      = 100
	MaxTasks     = 64
)

func (s *Scenario) validate() error {
	checks := []func() error{s.validateName, s.validateCluster, s.validateCheckpoint, s.validateScheduler,
		s.validateVariants, s.validateWorkload, s.validateFaults, s.validateBuggify, s.validateRun, s.validateMemory}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func (s *Scenario) validateName() error {
	if s.Name == "" {
		return s.errorf("$.name", "required")
	}
	return nil
}

func (s *Scenario) intRange(path string, v, lo, hi int) error {
	if v < lo || v > hi {
		return s.errorf(path, "%d out of range [%d, %d]", v, lo, hi)
	}
	return nil
}

func (s *Scenario) validateCluster() error {
	c := s.Cluster
	if err := s.intRange("$.cluster.jobs", c.Jobs, 1, MaxJobs); err != nil {
		return err
	}
	if err := s.intRange("$.cluster.pipelines", c.Pipelines, 1, MaxPipelines); err != nil {
		return err
	}
	if err := s.intRange("$.cluster.tasks", c.Tasks, 1, MaxTasks); err != nil {
		return err
	}
	if err := s.intRange("$.cluster.starting_tasks", c.StartingTasks, 0, c.Tasks); err != nil {
		return err
	}
	if s.Workload.IdleAfter != (Dist{}) && (c.StartingTasks == 0 || c.StartingTasks == c.Tasks) {
		return s.errorf("$.cluster.starting_tasks", "workload.idle_after needs non-starting tasks: set starting_tasks between 1 and tasks-1")
	}
	if err := s.intRange("$.cluster.cores", c.Cores, 0, 1024); err != nil {
		return err
	}
	if err := s.duration("$.cluster.executor_keep_alive", c.ExecutorKeepAlive, false, Dur(1_000_000)); err != nil {
		return err
	}
	if c.Storage != "" && c.Storage != "memory" && c.Storage != "file" {
		return s.errorf("$.cluster.storage", "%q: want memory or file", c.Storage)
	}
	if err := s.duration("$.cluster.legacy_until", c.LegacyUntil, false, Dur(1_000_000)); err != nil {
		return err
	}
	if c.LegacyUntil.D > 0 && c.Storage != "file" {
		return s.errorf("$.cluster.legacy_until", "needs storage: file (legacy files are files)")
	}
	if err := s.intRange("$.cluster.executor_max", c.ExecutorMax, 0, 10000); err != nil {
		return err
	}
	return s.intRange("$.cluster.executor_core", c.ExecutorCore, 0, 10000)
}

// duration checks a duration field: parsed, and within [lo, hi] when set
// (required: must be set).
func (s *Scenario) duration(path string, d Duration, required bool, lo Duration) error {
	if d.err != nil {
		return s.errorf(path, "invalid duration %q: %v", d.Raw, d.err)
	}
	if d.Raw == "" {
		if required {
			return s.errorf(path, "required")
		}
		return nil
	}
	if d.D < lo.D {
		return s.errorf(path, "%v is below the minimum %v", d.D, lo.D)
	}
	return nil
}

func (s *Scenario) validateCheckpoint() error {
	c := s.Checkpoint
	ten := Dur(10_000_000) // 10 ms: MINIMAL_CHECKPOINT_TIME
	if err := s.duration("$.checkpoint.interval", c.Interval, true, ten); err != nil {
		return err
	}
	if err := s.duration("$.checkpoint.timeout", c.Timeout, false, ten); err != nil {
		return err
	}
	if err := s.duration("$.checkpoint.schema_timeout", c.SchemaTimeout, false, ten); err != nil {
		return err
	}
	if err := s.duration("$.checkpoint.min_pause", c.MinPause, false, Dur(0)); err != nil {
		return err
	}
	return s.intRange("$.checkpoint.max_retained", c.MaxRetained, 0, 10000)
}

func (s *Scenario) validateScheduler() error {
	if s.Scheduler.Design != "" {
		if _, err := sched.ParseDesign(s.Scheduler.Design); err != nil {
			return s.errorf("$.scheduler.design", "%v", err)
		}
	}
	if err := s.duration("$.scheduler.timer_lead", s.Scheduler.TimerLead, false, Dur(0)); err != nil {
		return err
	}
	if err := s.duration("$.scheduler.keep_alive", s.Scheduler.KeepAlive, false, Dur(1_000_000)); err != nil {
		return err
	}
	if s.Scheduler.TimerLead.D > 1e9 {
		return s.errorf("$.scheduler.timer_lead", "%v is above the maximum 1s", s.Scheduler.TimerLead.D)
	}
	return s.intRange("$.scheduler.dispatch_threads", s.Scheduler.DispatchThreads, 0, 4096)
}

func (s *Scenario) validateVariants() error {
	keys := make([]string, 0, len(s.Variants))
	for k := range s.Variants {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := CheckVariant(k, s.Variants[k]); err != nil {
			return s.errorf("$.variants."+k, "%v", err)
		}
	}
	return nil
}

// CheckVariant validates one key=value of --variant or a scenario's
// variants map (core/variant holds the registry).
func CheckVariant(key, value string) error { return variant.Check(key, value) }

// VariantKeys lists every variant key with its values, default first.
func VariantKeys() []string { return variant.Listing() }

func (s *Scenario) dist(path string, d Dist) error {
	if !slices.Contains([]string{"", "fixed", "uniform", "exp"}, d.Kind) {
		return s.errorf(path+".kind", "unknown distribution %q (want fixed, uniform or exp)", d.Kind)
	}
	for _, f := range []struct {
		name string
		d    Duration
	}{{"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}, {"step", d.Step}} {
		if err := s.duration(path+"."+f.name, f.d, false, Dur(0)); err != nil {
			return err
		}
	}
	if d.Kind == "uniform" && d.Max.D < d.Min.D {
		return s.errorf(path+".max", "max %v below min %v", d.Max.D, d.Min.D)
	}
	return nil
}

func (s *Scenario) prob(path string, p float64) error {
	if p < 0 || p > 1 {
		return s.errorf(path, "probability %v out of range [0, 1]", p)
	}
	return nil
}

func (s *Scenario) validateWorkload() error {
	w := s.Workload
	for _, d := range []struct {
		path string
		d    Dist
	}{{"ack_latency", w.AckLatency}, {"dispatch_latency", w.DispatchLatency}, {"notify_latency", w.NotifyLatency},
		{"status_latency", w.StatusLatency}, {"storage_latency", w.StorageLatency}, {"restart_delay", w.RestartDelay},
		{"body_slowness", w.BodySlowness}, {"idle_after", w.IdleAfter}, {"finish_after", w.FinishAfter}} {
		if err := s.dist("$.workload."+d.path, d.d); err != nil {
			return err
		}
	}
	if err := s.intRange("$.workload.partitions", w.Partitions, 0, 1024); err != nil {
		return err
	}
	if w.BatchRate < 0 {
		return s.errorf("$.workload.batch_rate", "negative rate %v", w.BatchRate)
	}
	if err := s.prob("$.workload.sink_fanout", w.SinkFanout); err != nil {
		return err
	}
	return s.prob("$.workload.sink_failure", w.SinkFailure)
}

func (s *Scenario) schedule(path string, sc Schedule) error {
	for i, d := range sc.At {
		if err := s.duration(fmt.Sprintf("%s.at[%d]", path, i), d, false, Dur(0)); err != nil {
			return err
		}
	}
	if err := s.duration(path+".every", sc.Every, false, Dur(1_000_000)); err != nil {
		return err
	}
	if err := s.duration(path+".for", sc.For, false, Dur(0)); err != nil {
		return err
	}
	if sc.PerHour < 0 {
		return s.errorf(path+".per_hour", "negative rate %v", sc.PerHour)
	}
	return nil
}

func (s *Scenario) validateFaults() error {
	for _, k := range faultKinds {
		if err := k.validate(s); err != nil {
			return err
		}
	}
	if err := s.validateGrace(); err != nil {
		return err
	}
	return s.validateRedeploy()
}

// validateGrace refuses a grace where no graceful step-down waits for it:
// on a step-down without graceful: true, or on another schedule kind.
func (s *Scenario) validateGrace() error {
	for _, k := range faultKinds {
		if k.Shape != ShapeSchedule || k.Field == "redeploy" { // redeploy refuses every option of its own
			continue
		}
		sc := k.sched(&s.Faults)
		if sc.Grace.Raw == "" {
			continue
		}
		path := "$.faults." + k.Field + ".grace"
		if k.Field != "step_down" {
			return s.errorf(path, "not an option of %s (only of step_down, with graceful: true)", k.Field)
		}
		if !sc.Graceful {
			return s.errorf(path, "only with graceful: true (it bounds the graceful step-down's wait for the executor's threads)")
		}
		return s.duration(path, sc.Grace, false, Dur(1))
	}
	return nil
}

// validateRedeploy refuses what a redeploy does not take: the options of
// other schedule kinds, and tasks that close or finish on their own (a
// closed task is not redeployed).
func (s *Scenario) validateRedeploy() error {
	r := s.Faults.Redeploy
	for _, o := range []struct {
		field string
		set   bool
	}{{"for", r.For.D > 0 || r.For.Raw != ""}, {"keep_coordinators", r.KeepCoordinators}, {"graceful", r.Graceful}, {"grace", r.Grace.Raw != ""}, {"whole_job", r.WholeJob}} {
		if o.set {
			return s.errorf("$.faults.redeploy."+o.field, "not an option of redeploy (it redeploys one pipeline, at once)")
		}
	}
	if !r.On() {
		return nil
	}
	if s.Workload.IdleAfter != (Dist{}) || s.Workload.FinishAfter != (Dist{}) {
		return s.errorf("$.faults.redeploy", "redeploy needs tasks that stay open: not with workload.idle_after or workload.finish_after")
	}
	if s.Faults.Failover.On() && s.Faults.Failover.WholeJob {
		// core's whole-job restore (Manager.Restore) restores every
		// pipeline as started; the harness models a pipeline restored
		// mid-redeploy as not started (Cluster.RestorePipeline), which
		// only the per-pipeline restore can do.
		return s.errorf("$.faults.failover.whole_job", "not with faults.redeploy: the whole-job restore restores a redeploying pipeline as started")
	}
	return nil
}

func (s *Scenario) validateRun() error {
	r := s.Run
	if err := s.duration("$.run.duration", r.Duration, true, Dur(1_000_000)); err != nil {
		return err
	}
	if err := s.duration("$.run.heal", r.Heal, false, Dur(0)); err != nil {
		return err
	}
	if err := s.validateFaultWindow(); err != nil {
		return err
	}
	if r.MaxSteps < 0 {
		return s.errorf("$.run.max_steps", "negative step budget %d", r.MaxSteps)
	}
	if r.Strategy != "" && r.Strategy != "random" && r.Strategy != "pct" {
		return s.errorf("$.run.strategy", "unknown strategy %q (want random or pct)", r.Strategy)
	}
	if err := s.intRange("$.run.pct_depth", r.PCTDepth, 0, 10); err != nil {
		return err
	}
	if err := s.intRange("$.run.cancel.jobs", r.Cancel.Jobs, 0, s.Cluster.Jobs); err != nil {
		return err
	}
	if err := s.duration("$.run.cancel.at", r.Cancel.At, r.Cancel.Jobs > 0, Dur(0)); err != nil {
		return err
	}
	if end := r.Duration.D + s.heal(); r.Cancel.Jobs > 0 && r.Cancel.At.D >= end {
		return s.errorf("$.run.cancel.at", "%v is not before the end of the run (%v)", r.Cancel.At.D, end)
	}
	if r.Cancel.AtFailure && r.Cancel.Jobs == 0 {
		return s.errorf("$.run.cancel.at_failure", "needs run.cancel.jobs: no job is canceled")
	}
	if r.Cancel.AtFailure && s.Faults.TaskError <= 0 {
		return s.errorf("$.run.cancel.at_failure", "needs faults.task_error: the cancel waits for a task's error report")
	}
	if r.CloseAtFiring && r.Cancel.Jobs == s.Cluster.Jobs {
		return s.errorf("$.run.close_at_firing", "not with every job cancelled (run.cancel.jobs %d): no lease task is left to fire", r.Cancel.Jobs)
	}
	if err := s.duration("$.checks.liveness_within", s.Checks.LivenessWithin, false, Dur(0)); err != nil {
		return err
	}
	return s.duration("$.checks.max_delay", s.Checks.MaxDelay, false, Dur(0))
}

// validateFaultWindow refuses a scheduled fault time at or after the end
// of the fault window, run.duration: the injector would drop it (times in
// faults.go), so the fault the file names would never happen.
func (s *Scenario) validateFaultWindow() error {
	end := s.Run.Duration.D
	for _, k := range faultKinds {
		if k.Shape != ShapeSchedule {
			continue
		}
		for i, at := range k.sched(&s.Faults).At {
			if at.D >= end {
				return s.errorf(fmt.Sprintf("$.faults.%s.at[%d]", k.Field, i),
					"%v is not before the end of the fault window (run.duration %v): it would never be injected", at.D, end)
			}
		}
	}
	return nil
}

func (s *Scenario) validateBuggify() error {
	b := s.Buggify
	if b == nil {
		return nil
	}
	if err := s.prob("$.buggify.site_on", b.SiteOn); err != nil {
		return err
	}
	if err := s.prob("$.buggify.fire", b.Fire); err != nil {
		return err
	}
	for _, name := range slices.Sorted(maps.Keys(b.Sites)) {
		if _, ok := env.ParseSite(name); !ok {
			return s.errorf("$.buggify.sites."+name, "unknown site %q (sites: %s)", name, siteList())
		}
		if err := s.prob("$.buggify.sites."+name, b.Sites[name]); err != nil {
			return err
		}
	}
	return nil
}

func siteList() string { return strings.Join(SiteNames(), ", ") }
