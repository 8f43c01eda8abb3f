package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ckptsim/ckptsim/workloads"
)

// probeStats is one code probe (env.Probe) over a campaign.
type probeStats struct {
	Probe string `json:"probe"`
	// MustHit names the default campaign's entry that must hit it
	// (workloads.ProbeTable).
	MustHit string `json:"must_hit"`
	Hits    int    `json:"hits"`  // hits, all seeds
	Seeds   int    `json:"seeds"` // seeds that hit it at least once
	// Scenarios: the campaign's rows (as the summary labels them) that hit
	// it, each with its seeds that hit it.
	Scenarios map[string]int `json:"scenarios"`
	First     string         `json:"first_hit,omitempty"` // replay of the first seed that hit it, in campaign order
	first     [2]uint64
}

// probeReport is the campaign's probe coverage: every probe core
// declares, how often it was hit and where; a probe no seed hit is unhit.
type probeReport struct {
	Probes []*probeStats `json:"probes"`
	// Unhit: the probes no seed hit whose row (workloads.ProbeTable) this
	// campaign ran; NotRun: how many more probes were not hit and belong
	// to rows it did not run (a campaign of one scenario judges only its
	// own probes).
	Unhit  []string `json:"unhit"`
	NotRun int      `json:"unhit_rows_not_run"`
	rows   map[string]bool
}

func newProbeReport() *probeReport {
	p := &probeReport{Unhit: []string{}}
	for _, row := range workloads.ProbeTable {
		p.Probes = append(p.Probes, &probeStats{Probe: row.Probe, MustHit: row.Entry.String(), Scenarios: map[string]int{}})
	}
	return p
}

// addProbes counts one outcome's probe hits; label is its row's name.
func (r *report) addProbes(group int, label string, o workloads.Outcome) {
	if r.Probes == nil {
		r.Probes = newProbeReport()
	}
	for name, n := range o.Probes {
		st := r.Probes.probe(name)
		if st == nil { // a probe the table lacks (TestProbeTableCoversEveryProbe forbids it)
			st = &probeStats{Probe: name, Scenarios: map[string]int{}}
			r.Probes.Probes = append(r.Probes.Probes, st)
		}
		st.Hits += n
		st.Seeds++
		st.Scenarios[label]++
		if k := [2]uint64{uint64(group), o.Seed}; st.First == "" || k[0] < st.first[0] || (k[0] == st.first[0] && k[1] < st.first[1]) {
			st.First, st.first = o.Replay, k
		}
	}
}

func (p *probeReport) probe(name string) *probeStats {
	for _, s := range p.Probes {
		if s.Probe == name {
			return s
		}
	}
	return nil
}

// finish lists the probes no seed hit, given the rows the campaign ran.
func (p *probeReport) finish(rows []string) {
	if p == nil {
		return
	}
	p.rows = map[string]bool{}
	for _, r := range rows {
		p.rows[r] = true
	}
	p.Unhit, p.NotRun = p.Unhit[:0], 0
	for _, s := range p.Probes {
		switch {
		case s.Hits > 0:
		case p.rows[s.MustHit]:
			p.Unhit = append(p.Unhit, s.Probe)
		default:
			p.NotRun++
		}
	}
}

// Missing names every probe not hit in the row of the default campaign
// that must hit it (workloads.ProbeTable), with where it was hit instead:
// the default campaign's probe verdict (TestDefaultCampaign).
func (p *probeReport) Missing() []string {
	var out []string
	if p == nil {
		return []string{"no probe report (the campaign ran no seed)"}
	}
	for _, s := range p.Probes {
		if s.MustHit == "" || s.Scenarios[s.MustHit] > 0 {
			continue
		}
		msg := fmt.Sprintf("probe %s: unhit in %s, the row that must hit it (workloads.ProbeTable)", s.Probe, s.MustHit)
		if s.Hits > 0 {
			msg += fmt.Sprintf("; hit %d times elsewhere", s.Hits)
		}
		out = append(out, msg)
	}
	return out
}

// writeText prints each probe's hits and where, and the probes unhit.
func (p *probeReport) writeText(w io.Writer) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "\ncode probes (env.Probe; the row that must hit each: workloads.ProbeTable)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if slices.ContainsFunc(p.Probes, func(s *probeStats) bool { return s.Hits > 0 || p.rows[s.MustHit] }) {
		fmt.Fprintf(tw, "%-30s\thits\tseeds\t %-s\n", "probe", "hit in (seeds)")
	}
	for _, s := range p.Probes {
		if s.Hits == 0 && !p.rows[s.MustHit] {
			continue // its row did not run
		}
		var where []string
		for _, sc := range slices.Sorted(maps.Keys(s.Scenarios)) {
			where = append(where, fmt.Sprintf("%s (%d)", sc, s.Scenarios[sc]))
		}
		if s.MustHit != "" && p.rows[s.MustHit] && s.Scenarios[s.MustHit] == 0 {
			where = append(where, "UNHIT in "+s.MustHit+", which must hit it")
		}
		fmt.Fprintf(tw, "%-30s\t%d\t%d\t %s\n", s.Probe, s.Hits, s.Seeds, strings.Join(where, ", "))
	}
	tw.Flush()
	more := ""
	if p.NotRun > 0 {
		more = fmt.Sprintf("; %d more belong to rows this campaign did not run", p.NotRun)
	}
	if len(p.Unhit) == 0 {
		if p.NotRun == 0 {
			fmt.Fprintln(w, "unhit: none (every probe hit)")
			return
		}
		fmt.Fprintf(w, "unhit: none of the probes whose row ran%s\n", more)
		return
	}
	fmt.Fprintf(w, "unhit: %s (no seed of this campaign entered them%s)\n", strings.Join(p.Unhit, ", "), more)
}
