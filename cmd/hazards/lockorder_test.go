package main

import (
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/sim"
)

// TestLockReportSitesAreModuleRelative: lock-order.md names each lock site
// by its path in the module (cmd/hazards/lockorder_test.go:N), wherever the
// checkout is (it printed $HOME/wt/haz/core/... for a checkout not in a
// folder named ckptsim), and says which commit the lines are of.
func TestLockReportSitesAreModuleRelative(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1, LockOrder: true})
	a, b := w.NewMutex("test.a"), w.NewMutex("test.b")
	w.Run(func() {
		a.Lock()
		b.Lock()
		b.Unlock()
		a.Unlock()
	})
	page := lockReport(config{fixed: 3, commit: "0123456789ab"}, w.Harness().LockGraph())
	if !strings.Contains(page, "`go run ./cmd/hazards -fixed 3` at commit `0123456789ab`") {
		t.Errorf("no command and commit in the header:\n%s", page)
	}
	row := ""
	for l := range strings.SplitSeq(page, "\n") {
		if strings.HasPrefix(l, "| test.a | test.b |") {
			row = l
		}
	}
	if strings.Count(row, " | cmd/hazards/lockorder_test.go:") != 2 {
		t.Errorf("the edge test.a -> test.b, want both sites as cmd/hazards/lockorder_test.go:N: %q\n%s", row, page)
	}
	for _, tc := range []struct{ in, want string }{
		{moduleRoot + "core/coord/complete.go:36", "core/coord/complete.go:36"},
		{"github.com/ckptsim/ckptsim/core/coord/complete.go:36", "core/coord/complete.go:36"}, // built with -trimpath
		{"/usr/local/go/src/sync/mutex.go:10", "/usr/local/go/src/sync/mutex.go:10"},          // outside the module
	} {
		if got := short(tc.in); got != tc.want {
			t.Errorf("short(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
