package sim

import (
	"testing"

	"time"

	"github.com/ckptsim/ckptsim/core/env"
)

// buggifyRun asks every site n times from a few threads and returns the
// result and the report.
func buggifyRun(cfg Config, n int) (Result, []SiteReport, []bool) {
	w := New(cfg)
	var answers []bool
	res := w.Run(func() {
		for i := range 3 {
			w.Go("asker", func() {
				for range n {
					for _, s := range env.Sites() {
						answers = append(answers, env.Buggify(w, s))
					}
					w.Sleep(msDur(i + 1))
				}
			})
		}
		w.Sleep(msDur(10 * n))
	})
	return res, w.Harness().BuggifyReport(), answers
}

// msDur is a millisecond count as a duration, for brevity here.
func msDur(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }

func TestBuggifyOffChangesNothing(t *testing.T) {
	base, rep, answers := buggifyRun(Config{Seed: 7}, 20)
	if rep != nil {
		t.Fatalf("report without BuggifyConfig: %v", rep)
	}
	for _, a := range answers {
		if a {
			t.Fatal("a site fired without BuggifyConfig")
		}
	}
	// An on configuration whose sites never fire leaves the trace as it was:
	// evaluations draw only from their own stream and are not recorded.
	quiet, _, _ := buggifyRun(Config{Seed: 7, Buggify: &BuggifyConfig{On: 1, Fire: 1e-300}}, 20)
	if quiet.TraceHash != base.TraceHash {
		t.Fatalf("sites on but never firing changed the trace hash: %x != %x", quiet.TraceHash, base.TraceHash)
	}
}

func TestBuggifyIsSeededRecordedAndSwarmed(t *testing.T) {
	cfg := Config{Seed: 11, Buggify: &BuggifyConfig{On: 0.5, Fire: 0.3}}
	a, repA, ansA := buggifyRun(cfg, 50)
	b, repB, ansB := buggifyRun(cfg, 50)
	if a.TraceHash != b.TraceHash || len(ansA) != len(ansB) {
		t.Fatal("same seed, different BUGGIFY run")
	}
	for i := range ansA {
		if ansA[i] != ansB[i] {
			t.Fatalf("answer %d differs between runs of one seed", i)
		}
	}
	base, _, _ := buggifyRun(Config{Seed: 11}, 50)
	on, fired := 0, 0
	for i, r := range repA {
		if r != repB[i] {
			t.Fatalf("site %s: report differs between runs: %+v %+v", r.Site, r, repB[i])
		}
		if r.On {
			on++
			fired += r.Fired
		} else if r.Fired > 0 || r.Evaluated > 0 {
			t.Fatalf("site %s off but evaluated %d, fired %d", r.Site, r.Evaluated, r.Fired)
		}
	}
	if fired == 0 || a.TraceHash == base.TraceHash {
		t.Fatalf("%d firings, hash %x (base %x): firings must be recorded in the trace", fired, a.TraceHash, base.TraceHash)
	}
	// Over seeds, each site is sometimes on and sometimes off (swarm).
	onSeeds := make([]int, len(env.Sites())+1)
	for seed := range uint64(40) {
		w := New(Config{Seed: seed, Buggify: &BuggifyConfig{}})
		for _, r := range w.Harness().BuggifyReport() {
			if r.On {
				onSeeds[r.Site]++
			}
		}
	}
	for _, s := range env.Sites() {
		if onSeeds[s] == 0 || onSeeds[s] == 40 {
			t.Fatalf("site %s on in %d of 40 seeds: not switched per seed", s, onSeeds[s])
		}
	}
}

func TestBuggifyLeavesTheOtherStreamsAlone(t *testing.T) {
	draw := func(cfg Config) [3]uint64 {
		w := New(cfg)
		env.Buggify(w, env.SiteExecutorRejects)
		return [3]uint64{w.Rand(StreamFaults).Uint64(), w.Rand(StreamWorkload).Uint64(), w.Rand(StreamSched).Uint64()}
	}
	if draw(Config{Seed: 3}) != draw(Config{Seed: 3, Buggify: &BuggifyConfig{On: 1, Fire: 1}}) {
		t.Fatal("switching BUGGIFY on changed the fault, workload or scheduling stream")
	}
}

func TestBuggifyOverridesAndPause(t *testing.T) {
	w := New(Config{Seed: 1, Buggify: &BuggifyConfig{On: 1, Fire: 1, Sites: map[env.Site]float64{env.SiteStatusSlow: 0}}})
	if env.Buggify(w, env.SiteStatusSlow) {
		t.Fatal("a site overridden to 0 fired")
	}
	if !env.Buggify(w, env.SiteExecutorRejects) {
		t.Fatal("an on site with probability 1 did not fire")
	}
	w.Harness().PauseBuggify()
	if env.Buggify(w, env.SiteExecutorRejects) {
		t.Fatal("a site fired after PauseBuggify")
	}
}

// The sites that draw from StreamBuggify are the five core had before
// StreamBuggifyLate: a site added since draws from a stream of its own, so
// it never shifts another site's draws (reset-swap-late's shared draw had
// moved every BUGGIFY run's firings, and with them four upstream repros).
func TestSharedBuggifySitesAreTheFirstFive(t *testing.T) {
	if int(env.SiteStoreFailsAfterWrite) != sharedSites {
		t.Fatalf("store-fails-after-write is site %d, sharedSites %d: a site was inserted before it", env.SiteStoreFailsAfterWrite, sharedSites)
	}
	b := newBuggify(7, &BuggifyConfig{On: 1, Fire: 0.5})
	for _, s := range env.Sites() {
		if (int(s) <= sharedSites) != (b.stream(s) == b.r) {
			t.Errorf("site %s: shared stream %v, want %v", s, b.stream(s) == b.r, int(s) <= sharedSites)
		}
	}
}
