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
