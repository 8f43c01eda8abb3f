package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

const sec = int64(time.Second)

// sample builds a run of jobs x pipes lanes with one failing lane (job 1,
// pipeline 7) whose check fired at 53 s.
func sample(jobs, pipes int) *Data {
	d := &Data{Scenario: "h1-stale-expiry", Seed: 4, Variants: "expiry-fence=none", Verdict: "safety",
		Replay: "go run ./cmd/simrun replay --scenario h1-stale-expiry --seed 4", EndNs: 180 * sec, HealNs: 120 * sec,
		Checks: []Check{{ID: "generation-justified", Message: "CHECKPOINT_EXPIRED armed in generation 2 failed generation 3",
			AtNs: 53 * sec, Job: 1, Pipeline: 7}},
		Zoom:   Window{37 * sec, 57 * sec},
		Close:  Window{52 * sec, 53*sec + sec/4},
		Member: []Mark{{AtNs: 120 * sec, Kind: Heal, Label: "heal: faults off"}},
		Links:  []Link{{Model: "generation", Partition: "pipeline 17", Href: "generation-pipeline-17.html", Job: 1, Pipeline: 7}}}
	for j := range jobs {
		job := Job{Job: int64(j), Marks: []Mark{{AtNs: 50 * sec, Kind: Fault, Label: fmt.Sprintf("fault: master failover of job %d", j)}}}
		for p := range pipes {
			l := Lane{Job: int64(j), Pipeline: p, Failing: j == 1 && p == 7,
				Generations: []Span{{0, 50 * sec, "generation 1"}, {50 * sec, 52 * sec, "generation 2"}, {52 * sec, 180 * sec, "generation 3"}}}
			for k := int64(0); k < 80; k++ {
				c := Checkpoint{ID: k + 1, Type: "CHECKPOINT_TYPE", Gen: 1, TriggerNs: 2 * k * sec, EndNs: 2*k*sec + sec, Outcome: Stored,
					Barriers: []int64{2*k*sec + 1e6, 2*k*sec + 2e6}, Acks: []int64{2*k*sec + 5e8}}
				if k%3 == 0 {
					c.Outcome, c.Reason = Aborted, "CHECKPOINT_EXPIRED"
				}
				l.Checkpoints = append(l.Checkpoints, c)
				l.Handoffs = append(l.Handoffs, Handoff{DueNs: 2 * k * sec, FiredNs: 2 * k * sec, StartedNs: 2*k*sec + 1000, Thread: "dispatch-1"})
			}
			l.Marks = []Mark{{AtNs: 50 * sec, Kind: Restore, Label: "restored: generation 2"}, {AtNs: 51 * sec, Kind: Watchdog, Label: "expiry starts"},
				{AtNs: 53 * sec, Kind: Expiry, Label: "CHECKPOINT_EXPIRED armed in generation 2 failed generation 3"}}
			if l.Failing {
				l.Ops = []Op{{Model: "generation", Key: "pipeline", Actor: "effect-17-3", CallNs: 53 * sec, ReturnNs: 53 * sec, Text: "expired -> failed g3", Illegal: true},
					{Model: "generation", Key: "pipeline", Actor: "restore-17", CallNs: 50 * sec, ReturnNs: 50 * sec, Text: "restore g2"},
					{Model: "register", Key: "pipeline", Actor: "complete-17", CallNs: 3 * sec, ReturnNs: -1, Text: "complete #2"}}
			}
			job.Pipelines = append(job.Pipelines, l)
		}
		d.Jobs = append(d.Jobs, job)
	}
	return d
}

func render(t *testing.T, d *Data) (string, *html.Node) {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, d); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), doc
}

func attr(n *html.Node, k string) string {
	for _, a := range n.Attr {
		if a.Key == k {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	return n.Type == html.ElementNode && strings.Contains(" "+attr(n, "class")+" ", " "+c+" ")
}

// all returns the elements under n matching f, in document order.
func all(n *html.Node, f func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && f(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func text(n *html.Node) string {
	var b strings.Builder
	for _, t := range all(n, func(*html.Node) bool { return true }) {
		for c := t.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
	}
	return b.String()
}

// TestPageAt500Pipelines checks the page of 500 pipelines: the failing
// lane first and open, every other lane collapsed, the check marked at its
// virtual time on every drawing of the failing lane, the operations and
// the porcupine link below, no network reference, and a bounded size.
func TestPageAt500Pipelines(t *testing.T) {
	d := sample(2, 250)
	page, doc := render(t, d)
	if len(page) > 4<<20 {
		t.Errorf("page of 500 pipelines is %d bytes, want at most 4 MiB", len(page))
	}
	lanes := all(doc, func(n *html.Node) bool { return hasClass(n, "lane") })
	if len(lanes) != 500 {
		t.Fatalf("%d lanes, want 500", len(lanes))
	}
	first := lanes[0]
	if first.Data != "section" || !hasClass(first, "failing") || attr(first, "id") != "lane-1-7" {
		t.Fatalf("first lane is <%s class=%q id=%q>, want the failing section lane-1-7", first.Data, attr(first, "class"), attr(first, "id"))
	}
	for _, l := range lanes[1:] {
		if l.Data != "details" || attr(l, "open") != "" || hasClass(l, "failing") {
			t.Fatalf("lane %s is <%s class=%q>, want a collapsed <details>", attr(l, "id"), l.Data, attr(l, "class"))
		}
	}
	if got := attr(lanes[1], "id"); got != "lane-0-0" {
		t.Errorf("first collapsed lane %s, want lane-0-0 (job, pipeline order)", got)
	}
	svgs := all(first, func(n *html.Node) bool { return n.Data == "svg" })
	if len(svgs) != 3 {
		t.Fatalf("failing lane has %d drawings, want the whole run, the zoom and the close-up", len(svgs))
	}
	for _, svg := range svgs {
		start, _ := strconv.ParseInt(attr(svg, "data-start-ns"), 10, 64)
		end, _ := strconv.ParseInt(attr(svg, "data-end-ns"), 10, 64)
		marks := all(svg, func(n *html.Node) bool { return hasClass(n, "check-mark") })
		if len(marks) != 1 || attr(marks[0], "data-at-ns") != strconv.FormatInt(53*sec, 10) {
			t.Fatalf("drawing %s: %d check marks, want one at 53s", attr(svg, "class"), len(marks))
		}
		line := all(marks[0], func(n *html.Node) bool { return n.Data == "line" })[0]
		x, _ := strconv.ParseFloat(attr(line, "x1"), 64)
		want := labelW + float64(53*sec-start)*plotW/float64(end-start)
		if math.Abs(x-want) > 0.06 {
			t.Errorf("drawing %s: check drawn at x=%v, want %v (53s on [%d, %d])", attr(svg, "class"), x, want, start, end)
		}
		if !strings.Contains(text(marks[0]), "generation-justified") {
			t.Errorf("check mark does not name its check: %q", text(marks[0]))
		}
	}
	full := svgs[0]
	rows := all(full, func(n *html.Node) bool { return hasClass(n, "row") })
	var names []string
	for _, r := range rows {
		names = append(names, attr(r, "data-row"))
	}
	wantRows := "job 1 / member|generations|checkpoints|faults|restores, stops|watchdog → effect|scheduler hand-offs|generation pipeline|register pipeline"
	if got := strings.Join(names, "|"); got != wantRows {
		t.Errorf("rows of the failing lane:\n got %s\nwant %s", got, wantRows)
	}
	if n := len(all(full, func(n *html.Node) bool { return hasClass(n, "cp") })); n != 80 {
		t.Errorf("%d checkpoints drawn, want 80", n)
	}
	if n := len(all(full, func(n *html.Node) bool { return hasClass(n, "aborted") })); n != 27 {
		t.Errorf("%d aborted checkpoints drawn, want 27", n)
	}
	if n := len(all(full, func(n *html.Node) bool { return hasClass(n, "barrier") })); n != 160 {
		t.Errorf("%d barriers drawn, want 160", n)
	}
	if n := len(all(full, func(n *html.Node) bool { return hasClass(n, "illegal") })); n != 1 {
		t.Errorf("%d illegal operations drawn, want 1", n)
	}
	if n := len(all(full, func(n *html.Node) bool { return hasClass(n, "cut") })); n != 1 {
		t.Errorf("%d cut operations drawn, want 1", n)
	}
	links := all(doc, func(n *html.Node) bool { return hasClass(n, "porcupine") })
	if len(links) != 2 || attr(links[0], "href") != "generation-pipeline-17.html" || attr(links[1], "href") != "generation-pipeline-17.html" {
		t.Errorf("%d porcupine links, want two to generation-pipeline-17.html (the header's, the failing lane's)", len(links))
	}
	if in := all(first, func(n *html.Node) bool { return hasClass(n, "porcupine") }); len(in) != 1 {
		t.Errorf("%d porcupine links in the failing lane, want 1 below its operations", len(in))
	}
	// Self-contained: no external resource of any kind.
	for _, n := range all(doc, func(*html.Node) bool { return true }) {
		if n.Data == "link" || attr(n, "src") != "" {
			t.Errorf("external resource <%s>", n.Data)
		}
		if h := attr(n, "href"); strings.Contains(h, "://") {
			t.Errorf("network link %q", h)
		}
	}
}

// TestEmbeddedData checks the JSON data model in the page: the failing
// lane in full, the others reduced to their summary.
func TestEmbeddedData(t *testing.T) {
	d := sample(2, 10)
	d.Jobs[0].Pipelines[3].Failing = true // a second failing lane without a check of its own
	_, doc := render(t, d)
	scripts := all(doc, func(n *html.Node) bool { return n.Data == "script" && attr(n, "id") == "timeline-data" })
	if len(scripts) != 1 {
		t.Fatalf("%d data scripts, want 1", len(scripts))
	}
	var got Data
	if err := json.Unmarshal([]byte(scripts[0].FirstChild.Data), &got); err != nil {
		t.Fatal(err)
	}
	if got.Seed != 4 || got.Verdict != "safety" || len(got.Checks) != 1 || got.Checks[0].AtNs != 53*sec {
		t.Fatalf("header of the embedded data: %+v", got)
	}
	for _, l := range append(got.Jobs[0].Pipelines, got.Jobs[1].Pipelines...) {
		if l.Summary == nil || l.Summary.Stored != 53 || l.Summary.Aborted != 27 || l.Summary.Generations != 3 {
			t.Errorf("lane %d summary %+v, want 53 stored, 27 aborted, 3 generations", l.Pipeline, l.Summary)
		}
		if full := len(l.Checkpoints) > 0; full != l.Failing {
			t.Errorf("lane %d: failing %v but checkpoints kept %v", l.Pipeline, l.Failing, full)
		}
	}
	if d.Jobs[0].Pipelines[0].Summary != nil || len(d.Jobs[0].Pipelines[0].Checkpoints) != 80 {
		t.Error("Render changed the caller's data")
	}
	var order []string
	for _, l := range (&got).Lanes()[:4] {
		order = append(order, fmt.Sprintf("%d/%d", l.Job, l.Pipeline))
	}
	if got := strings.Join(order, " "); got != "1/7 0/3 0/0 0/1" {
		t.Errorf("lane order %s, want 1/7 0/3 0/0 0/1: the lane its check names, the other failing lane, then the rest", got)
	}
}

// TestWriteIsAtomicAndEscapes writes a page whose texts carry markup and
// checks that it parses back to the same text.
func TestWriteIsAtomicAndEscapes(t *testing.T) {
	d := sample(1, 2)
	d.Checks[0].Message = `</script><script>alert(1)</script> & "quoted"`
	path := filepath.Join(t.TempDir(), "sub", "timeline.html")
	if err := Write(path, d); err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".timeline-*"))
	if len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
	_, doc := render(t, d)
	if n := len(all(doc, func(n *html.Node) bool { return n.Data == "script" })); n != 2 {
		t.Errorf("%d scripts, want 2 (data and the page's own): markup in a message escaped its text", n)
	}
	items := all(doc, func(n *html.Node) bool { return hasClass(n, "check") })
	if len(items) != 1 || !strings.Contains(text(items[0]), d.Checks[0].Message) {
		t.Errorf("check text not kept verbatim: %q", text(items[0]))
	}
}

// TestLegendAndCause: the legend is one line per group, and the whole
// run's drawing of the failing lane writes out the check's cause below
// its axis: the check, its time and lane, the claim and each observation
// its message cites on a line of its own; the closer drawings do not.
func TestLegendAndCause(t *testing.T) {
	d := sample(2, 10)
	d.Checks[0].Message = "failure notification of generation 3 has no cause in it: no fault injected into it; recent causes of other generations: #57 of generation 2, triggered at 50s"
	_, doc := render(t, d)
	legend := all(doc, func(n *html.Node) bool { return hasClass(n, "legend") })
	if len(legend) != 1 {
		t.Fatalf("%d legends", len(legend))
	}
	var groups []string
	for c := legend[0].FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "div" {
			groups = append(groups, strings.Fields(text(c))[0])
		}
	}
	if want := "checkpoints faults watchdogs hand-offs checks"; strings.Join(groups, " ") != want {
		t.Errorf("legend groups %q, want %q", groups, want)
	}
	causes := all(doc, func(n *html.Node) bool { return hasClass(n, "cause") })
	if len(causes) != 1 {
		t.Fatalf("%d causes written out, want 1 (the whole run's drawing only)", len(causes))
	}
	var lines []string
	for _, n := range all(causes[0], func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "text" }) {
		lines = append(lines, text(n))
	}
	want := []string{
		"✖ generation-justified at 53s (job 1 pipeline 7): why it fired",
		"failure notification of generation 3 has no cause in it:",
		"· no fault injected into it",
		"· recent causes of other generations: #57 of generation 2, triggered at 50s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("cause lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	for p := causes[0].Parent; p != nil; p = p.Parent {
		if p.Data == "svg" && !hasClass(p, "full") {
			t.Errorf("the cause is drawn in %q, want the whole run's drawing", attr(p, "class"))
		}
	}
}

// TestWrap: wrap breaks at spaces within the width and indents the rest.
func TestWrap(t *testing.T) {
	got := wrap("· a bb ccc dddd eeeee", 10)
	want := []string{"· a bb ccc", "    dddd", "    eeeee"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrap: %q, want %q", got, want)
	}
}
