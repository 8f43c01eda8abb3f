package workloads

import (
	"fmt"
	"slices"
	"sort"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
)

// Limits on scenario values.
const (
	MaxPipelines = 2000
	MaxJobs      = 100
	MaxTasks     = 64
)

func (s *Scenario) validate() error {
	checks := []func() error{s.validateName, s.validateCluster, s.validateCheckpoint, s.validateScheduler,
		s.validateVariants, s.validateWorkload, s.validateFaults, s.validateRun}
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
	if err := s.intRange("$.cluster.cores", c.Cores, 0, 1024); err != nil {
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
// variants map.
func CheckVariant(key, value string) error {
	switch key {
	case "design":
		_, err := sched.ParseDesign(value)
		return err
	case "task-failure":
		if value != "recover" && value != "kill-worker" {
			return fmt.Errorf("unknown value %q for variant task-failure (want recover or kill-worker)", value)
		}
		return nil
	}
	var v coord.Variants
	return v.Set(key, value)
}

// VariantKeys lists every variant key with its values, default first.
func VariantKeys() []string {
	out := []string{"design=shared|per-pipeline|shared-inline", "task-failure=recover|kill-worker"}
	return append(out, coord.VariantKeys()...)
}

func (s *Scenario) dist(path string, d Dist) error {
	if !slices.Contains([]string{"", "fixed", "uniform", "exp"}, d.Kind) {
		return s.errorf(path+".kind", "unknown distribution %q (want fixed, uniform or exp)", d.Kind)
	}
	for _, f := range []struct {
		name string
		d    Duration
	}{{"min", d.Min}, {"max", d.Max}, {"mean", d.Mean}} {
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
		{"body_slowness", w.BodySlowness}} {
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
	f := s.Faults
	for _, sc := range []struct {
		path string
		s    Schedule
	}{{"failover", f.Failover}, {"step_down", f.StepDown}, {"savepoint", f.Savepoint},
		{"schema_change", f.SchemaChange}, {"rebalance", f.Rebalance}, {"master_crash", f.MasterCrash}} {
		if err := s.schedule("$.faults."+sc.path, sc.s); err != nil {
			return err
		}
	}
	for _, p := range []struct {
		path string
		v    float64
	}{{"task_failure", f.TaskFailure}, {"status_retryable", f.StatusRetryable}, {"storage_failure", f.StorageFailure},
		{"id_failure", f.IDFailure}, {"barrier_failure", f.BarrierFailure}, {"notify_failure", f.NotifyFailure},
		{"trigger_throw", f.TriggerThrow}, {"task_error", f.TaskError}} {
		if err := s.prob("$.faults."+p.path, p.v); err != nil {
			return err
		}
	}
	return s.dist("$.faults.status_slow", f.StatusSlow)
}

func (s *Scenario) validateRun() error {
	r := s.Run
	if err := s.duration("$.run.duration", r.Duration, true, Dur(1_000_000)); err != nil {
		return err
	}
	if err := s.duration("$.run.heal", r.Heal, false, Dur(0)); err != nil {
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
	if err := s.duration("$.checks.liveness_within", s.Checks.LivenessWithin, false, Dur(0)); err != nil {
		return err
	}
	return s.duration("$.checks.max_delay", s.Checks.MaxDelay, false, Dur(0))
}
