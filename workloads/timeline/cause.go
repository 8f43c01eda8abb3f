package timeline

import (
	"fmt"
	"strings"
)

// cause is why a check fired, written out beside its mark: the check, its
// time and where, then what the check's message says it compared (its
// claim, and each observation it cites on a line of its own), below the
// drawing's axis and joined to the mark by a dashed leader.
type cause struct {
	check  int     // the index in Data.Checks
	x      float64 // the mark's x
	top    int     // where the block starts (below the axis)
	anchor string  // "start": the text reads rightwards from the mark; "end": leftwards
	lines  []string
}

// Geometry of a cause block.
const (
	causeLineH = 14
	causePad   = 8
	causeCharW = 6.3 // an average character of the 11 px font
)

// causeOf lays out the cause of check c (index i) whose mark is at x, in a
// block starting at top.
func causeOf(i int, c Check, x float64, top int) cause {
	k := cause{check: i, x: x, top: top, anchor: "start"}
	room := float64(labelW+plotW+16) - x
	if x > labelW+plotW/2 {
		k.anchor, room = "end", x-4
	}
	width := max(int(room/causeCharW), 40)
	where := "member"
	switch {
	case c.Pipeline >= 0:
		where = fmt.Sprintf("job %d pipeline %d", c.Job, c.Pipeline)
	case c.Job >= 0:
		where = fmt.Sprintf("job %d", c.Job)
	}
	k.lines = append(k.lines, fmt.Sprintf("✖ %s at %s (%s): why it fired", c.ID, dur(c.AtNs), where))
	for _, o := range observations(c.Message) {
		k.lines = append(k.lines, wrap(o, width)...)
	}
	return k
}

func (k cause) height() int { return causePad + len(k.lines)*causeLineH }

// draw writes the block; from is the bottom of the rows, where the mark's
// line ends.
func (k cause) draw(b *strings.Builder, from int) {
	tx := k.x + 4
	if k.anchor == "end" {
		tx = k.x - 4
	}
	last := k.top + causePad + (len(k.lines)-1)*causeLineH
	fmt.Fprintf(b, "<g class=\"cause\" data-check=\"%d\"><line class=\"leader\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>\n",
		k.check, k.x, k.x, from, last+2)
	for j, l := range k.lines {
		cls := ""
		if j == 0 {
			cls = " class=\"head\""
		}
		fmt.Fprintf(b, "<text%s x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>\n", cls, tx, k.top+causePad+j*causeLineH+4, k.anchor, esc(l))
	}
	b.WriteString("</g>\n")
}

// observations splits a check's message into its claim and the
// observations it cites: a message reads "claim: observation; observation"
// (or one observation a line), so the claim is what comes before the
// first ": " and each "; " or line break begins an observation, marked
// "· ". A message without ": " is one line.
func observations(msg string) []string {
	var out []string
	for n, line := range strings.Split(strings.TrimSpace(msg), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if n == 0 {
			if claim, rest, ok := strings.Cut(line, ": "); ok {
				out = append(out, claim+":")
				line = rest
			} else {
				out = append(out, line)
				continue
			}
		}
		for _, o := range strings.Split(line, "; ") {
			if o = strings.TrimSpace(o); o != "" {
				out = append(out, "· "+o)
			}
		}
	}
	return out
}

// wrap breaks s into lines of at most width characters at spaces; the
// lines after the first are indented.
func wrap(s string, width int) []string {
	var out []string
	cur := ""
	for _, w := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = w
		case len([]rune(cur))+1+len([]rune(w)) > width:
			out = append(out, cur)
			cur = "    " + w
		default:
			cur += " " + w
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}
