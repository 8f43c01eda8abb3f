package coord_test

import (
	"testing"

	"github.com/ckptsim/ckptsim/core/coord"
)

// TestSchedLeaseNil: no lease adapts to no lease (the cluster always has
// one to adapt; results/coverage/defensive.txt).
func TestSchedLeaseNil(t *testing.T) {
	if l := coord.SchedLease(nil); l != nil {
		t.Fatalf("SchedLease(nil) = %v, want nil", l)
	}
}
