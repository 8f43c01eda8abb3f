package timeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Geometry of the drawings, in CSS pixels.
const (
	labelW = 130  // the row names on the left
	plotW  = 1100 // the time axis
	rowH   = 18
	rowGap = 4
	axisH  = 22
	topH   = 16 // room for check labels above the first row
)

// Write renders d into path atomically (a temporary file renamed over
// path), creating path's directory.
func Write(path string, d *Data) error {
	var b bytes.Buffer
	if err := Render(&b, d); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".timeline-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}

// Render writes the page of d to w.
func Render(w io.Writer, d *Data) error {
	js, err := json.Marshal(d.embedded())
	if err != nil {
		return err
	}
	p := &page{d: d}
	p.head()
	p.summary()
	lanes := d.Lanes()
	nFail := 0
	for _, l := range lanes {
		if !l.Failing {
			break
		}
		nFail++
		p.failing(l)
	}
	p.others(lanes[nFail:])
	// The data model, for tools and tests. "</" cannot appear in JSON
	// strings unescaped by encoding/json (it escapes <, > and &).
	fmt.Fprintf(&p.b, "<script type=\"application/json\" id=\"timeline-data\">%s</script>\n", js)
	p.b.WriteString(script)
	p.b.WriteString("</body>\n</html>\n")
	_, err = io.WriteString(w, p.b.String())
	return err
}

type page struct {
	d *Data
	b strings.Builder
}

func esc(s string) string { return html.EscapeString(s) }

// dur renders virtual ns readably: 1m23.456s.
func dur(ns int64) string {
	d := time.Duration(ns)
	if d >= time.Second {
		d = d.Round(time.Millisecond)
	} else if d >= time.Millisecond {
		d = d.Round(time.Microsecond)
	}
	return d.String()
}

func (p *page) head() {
	d := p.d
	title := d.Title
	if title == "" {
		title = fmt.Sprintf("%s seed %d: %s", d.Scenario, d.Seed, d.Verdict)
	}
	fmt.Fprintf(&p.b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n",
		esc(title), style)
	fmt.Fprintf(&p.b, "<h1>%s</h1>\n", esc(title))
}

func (p *page) summary() {
	d := p.d
	fmt.Fprintf(&p.b, "<dl class=\"meta\"><dt>scenario</dt><dd>%s</dd><dt>seed</dt><dd>%d</dd><dt>variants</dt><dd>%s</dd>"+
		"<dt>verdict</dt><dd class=\"verdict-%s\">%s</dd><dt>virtual time</dt><dd>%s</dd><dt>replay</dt><dd><code>%s</code></dd></dl>\n",
		esc(d.Scenario), d.Seed, esc(d.Variants), esc(d.Verdict), esc(d.Verdict), dur(d.EndNs), esc(d.Replay))
	if len(d.Checks) > 0 {
		p.b.WriteString("<h2>Checks that fired</h2>\n<ol class=\"checks\">\n")
		for i, c := range d.Checks {
			where := "member"
			switch {
			case c.Pipeline >= 0:
				where = fmt.Sprintf("job %d pipeline %d", c.Job, c.Pipeline)
			case c.Job >= 0:
				where = fmt.Sprintf("job %d", c.Job)
			}
			fmt.Fprintf(&p.b, "<li id=\"check-%d\" class=\"check\" data-at-ns=\"%d\"><b>%s</b> at <b>%s</b> (%s): %s</li>\n",
				i, c.AtNs, esc(c.ID), dur(c.AtNs), esc(where), esc(firstLine(c.Message)))
		}
		p.b.WriteString("</ol>\n")
	}
	if len(d.Links) > 0 {
		p.b.WriteString("<p class=\"links\">porcupine: ")
		for i, l := range d.Links {
			if i > 0 {
				p.b.WriteString(" · ")
			}
			fmt.Fprintf(&p.b, "<a class=\"porcupine\" href=\"%s\">%s %s</a>", esc(l.Href), esc(l.Model), esc(l.Partition))
		}
		p.b.WriteString("</p>\n")
	}
	p.b.WriteString(legend)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// failing draws a failing lane open: its whole run, then the zoom window.
func (p *page) failing(l *Lane) {
	d := p.d
	why := "failing"
	if !slices.ContainsFunc(d.Checks, func(c Check) bool { return c.Job == l.Job && c.Pipeline == l.Pipeline }) &&
		!slices.ContainsFunc(d.Checks, func(c Check) bool { return c.Pipeline >= 0 }) {
		why = "no check names a pipeline: the first one, under the checks"
		if len(d.Checks) == 0 {
			why = "no check fired: the first pipeline"
		}
	}
	fmt.Fprintf(&p.b, "<section class=\"lane failing\" id=\"lane-%d-%d\" data-job=\"%d\" data-pipeline=\"%d\">\n<h2>job %d pipeline %d (%s)</h2>\n",
		l.Job, l.Pipeline, l.Job, l.Pipeline, l.Job, l.Pipeline, esc(why))
	fmt.Fprintf(&p.b, "<h3>whole run, 0 to %s</h3>\n", dur(d.EndNs))
	p.svg(l, Window{0, max(d.EndNs, 1)}, true, "full")
	if z := d.Zoom; z.EndNs > z.StartNs {
		fmt.Fprintf(&p.b, "<h3>around the check, %s to %s</h3>\n", dur(z.StartNs), dur(z.EndNs))
		p.svg(l, z, true, "zoom")
	}
	if z := d.Close; z.EndNs > z.StartNs {
		fmt.Fprintf(&p.b, "<h3>just before the check, %s to %s</h3>\n", dur(z.StartNs), dur(z.EndNs))
		p.svg(l, z, true, "close")
	}
	for _, k := range d.Links {
		if k.Job == l.Job && (k.Pipeline == l.Pipeline || k.Pipeline < 0) {
			fmt.Fprintf(&p.b, "<p class=\"links\">the operations above, as porcupine checked them: <a class=\"porcupine\" href=\"%s\">%s %s</a></p>\n",
				esc(k.Href), esc(k.Model), esc(k.Partition))
		}
	}
	p.b.WriteString("</section>\n")
}

// others draws every other lane collapsed.
func (p *page) others(ls []*Lane) {
	if len(ls) == 0 {
		return
	}
	fmt.Fprintf(&p.b, "<h2>Other pipelines (%d)</h2>\n<div class=\"others\">\n", len(ls))
	var ax strings.Builder
	width := labelW + plotW + 20
	fmt.Fprintf(&ax, "<svg class=\"timeline axis-only\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, axisH, width, axisH)
	axis(plot{win: Window{0, max(p.d.EndNs, 1)}, b: &ax}, 0)
	ax.WriteString("</svg>\n")
	p.b.WriteString(ax.String())
	for _, l := range ls {
		s := l.Summarize()
		fmt.Fprintf(&p.b, "<details class=\"lane\" id=\"lane-%d-%d\" data-job=\"%d\" data-pipeline=\"%d\"><summary>%s job %d pipeline %d: %d stored, %d aborted, %d open, %d generations, %d faults</summary>\n",
			l.Job, l.Pipeline, l.Job, l.Pipeline, p.spark(l), l.Job, l.Pipeline, s.Stored, s.Aborted, s.Open, s.Generations, s.Faults)
		p.compact(l)
		p.b.WriteString("</details>\n")
	}
	p.b.WriteString("</div>\n")
}

// plot maps virtual time onto one drawing.
type plot struct {
	win Window
	b   *strings.Builder
}

func (pl plot) x(ns int64) float64 {
	ns = min(max(ns, pl.win.StartNs), pl.win.EndNs)
	return labelW + float64(ns-pl.win.StartNs)*plotW/float64(pl.win.EndNs-pl.win.StartNs)
}

func (pl plot) in(a, b int64) bool { return b >= pl.win.StartNs && a <= pl.win.EndNs }

// row is one named track of a drawing.
type row struct {
	name string
	draw func(pl plot, y float64)
}

// svg draws lane l over win: detail adds the job row, barriers and acks,
// hand-offs and operations.
func (p *page) svg(l *Lane, win Window, detail bool, class string) {
	d := p.d
	var rows []row
	if detail {
		job := d.job(l.Job)
		var jm []Mark
		jm = append(jm, d.Member...)
		if job != nil {
			jm = append(jm, job.Marks...)
		}
		rows = append(rows, row{fmt.Sprintf("job %d / member", l.Job), func(pl plot, y float64) { marks(pl, y, jm) }})
	}
	rows = append(rows,
		row{"generations", func(pl plot, y float64) { generations(pl, y, l.Generations) }},
		row{"checkpoints", func(pl plot, y float64) { checkpoints(pl, y, l.Checkpoints, detail) }},
		row{"faults", func(pl plot, y float64) { marks(pl, y, kinds(l.Marks, Fault)) }},
		row{"restores, stops", func(pl plot, y float64) { marks(pl, y, kinds(l.Marks, Restore, Stop)) }},
		row{"watchdog → effect", func(pl plot, y float64) { marks(pl, y, kinds(l.Marks, Watchdog, Expiry, Fenced)) }},
	)
	if detail {
		rows = append(rows, row{"scheduler hand-offs", func(pl plot, y float64) { handoffs(pl, y, l.Handoffs) }})
		var ops []Op
		if job := d.job(l.Job); job != nil {
			ops = append(ops, job.Ops...)
		}
		ops = append(ops, l.Ops...)
		for _, g := range groupOps(ops) {
			rows = append(rows, row{g[0].Model + " " + g[0].Key, func(pl plot, y float64) { operations(pl, y, g) }})
		}
	}
	var here []int // the checks drawn on this lane
	for i, c := range d.Checks {
		if pl0 := (plot{win: win}); pl0.in(c.AtNs, c.AtNs) && (c.Pipeline < 0 || c.Job == l.Job && c.Pipeline == l.Pipeline) {
			here = append(here, i)
		}
	}
	top := topH + 12*(min(len(here), 4)-1)
	top = max(top, topH)
	plotBottom := top + len(rows)*(rowH+rowGap)
	h := plotBottom + axisH
	width := labelW + plotW + 20
	var causes []cause // the whole run's drawing writes out why each check fired, below its axis
	if detail && class == "full" {
		for _, i := range here {
			c := causeOf(i, d.Checks[i], plot{win: win}.x(d.Checks[i].AtNs), h)
			h += c.height()
			causes = append(causes, c)
		}
	}
	var b strings.Builder
	pl := plot{win: win, b: &b}
	fmt.Fprintf(&b, "<svg class=\"timeline %s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" data-start-ns=\"%d\" data-end-ns=\"%d\">\n",
		class, width, h, width, h, win.StartNs, win.EndNs)
	if d.HealNs > 0 && pl.in(d.HealNs, d.EndNs) {
		fmt.Fprintf(&b, "<rect class=\"healed\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>faults off from %s</title></rect>\n",
			pl.x(d.HealNs), top, pl.x(d.EndNs)-pl.x(d.HealNs), plotBottom-top, dur(d.HealNs))
	}
	for i, r := range rows {
		y := float64(top + i*(rowH+rowGap))
		fmt.Fprintf(&b, "<text class=\"rowname\" x=\"4\" y=\"%.1f\">%s</text>\n", y+rowH-5, esc(r.name))
		fmt.Fprintf(&b, "<line class=\"rowline\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", labelW, labelW+plotW, y+rowH+rowGap/2, y+rowH+rowGap/2)
		fmt.Fprintf(&b, "<g class=\"row\" data-row=\"%s\">\n", esc(r.name))
		r.draw(pl, y)
		b.WriteString("</g>\n")
	}
	axis(pl, float64(plotBottom))
	for k, i := range here {
		c := d.Checks[i]
		x := pl.x(c.AtNs)
		ty := 11 + 12*(k%4)
		tx, anchor := x+3, "start"
		if x > labelW+plotW-220 { // near the right edge: the label reads leftwards
			tx, anchor = x-3, "end"
		}
		fmt.Fprintf(&b, "<g class=\"check-mark\" data-check=\"%d\" data-at-ns=\"%d\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"+
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">✖ %s (%s)</text><title>%s at %s: %s</title></g>\n",
			i, c.AtNs, x, x, ty-9, plotBottom, tx, ty, anchor, esc(c.ID), dur(c.AtNs), esc(c.ID), dur(c.AtNs), esc(c.Message))
	}
	for _, c := range causes {
		c.draw(&b, plotBottom)
	}
	b.WriteString("</svg>\n")
	p.b.WriteString(b.String())
}

// bins is the resolution of a collapsed lane: one cell per bin of the
// run, coloured by the worst that happened in it, so that a lane costs a
// few kilobytes however long the run.
const bins = 275

// compact draws a collapsed lane: generation changes, checkpoint outcomes
// and marks, binned.
func (p *page) compact(l *Lane) {
	end := max(p.d.EndNs, 1)
	cps, mks := laneCells(l, end)
	h := 3*(rowH+rowGap) + 2
	width := labelW + plotW + 20
	var b strings.Builder
	pl := plot{win: Window{0, end}}
	fmt.Fprintf(&b, "<svg class=\"timeline compact\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, h, width, h)
	b.WriteString("<text class=\"rowname\" x=\"4\" y=\"13\">generations</text>")
	var gp strings.Builder
	for _, g := range l.Generations[min(1, len(l.Generations)):] {
		fmt.Fprintf(&gp, "M%.0f 2v14", pl.x(g.StartNs))
	}
	if gp.Len() > 0 {
		fmt.Fprintf(&b, "<path class=\"genchange\" d=\"%s\"/>", gp.String())
	}
	y := rowH + rowGap
	const cell = float64(plotW) / bins
	fmt.Fprintf(&b, "\n<text class=\"rowname\" x=\"4\" y=\"%d\">checkpoints</text>", y+rowH-5)
	runs(&b, cps, cpClass, labelW, cell, y+3, rowH-6)
	y += rowH + rowGap
	fmt.Fprintf(&b, "\n<text class=\"rowname\" x=\"4\" y=\"%d\">events</text>", y+rowH-5)
	runs(&b, mks, markClass, labelW, cell, y+4, rowH-8)
	b.WriteString("\n</svg>\n")
	p.b.WriteString(b.String())
}

// spark is a collapsed lane's one-line strip in its summary: checkpoint
// outcomes, one pixel a bin, so that a column of 500 lanes reads as a map
// of where checkpoints failed.
func (p *page) spark(l *Lane) string {
	cps, _ := laneCells(l, max(p.d.EndNs, 1))
	var b strings.Builder
	fmt.Fprintf(&b, "<svg class=\"spark\" width=\"%d\" height=\"10\" viewBox=\"0 0 %d 10\">", bins, bins)
	runs(&b, cps, cpClass, 0, 1, 1, 8)
	b.WriteString("</svg>")
	return b.String()
}

var (
	cpClass   = []string{"", "cp stored", "cp open", "cp aborted"}
	markClass = []string{"", "mark " + Stop, "mark " + Fenced, "mark " + Restore, "mark " + Watchdog, "mark " + Fault, "mark " + Expiry}
)

// laneCells bins a lane: per bin the worst checkpoint outcome (0 none, 1
// stored, 2 open, 3 aborted) and the most telling mark (markClass order).
func laneCells(l *Lane, end int64) (cps, mks []int) {
	bin := func(ns int64) int { return int(min(max(ns, 0)*bins/end, bins-1)) }
	cps, mks = make([]int, bins), make([]int, bins)
	for _, c := range l.Checkpoints {
		v := map[string]int{Stored: 1, Open: 2, Aborted: 3}[c.Outcome]
		for i := bin(c.TriggerNs); i <= bin(c.EndNs); i++ {
			cps[i] = max(cps[i], v)
		}
	}
	rank := map[string]int{Stop: 1, Fenced: 2, Restore: 3, Watchdog: 4, Fault: 5, Expiry: 6}
	for _, m := range l.Marks {
		i := bin(m.AtNs)
		mks[i] = max(mks[i], rank[m.Kind])
	}
	return cps, mks
}

// runs draws the non-zero runs of equal values in cells, one path per
// value (class[v]).
func runs(b *strings.Builder, cells []int, class []string, x0, cell float64, y, h int) {
	paths := make([]strings.Builder, len(class))
	for i := 0; i < len(cells); {
		k := i
		for k < len(cells) && cells[k] == cells[i] {
			k++
		}
		if v := cells[i]; v != 0 {
			fmt.Fprintf(&paths[v], "M%.0f %dh%.0fv%dh-%.0fz", x0+float64(i)*cell, y, float64(k-i)*cell, h, float64(k-i)*cell)
		}
		i = k
	}
	for v := range paths {
		if paths[v].Len() > 0 {
			fmt.Fprintf(b, "<path class=\"%s\" d=\"%s\"/>", class[v], paths[v].String())
		}
	}
}

func kinds(ms []Mark, ks ...string) []Mark {
	var out []Mark
	for _, m := range ms {
		for _, k := range ks {
			if m.Kind == k {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

func generations(pl plot, y float64, gs []Span) {
	for i, g := range gs {
		if !pl.in(g.StartNs, g.EndNs) {
			continue
		}
		x0, x1 := pl.x(g.StartNs), pl.x(g.EndNs)
		fmt.Fprintf(pl.b, "<rect class=\"gen g%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>%s: %s to %s</title></rect>\n",
			i%2, x0, y, max(x1-x0, 0.5), rowH, esc(g.Label), dur(g.StartNs), dur(g.EndNs))
		if x1-x0 > float64(7*len(g.Label)) {
			fmt.Fprintf(pl.b, "<text class=\"genlabel\" x=\"%.1f\" y=\"%.1f\">%s</text>\n", x0+3, y+rowH-5, esc(g.Label))
		}
	}
}

func checkpoints(pl plot, y float64, cs []Checkpoint, detail bool) {
	for _, c := range cs {
		if !pl.in(c.TriggerNs, c.EndNs) {
			continue
		}
		x0, x1 := pl.x(c.TriggerNs), pl.x(c.EndNs)
		why := c.Outcome
		if c.Reason != "" {
			why += " (" + c.Reason + ")"
		}
		fmt.Fprintf(pl.b, "<rect class=\"cp %s type-%s\" data-id=\"%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>checkpoint %d (%s, generation %d): triggered %s, %s %s</title></rect>\n",
			c.Outcome, esc(strings.ToLower(c.Type)), c.ID, x0, y+3, max(x1-x0, 1), rowH-6, c.ID, esc(c.Type), c.Gen, dur(c.TriggerNs), esc(why), dur(c.EndNs))
		if !detail {
			continue
		}
		for _, t := range c.Barriers {
			if pl.in(t, t) {
				fmt.Fprintf(pl.b, "<line class=\"barrier\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>barrier %d received at %s</title></line>\n",
					pl.x(t), pl.x(t), y, y+rowH/2, c.ID, dur(t))
			}
		}
		for _, t := range c.Acks {
			if pl.in(t, t) {
				fmt.Fprintf(pl.b, "<line class=\"ack\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"><title>ack of %d at %s</title></line>\n",
					pl.x(t), pl.x(t), y+rowH/2, y+rowH, c.ID, dur(t))
			}
		}
	}
}

func marks(pl plot, y float64, ms []Mark) {
	cy := y + rowH/2
	for _, m := range ms {
		if !pl.in(m.AtNs, m.AtNs) {
			continue
		}
		x := pl.x(m.AtNs)
		var shape string
		switch m.Kind {
		case Fault:
			shape = fmt.Sprintf("<path d=\"M%.1f %.1f l5 9 h-10 z\"/>", x, cy-5)
		case Restore:
			shape = fmt.Sprintf("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"/>", x, cy)
		case Watchdog: // top half: the watchdog fires; its effect's end sits below
			shape = fmt.Sprintf("<path d=\"M%.1f %.1f l4 -7 h-8 z\"/>", x, cy)
		case Expiry, Fenced:
			shape = fmt.Sprintf("<path d=\"M%.1f %.1f l4 4 l-4 4 l-4 -4 z\"/>", x, cy)
		case Heal:
			shape = fmt.Sprintf("<rect x=\"%.1f\" y=\"%.1f\" width=\"3\" height=\"%d\"/>", x-1.5, y, rowH)
		default:
			shape = fmt.Sprintf("<path d=\"M%.1f %.1f l5 5 l-5 5 l-5 -5 z\"/>", x, cy-5)
		}
		fmt.Fprintf(pl.b, "<g class=\"mark %s\" data-at-ns=\"%d\">%s<title>%s: %s</title></g>\n", m.Kind, m.AtNs, shape, dur(m.AtNs), esc(m.Label))
	}
}

func handoffs(pl plot, y float64, hs []Handoff) {
	for _, h := range hs {
		end := h.StartedNs
		what := "started on " + h.Thread
		if end < 0 {
			end, what = h.FiredNs, "skipped by "+h.Thread
		}
		if !pl.in(h.DueNs, end) {
			continue
		}
		x0, x1 := pl.x(h.DueNs), pl.x(end)
		kind := h.Kind
		if kind == "" {
			kind = "timer"
		}
		fmt.Fprintf(pl.b, "<g class=\"handoff %s\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"+
			"<title>%s due %s, fired %s, %s at %s (delay %s)</title></g>\n",
			esc(kind), x0, y+4, max(x1-x0, 1.5), rowH-8, pl.x(h.FiredNs), pl.x(h.FiredNs), y+2, y+rowH-2,
			esc(kind), dur(h.DueNs), dur(h.FiredNs), esc(what), dur(end), dur(end-h.DueNs))
	}
}

// groupOps splits operations by model and key, in first-seen order.
func groupOps(ops []Op) [][]Op {
	var keys []string
	by := map[string][]Op{}
	for _, o := range ops {
		k := o.Model + "\x00" + o.Key
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], o)
	}
	out := make([][]Op, len(keys))
	for i, k := range keys {
		out[i] = by[k]
	}
	return out
}

func operations(pl plot, y float64, ops []Op) {
	for _, o := range ops {
		end, cut := o.ReturnNs, o.ReturnNs < 0
		if cut {
			end = pl.win.EndNs
		}
		if !pl.in(o.CallNs, end) {
			continue
		}
		class := "op"
		if o.Illegal {
			class += " illegal"
		}
		if cut {
			class += " cut"
		}
		ret := "returned " + dur(end)
		if cut {
			ret = "cut (outcome unknown)"
		}
		x0, x1 := pl.x(o.CallNs), pl.x(end)
		fmt.Fprintf(pl.b, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"><title>%s by %s: called %s, %s</title></rect>\n",
			class, x0, y+3, max(x1-x0, 2), rowH-6, esc(o.Text), esc(o.Actor), dur(o.CallNs), ret)
	}
}

// axis draws ticks at a round step giving about ten labels.
func axis(pl plot, y float64) {
	span := pl.win.EndNs - pl.win.StartNs
	step := int64(time.Millisecond)
	for _, s := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
		20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second, time.Minute,
		2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 30 * time.Minute, time.Hour} {
		step = int64(s)
		if span/step <= 12 {
			break
		}
	}
	fmt.Fprintf(pl.b, "<g class=\"axis\"><line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", labelW, labelW+plotW, y+2, y+2)
	for t := (pl.win.StartNs + step - 1) / step * step; t <= pl.win.EndNs; t += step {
		x := pl.x(t)
		fmt.Fprintf(pl.b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
			x, x, y+2, y+6, x, y+17, dur(t))
	}
	pl.b.WriteString("</g>\n")
}

// legend is the key to the drawings, one line per group.
const legend = `<div class="legend">
<div><b>checkpoints</b>
<span><svg width="14" height="12"><rect class="cp stored" x="0" y="2" width="14" height="8"/></svg> stored</span>
<span><svg width="14" height="12"><rect class="cp aborted" x="0" y="2" width="14" height="8"/></svg> aborted</span>
<span><svg width="14" height="12"><rect class="cp open" x="0" y="2" width="14" height="8"/></svg> open at the end</span>
<span><svg width="8" height="12"><line class="barrier" x1="4" x2="4" y1="0" y2="6"/><line class="ack" x1="4" x2="4" y1="6" y2="12"/></svg> barrier received (top) / ack (bottom)</span></div>
<div><b>faults</b>
<span><svg width="12" height="12"><g class="mark fault"><path d="M6 1 l5 9 h-10 z"/></g></svg> fault injected</span>
<span><svg width="12" height="12"><g class="mark restore"><circle cx="6" cy="6" r="4.5"/></g></svg> restore</span>
<span><svg width="12" height="12"><g class="mark stop"><path d="M6 1 l5 5 l-5 5 l-5 -5 z"/></g></svg> trigger stopped, cancel, finished</span>
<span><span class="healed-key">&nbsp;&nbsp;&nbsp;</span> faults off</span></div>
<div><b>watchdogs</b>
<span><svg width="12" height="12"><g class="mark watchdog"><path d="M6 9 l4 -7 h-8 z"/></g></svg> watchdog fired (effect starts)</span>
<span><svg width="12" height="12"><g class="mark expiry"><path d="M6 2 l4 4 l-4 4 l-4 -4 z"/></g></svg> effect failed a generation</span>
<span><svg width="12" height="12"><g class="mark fenced"><path d="M6 2 l4 4 l-4 4 l-4 -4 z"/></g></svg> effect fenced / no-op</span></div>
<div><b>hand-offs</b>
<span><svg width="14" height="12"><g class="handoff"><rect x="0" y="3" width="14" height="6"/></g></svg> trigger due → body started</span>
<span><svg width="14" height="12"><g class="handoff watchdog"><rect x="0" y="3" width="14" height="6"/></g></svg> watchdog due → ran</span></div>
<div><b>checks</b>
<span><svg width="14" height="12"><rect class="op" x="0" y="2" width="14" height="8"/></svg> porcupine operation</span>
<span><svg width="14" height="12"><rect class="op illegal" x="0" y="2" width="14" height="8"/></svg> in the illegal partition</span>
<span><svg width="10" height="12"><g class="check-mark"><line x1="5" x2="5" y1="0" y2="12"/></g></svg> check fired (its cause written out under the whole run)</span></div>
</div>
`

const style = `
body{font:13px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:16px;color:#1b1b1b;background:#fff}
h1{font-size:18px;margin:0 0 8px}h2{font-size:15px;margin:18px 0 6px}h3{font-size:12px;font-weight:600;color:#555;margin:8px 0 2px}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:0 0 8px}dl.meta dt{color:#666}dl.meta dd{margin:0}
code{font:12px ui-monospace,"DejaVu Sans Mono",monospace;background:#f3f3f3;padding:1px 4px}
.verdict-pass{color:#2e7d32;font-weight:600}.verdict-safety,.verdict-liveness,.verdict-crash,.verdict-budget{color:#c62828;font-weight:600}
ol.checks{margin:0 0 6px;padding-left:22px}ol.checks li:target{background:#fff3cd}
.legend{color:#444;font-size:12px;display:grid;grid-template-columns:max-content;row-gap:2px;margin:8px 0}
.legend>div{white-space:nowrap}.legend b{display:inline-block;width:90px;font-weight:600;color:#333}
.legend span{margin-right:14px}.legend svg{vertical-align:middle;margin:0 3px 0 0}
.legend .healed-key{background:#eef7ee;border:1px solid #cfe6cf;margin-right:3px}
section.lane{border:1px solid #e2c4c4;background:#fffafa;padding:6px 8px;margin:8px 0;overflow-x:auto}
details.lane{margin:1px 0}details.lane summary{cursor:pointer;color:#333}details.lane[open]{background:#fafafa}
svg.spark{vertical-align:middle;background:#f4f4f4;margin-right:6px}
svg.timeline{display:block;font:11px system-ui,"DejaVu Sans",sans-serif}
.rowname{fill:#333}.rowline{stroke:#eee}.healed{fill:#eef7ee}.genchange{stroke:#1565c0;stroke-width:1.5;fill:none}
.gen.g0{fill:#dbe9f7}.gen.g1{fill:#b9d3ee}.genlabel{fill:#234;font-size:10px}
.cp.stored{fill:#43a047}.cp.aborted{fill:#e53935}.cp.open{fill:#9e9e9e}.cp.type-savepoint{stroke:#6a1b9a;stroke-width:2}
.barrier{stroke:#1565c0;stroke-width:1.5}.ack{stroke:#212121;stroke-width:1.5}
.mark.fault{fill:#d32f2f}.mark.restore{fill:#1565c0}.mark.watchdog{fill:#ef6c00}.mark.expiry{fill:#8e0000}.mark.fenced{fill:#9e9e9e}.mark.stop{fill:#6a1b9a}.mark.heal{fill:#2e7d32}
.handoff rect{fill:#80cbc4}.handoff line{stroke:#00695c;stroke-width:1.5}.handoff.watchdog rect{fill:#ffcc80}.handoff.watchdog line{stroke:#ef6c00}
.op{fill:#90a4ae;fill-opacity:.75;stroke:#455a64;stroke-width:.5}.op.illegal{fill:#ef9a9a;stroke:#b71c1c}.op.cut{stroke-dasharray:3 2;fill-opacity:.35}
.check-mark line{stroke:#c62828;stroke-width:2}.check-mark text{fill:#c62828;font-weight:700}
.cause .leader{stroke:#c62828;stroke-width:1;stroke-dasharray:3 3}.cause text{fill:#5d1010}.cause text.head{fill:#c62828;font-weight:700}
.axis line{stroke:#888}.axis text{fill:#555;text-anchor:middle;font-size:10px}
`

// script lets a click on a check in the list scroll its marker into view;
// the page reads fully without it.
const script = `<script>
document.querySelectorAll("li.check").forEach(function(li){li.addEventListener("click",function(){
var m=document.querySelector('.check-mark[data-check="'+li.id.slice(6)+'"]');if(m){m.scrollIntoView({block:"center"});}});});
</script>
`
