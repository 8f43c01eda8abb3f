package env_test

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/env"
)

// TestUnknownNames: a site or probe outside the table prints as unknown
// (no core code names one; results/coverage/defensive.txt).
func TestUnknownNames(t *testing.T) {
	if got := env.Site(0).String(); got != "site?" {
		t.Errorf("Site(0) = %q, want site?", got)
	}
	if got := env.Site(255).String(); got != "site?" {
		t.Errorf("Site(255) = %q, want site?", got)
	}
	if got := env.Probe(0).String(); got != "probe?" {
		t.Errorf("Probe(0) = %q, want probe?", got)
	}
}
