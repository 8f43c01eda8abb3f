package variant_test

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/variant"
)

// TestProfileString: a profile prints as its name (simrun's listing; no
// run prints one).
func TestProfileString(t *testing.T) {
	for _, p := range variant.Profiles() {
		if s := p.String(); s == "" {
			t.Errorf("profile %+v prints empty", p)
		}
	}
}
