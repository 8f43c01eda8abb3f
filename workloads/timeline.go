package workloads

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/core/sched"
	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
	"github.com/ckptsim/ckptsim/sim"
	"github.com/ckptsim/ckptsim/workloads/cluster"
	"github.com/ckptsim/ckptsim/workloads/timeline"
)

// TimelineFile is the name of the timeline page in a failing seed's
// artefact directory.
const TimelineFile = "timeline.html"

// tl gathers, during a run, what a timeline page needs beyond the
// coordinator's records: the harness's notes (faults), barriers and
// acknowledgements, scheduler firings, and the checks that fired.
type tl struct {
	notes    []note
	tasks    []cluster.TaskEvent
	firings  []sched.Firing
	checks   []timeline.Check
	verdicts []linearizability.Verdict
}

type note struct {
	at  time.Duration
	msg string
}

func (t *tl) attach(w *sim.World) {
	w.Harness().OnNote(func(at time.Duration, _ string, msg string) { t.notes = append(t.notes, note{at, msg}) })
}

// check records a check that fired; job and pipeline are -1 when it is not
// one pipeline's.
func (t *tl) check(id, msg string, at time.Duration, job int64, pipeline int) {
	t.checks = append(t.checks, timeline.Check{ID: id, Message: msg, AtNs: int64(at), Job: job, Pipeline: pipeline})
}

var (
	rePipe = regexp.MustCompile(`job (\d+) pipeline (\d+)`)
	reTask = regexp.MustCompile(`task (\d+)-(\d+)-\d+`)
	reJob  = regexp.MustCompile(`job (\d+)`)
)

// subject finds "job J pipeline P" in s: (J, P), or (J, -1) for a job, or
// (-1, -1).
func subject(s string) (int64, int) {
	if m := rePipe.FindStringSubmatch(s); m != nil {
		j, _ := strconv.ParseInt(m[1], 10, 64)
		p, _ := strconv.Atoi(m[2])
		return j, p
	}
	if m := reTask.FindStringSubmatch(s); m != nil {
		j, _ := strconv.ParseInt(m[1], 10, 64)
		p, _ := strconv.Atoi(m[2])
		return j, p
	}
	if m := reJob.FindStringSubmatch(s); m != nil {
		j, _ := strconv.ParseInt(m[1], 10, 64)
		return j, -1
	}
	return -1, -1
}

// timelineData builds the page of this run. Lanes named by a check are
// failing and keep every detail; the others keep generations, checkpoints
// and marks only, so that 500 pipelines stay a page, not a dump.
func (r *runner) timelineData(out *Outcome, page string) *timeline.Data {
	jobs, pipes := r.s.Cluster.Jobs, r.s.Cluster.Pipelines
	d := &timeline.Data{Scenario: r.s.Name, Seed: r.opt.Seed, Variants: out.Variants, Verdict: string(out.Verdict),
		Replay: out.Replay, EndNs: out.SimNs, HealNs: int64(r.healAt), Checks: r.tl.checks}
	d.Title = fmt.Sprintf("%s seed %d (%s): %s", r.s.Name, r.opt.Seed, out.Variants, out.Verdict)
	failing := map[cluster.PipelineID]bool{}
	failJob := map[int64]bool{}
	for _, c := range d.Checks {
		if c.Pipeline >= 0 {
			failing[cluster.PipelineID{Job: c.Job, Pipeline: c.Pipeline}] = true
		}
		if c.Job >= 0 {
			failJob[c.Job] = true
		}
	}
	if len(failing) == 0 && jobs > 0 && pipes > 0 {
		// No check names a pipeline (a lock-order cycle, the scheduler's
		// thread bound, a job's savepoints; or none fired): draw the first
		// pipeline of the first job named, or of job 0, open, with the
		// checks over it.
		j := int64(0)
		for _, c := range d.Checks {
			if c.Job >= 0 && c.Job < int64(jobs) {
				j = c.Job
				break
			}
		}
		failing[cluster.PipelineID{Job: j}], failJob[j] = true, true
	}
	lanes := map[cluster.PipelineID]*timeline.Lane{}
	for j := range jobs {
		job := timeline.Job{Job: int64(j)}
		for p := range pipes {
			job.Pipelines = append(job.Pipelines, timeline.Lane{Job: int64(j), Pipeline: p, Failing: failing[cluster.PipelineID{Job: int64(j), Pipeline: p}]})
		}
		d.Jobs = append(d.Jobs, job)
	}
	for j := range d.Jobs {
		for p := range d.Jobs[j].Pipelines {
			l := &d.Jobs[j].Pipelines[p]
			lanes[cluster.PipelineID{Job: l.Job, Pipeline: l.Pipeline}] = l
		}
	}
	lane := func(j int64, p int) *timeline.Lane { return lanes[cluster.PipelineID{Job: j, Pipeline: p}] }
	r.tlRecords(d, lane)
	r.tlNotes(d, lane)
	for _, te := range r.tl.tasks {
		l := lane(te.Job, te.Pipeline)
		if l == nil || !l.Failing {
			continue
		}
		for i := len(l.Checkpoints) - 1; i >= 0; i-- {
			if c := &l.Checkpoints[i]; c.ID == te.ID {
				if te.Ack {
					c.Acks = append(c.Acks, int64(te.At))
				} else {
					c.Barriers = append(c.Barriers, int64(te.At))
				}
				break
			}
		}
	}
	// A trigger is due exactly its delay after the EvTriggerArmed that
	// armed it (coord.scheduleTrigger emits, then schedules, with no
	// scheduling point that moves time between); the lease's only other
	// timer is the checkpoint's timeout watchdog.
	triggerDue := map[[3]int64]bool{}
	for _, rec := range r.c.Recorder.Records() {
		if rec.Kind == coord.EvTriggerArmed {
			triggerDue[[3]int64{rec.Job, int64(rec.Pipeline), int64(rec.At + rec.Delay)}] = true
		}
	}
	for _, f := range r.tl.firings {
		l := lane(f.Job, f.Pipeline)
		if l == nil || !l.Failing {
			continue
		}
		kind := "watchdog"
		if triggerDue[[3]int64{f.Job, int64(f.Pipeline), int64(f.Due.Sub(sim.Epoch))}] {
			kind = "trigger"
		}
		h := timeline.Handoff{Kind: kind, DueNs: int64(f.Due.Sub(sim.Epoch)), FiredNs: int64(f.Fired.Sub(sim.Epoch)), StartedNs: -1, Thread: f.Thread}
		if !f.Skipped {
			h.StartedNs = int64(f.Started.Sub(sim.Epoch))
		}
		l.Handoffs = append(l.Handoffs, h)
	}
	r.tlOps(d, lane, failJob, page)
	if len(d.Checks) > 0 {
		at := d.Checks[0].AtNs
		iv := int64(r.s.Checkpoint.Interval.D)
		if iv <= 0 {
			iv = int64(time.Second)
		}
		d.Zoom = timeline.Window{StartNs: max(0, at-5*iv), EndNs: min(d.EndNs, at+iv)}
		d.Close = timeline.Window{StartNs: max(0, at-iv/2), EndNs: min(d.EndNs, at+iv/8)}
	}
	return d
}

// tlRecords turns the coordinator's records into generations,
// checkpoints and coordinator marks.
func (r *runner) tlRecords(d *timeline.Data, lane func(int64, int) *timeline.Lane) {
	open := map[*timeline.Lane]map[int64]int{} // lane -> checkpoint id -> index
	for _, l := range allLanes(d) {
		l.Generations = []timeline.Span{{StartNs: 0, EndNs: d.EndNs, Label: "generation 1"}}
		open[l] = map[int64]int{}
	}
	gen := func(l *timeline.Lane) uint64 {
		var g uint64
		fmt.Sscanf(l.Generations[len(l.Generations)-1].Label, "generation %d", &g)
		return g
	}
	for _, rec := range r.c.Recorder.Records() {
		l := lane(rec.Job, rec.Pipeline)
		if l == nil {
			continue
		}
		at := int64(rec.At)
		mark := func(kind, format string, args ...any) {
			l.Marks = append(l.Marks, timeline.Mark{AtNs: at, Kind: kind, Label: fmt.Sprintf(format, args...)})
		}
		switch rec.Kind {
		case coord.EvGeneration, coord.EvRestored:
			if rec.Gen > gen(l) {
				l.Generations[len(l.Generations)-1].EndNs = at
				l.Generations = append(l.Generations, timeline.Span{StartNs: at, EndNs: d.EndNs, Label: fmt.Sprintf("generation %d", rec.Gen)})
			}
			if rec.Kind == coord.EvRestored {
				from := "no checkpoint"
				if rec.ID != 0 {
					from = fmt.Sprintf("checkpoint %d", rec.ID)
				}
				mark(timeline.Restore, "restored: generation %d from %s", rec.Gen, from)
			}
		case coord.EvTriggered:
			id := rec.ID
			open[l][id] = len(l.Checkpoints)
			l.Checkpoints = append(l.Checkpoints, timeline.Checkpoint{ID: id, Type: rec.Type.String(), Gen: rec.Gen,
				TriggerNs: at, EndNs: d.EndNs, Outcome: timeline.Open})
		case coord.EvCompleted, coord.EvAborted:
			i, ok := open[l][rec.ID]
			if !ok {
				continue
			}
			delete(open[l], rec.ID)
			c := &l.Checkpoints[i]
			c.EndNs, c.Outcome = at, timeline.Stored
			if rec.Kind == coord.EvAborted {
				c.Outcome, c.Reason = timeline.Aborted, string(rec.Reason)
			}
		case coord.EvEffect:
			mark(timeline.Watchdog, "%s armed in generation %d starts (effect %d)", rec.Reason, rec.ArmedGen, rec.Op)
		case coord.EvGenFailed:
			mark(timeline.Expiry, "%s armed in generation %d failed generation %d (effect %d)", rec.Reason, rec.ArmedGen, rec.Gen, rec.Op)
		case coord.EvStaleDropped:
			mark(timeline.Fenced, "%s armed in generation %d dropped: generation %d is current (effect %d)", rec.Reason, rec.ArmedGen, rec.Gen, rec.Op)
		case coord.EvEffectNoop:
			mark(timeline.Fenced, "%s armed in generation %d did nothing: the generation had ended (effect %d)", rec.Reason, rec.ArmedGen, rec.Op)
		case coord.EvExpiryFallback:
			mark(timeline.Watchdog, "executor rejected the expiry of checkpoint %d; ran inline", rec.ID)
		case coord.EvTriggerStopped:
			mark(timeline.Stop, "trigger path stopped without re-arming: %s", rec.Reason)
		case coord.EvCanceled:
			mark(timeline.Stop, "coordinator cancelled (generation %d)", rec.Gen)
		case coord.EvFinished:
			mark(timeline.Stop, "generation %d finished (%s)", rec.Gen, rec.Type)
		}
	}
}

// tlNotes places the harness's notes: faults on their pipeline, job or
// the member.
func (r *runner) tlNotes(d *timeline.Data, lane func(int64, int) *timeline.Lane) {
	for _, n := range r.tl.notes {
		kind := timeline.Fault
		switch {
		case strings.HasPrefix(n.msg, "heal:"):
			kind = timeline.Heal
		case strings.HasPrefix(n.msg, "fault:"), strings.HasPrefix(n.msg, "buggify:"): // injected: at a boundary, or a rare path inside core
		case strings.HasPrefix(n.msg, "violation:"), strings.HasPrefix(n.msg, "swarm:"):
			continue
		default:
			kind = timeline.Stop // restore errors, savepoint failures: shown, not faults
		}
		m := timeline.Mark{AtNs: int64(n.at), Kind: kind, Label: n.msg}
		j, p := subject(n.msg)
		switch {
		case p >= 0 && lane(j, p) != nil:
			l := lane(j, p)
			l.Marks = append(l.Marks, m)
		case j >= 0 && int(j) < len(d.Jobs):
			d.Jobs[j].Marks = append(d.Jobs[j].Marks, m)
		default:
			d.Member = append(d.Member, m)
		}
	}
}

// tlOps adds the porcupine operations of failing lanes and jobs, and the
// links to the porcupine pages.
func (r *runner) tlOps(d *timeline.Data, lane func(int64, int) *timeline.Lane, failJob map[int64]bool, page string) {
	illegal := map[string]model.Key{}
	for _, v := range r.tl.verdicts {
		if v.Result != linearizability.Illegal {
			continue
		}
		illegal[v.Model] = v.Key
		if v.HTMLPath != "" {
			href := v.HTMLPath
			if rel, err := filepath.Rel(filepath.Dir(page), v.HTMLPath); err == nil {
				href = filepath.ToSlash(rel)
			} else if abs, err := filepath.Abs(v.HTMLPath); err == nil {
				href = "file://" + filepath.ToSlash(abs)
			}
			j, p := r.keyLane(v)
			d.Links = append(d.Links, timeline.Link{Model: v.Model, Partition: v.Partition, Href: href, Job: j, Pipeline: p})
		}
	}
	pipes := r.s.Cluster.Pipelines
	add := func(spec model.Spec, ops []porcupine.Operation) {
		for _, o := range ops {
			k := spec.Key(o.Input)
			bad, isBad := illegal[spec.Name]
			op := timeline.Op{Model: spec.Name, CallNs: o.Call >> 10, ReturnNs: -1,
				Text: spec.Model.DescribeOperation(o.Input, o.Output), Illegal: isBad && bad == k}
			if o.Return != math.MaxInt64 {
				op.ReturnNs = o.Return >> 10
			}
			op.Actor, _ = o.Metadata.(string)
			if spec.Name == model.Savepoints.Name {
				if k.ID >= 0 && k.ID < len(d.Jobs) && failJob[int64(k.ID)] {
					op.Key = fmt.Sprintf("job %d", k.ID)
					d.Jobs[k.ID].Ops = append(d.Jobs[k.ID].Ops, op)
				}
				continue
			}
			if k.ID < 0 || pipes == 0 {
				continue
			}
			l := lane(int64(k.ID/pipes), k.ID%pipes)
			if l == nil || !l.Failing {
				continue
			}
			op.Key = "pipeline"
			if spec.Name == model.Watermark.Name {
				op.Key = fmt.Sprintf("partition %d", k.Sub)
			}
			l.Ops = append(l.Ops, op)
		}
	}
	add(model.Generation, r.h.gen.Operations())
	add(model.Register, r.h.reg.Operations())
	add(model.Savepoints, r.h.sp.Operations())
	if r.wm != nil && r.wm.used {
		add(model.Watermark, r.wm.rec.Operations())
	}
	for _, l := range allLanes(d) {
		slices.SortStableFunc(l.Ops, func(a, b timeline.Op) int { return int(a.CallNs - b.CallNs) })
	}
}

// keyLane maps a model verdict's partition to its job and pipeline
// (histories number pipelines by cluster.PipelineID.Seq; savepoints are
// keyed by job): (-1, -1) when it names neither.
func (r *runner) keyLane(v linearizability.Verdict) (int64, int) {
	switch {
	case v.Model == model.Savepoints.Name:
		return int64(v.Key.ID), -1
	case r.s.Cluster.Pipelines > 0 && v.Key.ID >= 0:
		id := cluster.PipelineAt(v.Key.ID, r.s.Cluster.Pipelines)
		return id.Job, id.Pipeline
	}
	return -1, -1
}

func allLanes(d *timeline.Data) []*timeline.Lane {
	var out []*timeline.Lane
	for j := range d.Jobs {
		for p := range d.Jobs[j].Pipelines {
			out = append(out, &d.Jobs[j].Pipelines[p])
		}
	}
	return out
}

// writeTimeline writes the page when the seed failed and has an artefact
// directory, or always to Options.Timeline.
func (r *runner) writeTimeline(out *Outcome) {
	if r.c == nil {
		return
	}
	var paths []string
	if out.Verdict != Pass && r.opt.ArtifactDir != "" {
		paths = append(paths, filepath.Join(r.artifactDir(), TimelineFile))
	}
	if r.opt.Timeline != "" {
		paths = append(paths, r.opt.Timeline)
	}
	for _, p := range paths {
		if err := timeline.Write(p, r.timelineData(out, p)); err != nil {
			out.IOErrors = append(out.IOErrors, fmt.Sprintf("writing timeline: %v", err))
			continue
		}
		out.Artifacts = append(out.Artifacts, p)
	}
}
