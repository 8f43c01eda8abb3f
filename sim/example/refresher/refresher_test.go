package refresher

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/sim"
)

var strategies = []sim.StrategyKind{sim.StrategyRandom, sim.StrategyPCT}

// TestCorrectCacheIsLinearizable: 100 seeds under each strategy, every
// history linearizable.
func TestCorrectCacheIsLinearizable(t *testing.T) {
	seeds := uint64(100)
	if testing.Short() {
		seeds = 20
	}
	for _, st := range strategies {
		for seed := range seeds {
			r := Run(RunConfig{Seed: seed, Strategy: st})
			if !r.Pass() {
				t.Fatalf("%s seed %d: %s %s, porcupine %s\nreplay: %s", st, seed, r.Outcome, r.Reason, r.Check, r.Replay())
			}
			if r.Ops != 75 {
				t.Fatalf("%s seed %d: %d operations, want 75", st, seed, r.Ops)
			}
		}
		t.Logf("%s: correct cache linearizable in %d of seeds 0-%d", st, seeds, seeds-1)
	}
}

// detectWithin is the stated detection bound: under each strategy, every
// window of this many consecutive seeds holds a seed that catches the
// buggy cache (measured by TestBuggyCacheIsCaught -v: 16 of seeds 0-99
// caught under the random walk, 19 under PCT with no PCTSteps; the longest
// runs of seeds not caught are 16 and 19).
const detectWithin = 20

// TestBuggyCacheIsCaught runs the buggy cache over seeds 0-99 under each
// strategy and requires porcupine to reject a history in every window of
// detectWithin consecutive seeds; it logs how many seeds were caught, the
// longest run of seeds that were not, and the replay command of the first
// seed caught in each window.
func TestBuggyCacheIsCaught(t *testing.T) {
	const seeds = 5 * detectWithin
	for _, st := range strategies {
		caught, run, longest := 0, 0, 0
		for start := uint64(0); start < seeds; start += detectWithin {
			first := -1
			for seed := start; seed < start+detectWithin; seed++ {
				r := Run(RunConfig{Seed: seed, Strategy: st, Buggy: true})
				if r.Outcome != sim.OutcomeDone {
					t.Fatalf("%s seed %d: %s %s (want a run that ends)", st, seed, r.Outcome, r.Reason)
				}
				if r.Check != porcupine.Illegal {
					run++
					longest = max(longest, run)
					continue
				}
				caught, run = caught+1, 0
				if first < 0 {
					first = int(seed)
					t.Logf("%s: caught at seed %d (%d seeds from %d); replay: %s", st, seed, seed-start+1, start, r.Replay())
				}
			}
			if first < 0 {
				t.Errorf("%s: buggy cache not caught in seeds %d-%d", st, start, start+detectWithin-1)
			}
		}
		t.Logf("%s: buggy cache caught in %d of seeds 0-%d; longest run of seeds not caught: %d", st, caught, seeds-1, longest)
	}
}

// TestDeterministic: the same configuration gives the same trace hash and
// history; another seed gives another.
func TestDeterministic(t *testing.T) {
	for _, st := range strategies {
		a, b := Run(RunConfig{Seed: 7, Strategy: st}), Run(RunConfig{Seed: 7, Strategy: st})
		if a.TraceHash != b.TraceHash || fmt.Sprint(a.History) != fmt.Sprint(b.History) {
			t.Errorf("%s seed 7: two runs differ (hash %x, %x)", st, a.TraceHash, b.TraceHash)
		}
		if c := Run(RunConfig{Seed: 8, Strategy: st}); c.TraceHash == a.TraceHash {
			t.Errorf("%s: seeds 7 and 8 give the same trace hash", st)
		}
	}
}

var (
	replaySeed     = flag.Int64("seed", -1, "TestReplay: the seed to run")
	replayStrategy = flag.String("strategy", "random", "TestReplay: random or pct")
	replayBuggy    = flag.Bool("buggy", false, "TestReplay: run the buggy cache")
	replayOut      = flag.String("out", "", "TestReplay: write porcupine's page here (default: a temporary directory)")
)

// TestReplay runs one seed given on the command line (the command each
// failure prints), logs its history and writes porcupine's page. It fails
// when the seed fails, so its exit status is the seed's verdict.
func TestReplay(t *testing.T) {
	if *replaySeed < 0 {
		t.Skip("give -args -seed S [-strategy random|pct] [-buggy]")
	}
	st, ok := sim.ParseStrategy(*replayStrategy)
	if !ok || st == sim.StrategyReplay {
		t.Fatalf("-strategy %q: want random or pct", *replayStrategy)
	}
	r := Run(RunConfig{Seed: uint64(*replaySeed), Strategy: st, Buggy: *replayBuggy})
	for _, e := range r.History {
		if e.Kind == porcupine.CallEvent {
			t.Logf("client %d call   #%d %+v", e.ClientId, e.Id, e.Value)
		} else {
			t.Logf("client %d return #%d %v", e.ClientId, e.Id, e.Value)
		}
	}
	dir := *replayOut
	if dir == "" {
		dir = t.TempDir()
		if d, err := os.MkdirTemp("", "refresher-"); err == nil {
			dir = d // kept after the test, for the reader
		}
	}
	if r.Outcome == sim.OutcomeDone {
		page := filepath.Join(dir, fmt.Sprintf("refresher-seed-%d.html", r.Config.Seed))
		if err := porcupine.VisualizePath(Model, r.Info, page); err != nil {
			t.Fatal(err)
		}
		t.Logf("porcupine: %s", page)
	}
	t.Logf("%s seed %d buggy %v: %s, porcupine %s, %d operations, trace hash %016x",
		st, r.Config.Seed, r.Config.Buggy, r.Outcome, r.Check, r.Ops, r.TraceHash)
	if !r.Pass() {
		t.Fail()
	}
}
