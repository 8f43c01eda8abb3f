package oracle

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite CHECKS.md")

const checksHeader = "# Checks\n\nGenerated from `workloads/oracle/checks.go` by `go test ./workloads/oracle -run TestChecksDoc -update`; see the package documentation for the principle. The source column is derived from the feeds column, what each check subscribes to (`Check.Feeds`): `self-report` marks a check with a feed the code under test computed about itself (it still gives a verdict, and is debt to replace with a boundary check), `world` one that reads the simulator's view only.\n\n"

// TestChecksDoc keeps CHECKS.md equal to the registry.
func TestChecksDoc(t *testing.T) {
	want := checksHeader + Table()
	if *update {
		if err := os.WriteFile("CHECKS.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("CHECKS.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("CHECKS.md is out of date: go test ./workloads/oracle -run TestChecksDoc -update")
	}
}

// TestRegistry: ids are unique and every entry is filled in.
func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range All() {
		if seen[c.ID] {
			t.Errorf("duplicate id %q", c.ID)
		}
		seen[c.ID] = true
		if c.Class != Safety && c.Class != Liveness {
			t.Errorf("%s: class %q", c.ID, c.Class)
		}
		if c.Observes == "" || c.Asserts == "" || c.Catches == "" || c.ProvenBy == "" || c.Feeds == 0 {
			t.Errorf("%s: incomplete entry %+v", c.ID, c)
		}
	}
}

// TestSourceDerivedFromFeeds: the source column is what a check subscribes
// to: a check with a self-report feed is labelled self-report whatever else
// it reads, one reading only the simulator's view is labelled world, and
// every registered check's label is its feeds' (no entry can type one).
func TestSourceDerivedFromFeeds(t *testing.T) {
	for _, c := range []struct {
		feeds Feed
		want  Source
	}{
		{Boundary, FromBoundary},
		{Harness, FromBoundary},
		{Harness | Boundary | ThreadTable | VirtualTime, FromBoundary},
		{ThreadTable | VirtualTime, FromWorld},
		{SelfReport, FromSelfReport},
		{Boundary | VirtualTime | SelfReport, FromSelfReport},
		{ThreadTable | SelfReport, FromSelfReport},
	} {
		if got := (Check{Feeds: c.feeds}).Source(); got != c.want {
			t.Errorf("feeds %q: source %q, want %q", c.feeds, got, c.want)
		}
	}
	table := Table()
	for _, c := range All() {
		row := fmt.Sprintf("| `%s` | %s | %s | %s |", c.ID, c.Class, c.Source(), c.Feeds)
		if !strings.Contains(table, row) {
			t.Errorf("%s: the table does not carry its derived source and feeds (%q)", c.ID, row)
		}
		if c.Feeds&SelfReport != 0 && c.Source() != FromSelfReport || c.Feeds&SelfReport == 0 && c.Source() == FromSelfReport {
			t.Errorf("%s: feeds %q labelled %q", c.ID, c.Feeds, c.Source())
		}
	}
	if got := (Harness | SelfReport).String(); got != "harness, self-report" {
		t.Errorf("feed names %q", got)
	}
}

func TestFindings(t *testing.T) {
	var fs Findings
	fs.Add(GenerationJustified, 2*time.Second, Subject(0, 3), "failure of generation %d unjustified", 4)
	fs.Once(Retention, time.Second, "x", "a")
	fs.Once(Retention, time.Second, "x", "b")
	if !fs.Assert(true, OneOutstanding, 0, "y", "never") {
		t.Fatal("Assert(true) returned false")
	}
	l := fs.List()
	if len(l) != 2 || l[0].Class != Safety || !strings.Contains(l[0].String(), "2s job 0 pipeline 3: generation-justified: failure of generation 4") {
		t.Fatalf("findings %v", l)
	}
	if ids := IDs(l); strings.Join(ids, ",") != "generation-justified,retention" {
		t.Fatalf("ids %v", ids)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("an unregistered id did not panic")
		}
	}()
	fs.Add("no-such-check", 0, "", "")
}
