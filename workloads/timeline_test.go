package workloads

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ckptsim/ckptsim/workloads/timeline"
)

// embeddedData reads the data model back from a timeline page.
func embeddedData(t *testing.T, path string) *timeline.Data {
	t.Helper()
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="timeline-data">(.*?)</script>`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("%s: no embedded data", path)
	}
	var d timeline.Data
	if err := json.Unmarshal(m[1], &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

// TestTimelineOfFailingSeed runs h1-stale-expiry with expiry-fence=none
// until a seed fails generation-justified on one generation (the check
// that judges H1 from boundary observations; the search allows 12 seeds),
// takes the pipeline, time and generation from the verdict's own
// violation line, and reads the
// seed's timeline page back: written into the seed's artefacts, that
// pipeline's lane first with the check where it fired, the expiry that
// broke the fence on that lane at that instant inside the generation it
// failed, the failover faults on its job, barriers and acks on its
// checkpoints, trigger and watchdog hand-offs, its porcupine operations
// with the illegal ones marked, and a link to the porcupine page that
// exists.
func TestTimelineOfFailingSeed(t *testing.T) {
	s, err := Lookup("h1-stale-expiry")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	line := regexp.MustCompile(`^(\S+) job (\d+) pipeline (\d+): generation-justified: failure notification of generation (\d+) `)
	var out Outcome
	var m []string
	for seed := uint64(0); seed < 12 && m == nil; seed++ {
		out = Run(s, Options{Seed: seed, Variants: map[string]string{"expiry-fence": "none"}, ArtifactDir: dir})
		for _, v := range out.Violations {
			if m = line.FindStringSubmatch(v); m != nil {
				break
			}
		}
	}
	if m == nil {
		t.Fatal("no seed of 0-11 failed generation-justified on one generation")
	}
	at, _ := time.ParseDuration(m[1])
	job, _ := strconv.ParseInt(m[2], 10, 64)
	pipe, _ := strconv.Atoi(m[3])
	gen := "generation " + m[4]
	t.Logf("seed %d: %s", out.Seed, m[0])
	path := filepath.Join(dir, fmt.Sprintf("h1-stale-expiry-seed-%d", out.Seed), TimelineFile)
	if !slices.Contains(out.Artifacts, path) {
		t.Fatalf("artifacts %v do not list %s", out.Artifacts, path)
	}
	d := embeddedData(t, path)
	first := d.Lanes()[0]
	if first.Job != job || first.Pipeline != pipe || !first.Failing {
		t.Fatalf("first lane job %d pipeline %d failing %v, want job %d pipeline %d", first.Job, first.Pipeline, first.Failing, job, pipe)
	}
	for _, id := range out.Checks { // the page names every check that fired, by the verdict's ids
		if !slices.ContainsFunc(d.Checks, func(c timeline.Check) bool { return c.ID == id }) {
			t.Errorf("check %s fired but is not on the page (page: %+v)", id, d.Checks)
		}
	}
	var fence *timeline.Check
	for i, c := range d.Checks {
		if c.ID == "generation-justified" && c.Job == job && c.Pipeline == pipe && time.Duration(c.AtNs) == at {
			fence = &d.Checks[i] // the finding the matched line reports (a run may fire the check more than once)
		}
	}
	if fence == nil || fence.Job != job || fence.Pipeline != pipe || time.Duration(fence.AtNs) != at {
		t.Fatalf("checks %+v, want generation-justified on job %d pipeline %d at %v", d.Checks, job, pipe, at)
	}
	expiryAt := false
	for _, m := range first.Marks {
		expiryAt = expiryAt || m.Kind == timeline.Expiry && m.AtNs == fence.AtNs
	}
	if !expiryAt {
		t.Error("no expiry mark on the failing lane at the instant the fence check fired")
	}
	inGen := false
	for _, g := range first.Generations {
		inGen = inGen || g.Label == gen && g.StartNs <= fence.AtNs && fence.AtNs <= g.EndNs
	}
	if !inGen {
		t.Errorf("the check at %v is not inside %s on the failing lane", at, gen)
	}
	if d.Zoom.StartNs > fence.AtNs || d.Zoom.EndNs < fence.AtNs {
		t.Errorf("zoom %+v does not hold the check at %d", d.Zoom, fence.AtNs)
	}
	faults := 0
	for _, m := range d.Jobs[job].Marks {
		if m.Kind == timeline.Fault {
			faults++
		}
	}
	if faults == 0 {
		t.Errorf("no failover faults on job %d", job)
	}
	acked := 0
	for _, c := range first.Checkpoints {
		if c.Outcome == timeline.Stored && len(c.Barriers) == 2 && len(c.Acks) == 2 {
			acked++
		}
	}
	if acked == 0 {
		t.Error("no stored checkpoint with its two barriers and two acks")
	}
	kinds := map[string]int{}
	for _, h := range first.Handoffs {
		kinds[h.Kind]++
	}
	if kinds["trigger"] == 0 || kinds["watchdog"] == 0 || len(kinds) != 2 {
		t.Errorf("hand-offs on the failing lane by kind %v, want triggers and watchdogs only", kinds)
	}
	if !slices.ContainsFunc(out.Checks, func(id string) bool { return strings.HasPrefix(id, "model-") }) {
		// Since the generation checks moved to the harness's boundary
		// observations, H1 fires generation-justified (and
		// one-failure-per-generation), not always the porcupine model: there is no porcupine page to link.
		if len(d.Links) != 0 {
			t.Errorf("porcupine links %+v without a failing model", d.Links)
		}
		return
	}
	illegal := 0
	for _, o := range first.Ops {
		if o.Illegal {
			illegal++
		}
	}
	if illegal == 0 {
		t.Error("no operation of the illegal generation partition on the failing lane")
	}
	if len(d.Links) != 1 {
		t.Fatalf("porcupine links %+v, want one", d.Links)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), d.Links[0].Href)); err != nil {
		t.Errorf("porcupine link does not resolve: %v", err)
	}
	for _, l := range d.Lanes()[1:] {
		if l.Failing || l.Summary == nil || len(l.Checkpoints) != 0 {
			t.Fatalf("lane %d/%d: want collapsed to its summary", l.Job, l.Pipeline)
		}
	}
}

// TestTimelineOnlyWhenAsked: a passing seed writes no page into the
// artefacts, but Options.Timeline writes one whatever the verdict.
func TestTimelineOnlyWhenAsked(t *testing.T) {
	s, err := Lookup("smoke")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := Run(s, Options{Seed: 1, ArtifactDir: dir})
	if out.Verdict != Pass || len(out.Artifacts) != 0 {
		t.Fatalf("smoke seed 1: %s, artifacts %v; want a pass and none", out.Verdict, out.Artifacts)
	}
	path := filepath.Join(dir, "asked.html")
	out = Run(s, Options{Seed: 1, Timeline: path})
	if !slices.Equal(out.Artifacts, []string{path}) {
		t.Fatalf("artifacts %v, want %s", out.Artifacts, path)
	}
	d := embeddedData(t, path)
	if d.Verdict != "pass" || len(d.Checks) != 0 || len(d.Jobs) == 0 {
		t.Errorf("page of a passing seed: verdict %s, %d checks, %d jobs", d.Verdict, len(d.Checks), len(d.Jobs))
	}
	if l := d.Lanes()[0]; l.Job != 0 || l.Pipeline != 0 || !l.Failing || len(l.Checkpoints) == 0 {
		t.Errorf("a passing seed's page opens lane %d/%d (open %v, %d checkpoints), want 0/0 drawn in full", l.Job, l.Pipeline, l.Failing, len(l.Checkpoints))
	}
}

// TestSubject places the harness's notes and the checks' subjects on their
// pipeline, job or the member.
func TestSubject(t *testing.T) {
	for _, c := range []struct {
		s    string
		j    int64
		p    int
		note string
	}{
		{"fault: storage write fails job 1 pipeline 12 id 7", 1, 12, "pipeline"},
		{"fault: task 0-3-1 drops ack of 9", 0, 3, "task job-pipeline-task"},
		{"fault: master failover of job 2", 2, -1, "job"},
		{"fault: savepoint of job 0", 0, -1, "job"},
		{"fault: master step-down", -1, -1, "member"},
		{"dispatch pool", -1, -1, "member"},
		{"job 3 pipeline 0", 3, 0, "an invariant's subject"},
	} {
		if j, p := subject(c.s); j != c.j || p != c.p {
			t.Errorf("subject(%q) = %d, %d; want %d, %d (%s)", c.s, j, p, c.j, c.p, c.note)
		}
	}
}
