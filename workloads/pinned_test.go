package workloads

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ckptsim/ckptsim/core/variant"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/trace-hashes.txt from this run")

const pinFile = "testdata/trace-hashes.txt"

const pinHeader = `# Pinned trace hashes: (scenario, seed, variants) -> verdict and trace hash.
# TestPinnedTraceHashes runs every line, and seeds 0 and 1 of every embedded
# scenario on its own variants ("fixed") whether listed or not, so a new YAML
# file is a test by itself. A change that moves hashes on purpose (the
# simulator, the cluster, the coordinator) regenerates this file with
#   make pin-hashes      (go test ./workloads -run TestPinnedTraceHashes -rewrite)
# and says why in its commit. Lines with other variants are kept by -rewrite.
# scenario seed variants verdict trace_hash
`

// pin is one pinned case and what it gave.
type pin struct {
	scenario string
	seed     uint64
	variants string // VariantString: "fixed" or sorted k=v,k=v
	verdict  Verdict
	hash     string
}

func (p pin) key() string { return fmt.Sprintf("%s %d %s", p.scenario, p.seed, p.variants) }

func (p pin) String() string { return fmt.Sprintf("%s %s %s", p.key(), p.verdict, p.hash) }

// readPins parses the pin file (absent: none).
func readPins(t *testing.T) map[string]pin {
	pins := map[string]pin{}
	b, err := os.ReadFile(pinFile)
	if os.IsNotExist(err) {
		return pins
	}
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			t.Fatalf("%s:%d: want 'scenario seed variants verdict hash', got %q", pinFile, n, line)
		}
		seed, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			t.Fatalf("%s:%d: seed: %v", pinFile, n, err)
		}
		p := pin{f[0], seed, f[2], Verdict(f[3]), f[4]}
		pins[p.key()] = p
	}
	return pins
}

// TestPinnedTraceHashes walks every embedded scenario and every pinned
// case, runs it, and compares verdict and trace hash with the pin.
func TestPinnedTraceHashes(t *testing.T) {
	pins := readPins(t)
	cases := maps.Clone(pins)
	seeds := []uint64{0, 1}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, folder := range []string{"scenarios", "hazards"} {
		all, err := Embedded(folder)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range all {
			for _, seed := range seeds {
				p := pin{scenario: s.Name, seed: seed, variants: "fixed"}
				if _, ok := cases[p.key()]; !ok {
					cases[p.key()] = p
				}
			}
		}
	}
	var mu sync.Mutex
	got := map[string]pin{}
	t.Run("cases", func(t *testing.T) {
		for _, k := range slices.Sorted(maps.Keys(cases)) {
			c := cases[k]
			if testing.Short() && c.seed != 0 {
				continue
			}
			t.Run(strings.ReplaceAll(k, " ", "/"), func(t *testing.T) {
				t.Parallel()
				r := runPin(t, c)
				mu.Lock()
				got[k] = r
				mu.Unlock()
				if *rewrite {
					return
				}
				want, ok := pins[k]
				switch {
				case !ok:
					t.Errorf("%s is not pinned (got %s %s): run make pin-hashes", k, r.verdict, r.hash)
				case r.verdict != want.verdict || r.hash != want.hash:
					t.Errorf("%s: got %s %s, pinned %s %s (on purpose? make pin-hashes, and say why in the commit)",
						k, r.verdict, r.hash, want.verdict, want.hash)
				}
			})
		}
	})
	if *rewrite {
		writePins(t, pins, got)
	}
}

// runPin runs one case.
func runPin(t *testing.T, c pin) pin {
	s, err := Lookup(c.scenario)
	if err != nil {
		t.Fatalf("%s: %v", c.key(), err)
	}
	v, err := variant.ParsePairs(c.variants)
	if err != nil {
		t.Fatal(err)
	}
	out := Run(s, Options{Seed: c.seed, Variants: v})
	c.verdict, c.hash = out.Verdict, out.TraceHash
	return c
}

// writePins rewrites the pin file: what ran now, and old pins that did not
// run (seed 1 under -short) unchanged.
func writePins(t *testing.T, old, got map[string]pin) {
	all := maps.Clone(old)
	maps.Copy(all, got)
	var b strings.Builder
	b.WriteString(pinHeader)
	for _, k := range slices.Sorted(maps.Keys(all)) {
		fmt.Fprintln(&b, all[k])
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := pinFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, pinFile); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d pins to %s", len(all), pinFile)
}
