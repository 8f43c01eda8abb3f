package workloads

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// TestHazardCatalogRows: every row of the embedded catalog names an
// embedded hazard scenario, variant keys and values the core knows (for
// the bug and the fixed design) and registered check ids; a row without a
// scenario says how it is prevented; and every hazard scenario is some
// row's. Checked here with the registries directly, not through
// ParseHazards's own checks.
func TestHazardCatalogRows(t *testing.T) {
	rows, err := HazardCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 11 {
		t.Fatalf("%d rows, want H1..H11", len(rows))
	}
	named := map[string]bool{}
	for _, h := range rows {
		if h.Scenario == "" {
			if h.Detector == "" || h.Test == "" {
				t.Errorf("%s: no scenario, detector or test", h.ID)
			}
			continue
		}
		named[h.Scenario] = true
		if s, err := Lookup("hazards/" + h.Scenario); err != nil || s.Name != h.Scenario {
			t.Errorf("%s: scenario %q: %v", h.ID, h.Scenario, err)
		}
		if len(h.Bug) == 0 || len(h.Checks) == 0 {
			t.Errorf("%s: no variant or no check", h.ID)
		}
		for _, m := range []map[string]string{h.Bug, h.Fixed} {
			for k, v := range m {
				if err := CheckVariant(k, v); err != nil {
					t.Errorf("%s: variant %s=%s: %v", h.ID, k, v, err)
				}
			}
		}
		for _, id := range h.Checks {
			if _, ok := oracle.Lookup(id); !ok {
				t.Errorf("%s: check %q is not registered", h.ID, id)
			}
		}
	}
	all, err := Embedded("hazards")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if !named[s.Name] {
			t.Errorf("hazard scenario %s is no row's scenario", s.Name)
		}
	}
}

// TestHazardCatalogIsNotAScenario: the catalog lies beside the hazard
// scenarios but is neither listed nor looked up as one.
func TestHazardCatalogIsNotAScenario(t *testing.T) {
	all, err := Embedded("hazards")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatal("no hazard scenarios")
	}
	if _, err := Lookup("catalog"); err == nil {
		t.Error(`Lookup("catalog") found a scenario`)
	}
}

// TestParseHazardsRefuses: a catalog that breaks a rule is refused with
// its file, line and field.
func TestParseHazardsRefuses(t *testing.T) {
	src, err := os.ReadFile("hazards/catalog.yaml")
	if err != nil {
		t.Fatal(err)
	}
	good := string(src)
	for _, c := range []struct {
		name, old, new string
		want           []string
	}{
		{"unknown field", "    title: re-throw kills the dispatch worker\n",
			"    title: re-throw kills the dispatch worker\n    severity: high\n", []string{"catalog.yaml:", "severity", "unknown field"}},
		{"unknown check", "checks: [worker-died]", "checks: [worker-dies]", []string{"hazards[2].checks[0]", `no check "worker-dies"`}},
		{"unknown scenario", "scenario: h3-kill-worker", "scenario: h3-kill-workers", []string{"hazards[2].scenario", "h3-kill-workers"}},
		{"a scenario of another folder", "scenario: h3-kill-worker", "scenario: smoke", []string{"hazards[2].scenario", `"smoke"`}},
		{"unknown variant key", "variant: {task-failure: kill-worker}", "variant: {task-failures: kill-worker}", []string{"hazards[2].variant.task-failures"}},
		{"unknown variant value", "variant: {task-failure: kill-worker}", "variant: {task-failure: kill}", []string{"hazards[2].variant.task-failure"}},
		{"unknown fixed variant", "fixed: {design: per-pipeline}", "fixed: {design: per-job}", []string{"hazards[7].fixed.design"}},
		{"unknown window", "window: cancel-after-handoff", "window: cancel-after-hand-off", []string{"hazards[1].window", "cancel-after-hand-off"}},
		{"no checks", "    checks: [worker-died]\n", "", []string{"hazards[2]", "names no check"}},
		{"duplicate id", "id: H4\n", "id: H3\n", []string{"hazards[3].id", "H3 is listed twice"}},
		{"bad id", "id: H4\n", "id: h4\n", []string{"hazards[3].id", `"h4"`}},
		{"no test for a row without scenario", "    test: go test ./core/coord -run TestNilLeaseRefused\n", "", []string{"hazards[6]", "needs a detector and a test"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(good, c.old) {
				t.Fatalf("the catalog no longer has %q: change this case", c.old)
			}
			_, err := ParseHazards("catalog.yaml", []byte(strings.Replace(good, c.old, c.new, 1)))
			if err == nil {
				t.Fatal("accepted")
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if !strings.HasPrefix(msg, "catalog.yaml:") || !slices.ContainsFunc(strings.Split(msg, ":")[1:2], func(l string) bool { return l != "" && l[0] >= '1' && l[0] <= '9' }) {
				t.Errorf("error %q does not name the file and line", msg)
			}
		})
	}
	if _, err := ParseHazards("catalog.yaml", src); err != nil {
		t.Errorf("the committed catalog is refused: %v", err)
	}
}
