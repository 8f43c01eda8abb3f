package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ckptsim/ckptsim/workloads"
)

// siteStats is one BUGGIFY site over a campaign.
type siteStats struct {
	Site       string    `json:"site"`
	SeedsOn    int       `json:"seeds_on"`                // seeds in which the site was on
	SeedsFired int       `json:"seeds_fired"`             // seeds in which it fired at least once
	Evaluated  int       `json:"evaluated"`               // calls while on, all seeds
	Fired      int       `json:"fired"`                   // firings, all seeds
	FailedOn   int       `json:"seeds_failed"`            // seeds with the site on that did not pass
	FirstFail  string    `json:"first_failure,omitempty"` // replay of the first failing seed in campaign order
	first      [2]uint64 // group and seed of FirstFail
}

// buggifyReport is the campaign's site coverage: every site, how often it
// fired, whether a seed with it on failed; a site that never fired is
// uncovered.
type buggifyReport struct {
	Seeds     int          `json:"seeds"` // seeds run with BUGGIFY on
	Sites     []*siteStats `json:"sites"`
	Uncovered []string     `json:"uncovered"`
}

// addBuggify counts one outcome's sites (nothing when BUGGIFY was off).
func (r *report) addBuggify(group int, o workloads.Outcome) {
	if o.Buggify == nil {
		return
	}
	if r.Buggify == nil {
		r.Buggify = &buggifyReport{Uncovered: []string{}}
		for _, name := range workloads.SiteNames() {
			r.Buggify.Sites = append(r.Buggify.Sites, &siteStats{Site: name})
		}
	}
	r.Buggify.Seeds++
	for _, so := range o.Buggify {
		st := r.Buggify.site(so.Site)
		if st == nil || !so.On {
			continue
		}
		st.SeedsOn++
		st.Evaluated += so.Evaluated
		st.Fired += so.Fired
		if so.Fired > 0 {
			st.SeedsFired++
		}
		if o.Verdict != workloads.Pass {
			st.FailedOn++
			if k := [2]uint64{uint64(group), o.Seed}; st.FirstFail == "" || k[0] < st.first[0] || (k[0] == st.first[0] && k[1] < st.first[1]) {
				st.FirstFail, st.first = o.Replay, k
			}
		}
	}
}

func (b *buggifyReport) site(name string) *siteStats {
	for _, s := range b.Sites {
		if s.Site == name {
			return s
		}
	}
	return nil
}

// finish lists the sites that never fired.
func (b *buggifyReport) finish() {
	if b == nil {
		return
	}
	b.Uncovered = b.Uncovered[:0]
	for _, s := range b.Sites {
		if s.Fired == 0 {
			b.Uncovered = append(b.Uncovered, s.Site)
		}
	}
}

// writeText prints the site coverage table and the uncovered sites.
func (b *buggifyReport) writeText(w io.Writer) {
	if b == nil {
		return
	}
	fmt.Fprintf(w, "\nbuggify sites (%d seeds with BUGGIFY on)\n", b.Seeds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-24s\tseeds on\tseeds fired\tevaluated\tfired\tseeds on that failed\t\n", "site")
	for _, s := range b.Sites {
		fmt.Fprintf(tw, "%-24s\t%d\t%d\t%d\t%d\t%d\t\n", s.Site, s.SeedsOn, s.SeedsFired, s.Evaluated, s.Fired, s.FailedOn)
	}
	tw.Flush()
	if len(b.Uncovered) == 0 {
		fmt.Fprintln(w, "uncovered: none (every site fired)")
		return
	}
	fmt.Fprintf(w, "uncovered: %s (never fired in this campaign)\n", strings.Join(b.Uncovered, ", "))
}

// buggifyFlag is --buggify on|off.
type buggifyFlag string

func (f *buggifyFlag) String() string { return string(*f) }

func (f *buggifyFlag) Set(v string) error {
	if v != "on" && v != "off" {
		return fmt.Errorf("want on or off, got %q", v)
	}
	*f = buggifyFlag(v)
	return nil
}
