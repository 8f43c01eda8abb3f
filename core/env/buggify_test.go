package env

import "testing"

func TestBuggifyWallNeverFiresAndCostsNoAllocation(t *testing.T) {
	var e Env = Wall{}
	for _, s := range Sites() {
		if Buggify(e, s) {
			t.Fatalf("wall mode took the rare path at %s", s)
		}
	}
	if n := testing.AllocsPerRun(1000, func() { Buggify(e, SiteExecutorRejects) }); n != 0 {
		t.Fatalf("Buggify in wall mode allocates %v times per call, want 0", n)
	}
}

// fixedBuggifier says yes at one site.
type fixedBuggifier struct {
	Wall
	yes Site
}

func (f fixedBuggifier) Buggify(s Site) bool { return s == f.yes }

func TestBuggifyAsksTheEnvironment(t *testing.T) {
	e := fixedBuggifier{yes: SiteStatusSlow}
	if !Buggify(e, SiteStatusSlow) || Buggify(e, SiteStoreFailsAfterWrite) {
		t.Fatal("Buggify did not pass the environment's answer through")
	}
}

func TestSiteNamesRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Sites() {
		name := s.String()
		if name == "site?" || seen[name] {
			t.Fatalf("site %d: bad or duplicate name %q", s, name)
		}
		seen[name] = true
		if got, ok := ParseSite(name); !ok || got != s {
			t.Fatalf("ParseSite(%q) = %v, %v", name, got, ok)
		}
	}
	if _, ok := ParseSite("no-such-site"); ok {
		t.Fatal("ParseSite accepted an unknown name")
	}
}

func TestProbeWallCostsNoAllocation(t *testing.T) {
	var e Env = Wall{}
	if n := testing.AllocsPerRun(1000, func() { Hit(e, ProbeRegisterLate) }); n != 0 {
		t.Fatalf("Hit in wall mode allocates %v times per call, want 0", n)
	}
}

// countingProber counts hits.
type countingProber struct {
	Wall
	hits map[Probe]int
}

func (c countingProber) Probe(p Probe) { c.hits[p]++ }

func TestProbeNamesRoundTripAndHitsReachTheEnvironment(t *testing.T) {
	seen := map[string]bool{}
	e := countingProber{hits: map[Probe]int{}}
	for _, p := range Probes() {
		name := p.String()
		if name == "probe?" || seen[name] {
			t.Fatalf("probe %d: bad or duplicate name %q", p, name)
		}
		seen[name] = true
		if got, ok := ParseProbe(name); !ok || got != p {
			t.Fatalf("ParseProbe(%q) = %v, %v", name, got, ok)
		}
		Hit(e, p)
		if e.hits[p] != 1 {
			t.Fatalf("Hit(%s) reached the environment %d times, want 1", p, e.hits[p])
		}
	}
	if _, ok := ParseProbe("no-such-probe"); ok {
		t.Fatal("ParseProbe accepted an unknown name")
	}
}
