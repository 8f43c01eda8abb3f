package campaign

import (
	"reflect"
	"strings"
	"testing"

	"github.com/ckptsim/ckptsim/workloads"
)

// TestShrinkCoversEveryFaultKind: every schedule and rate field of the
// faults schema is a kind the shrinker can drop (task_error was missing,
// so a shrink could never remove it), and status_slow is handled apart.
func TestShrinkCoversEveryFaultKind(t *testing.T) {
	known := map[string]bool{"status_slow": true}
	for _, k := range scheduleKinds {
		known[k.name] = true
	}
	for _, k := range rateKinds {
		known[k.name] = true
	}
	ft := reflect.TypeFor[workloads.Faults]()
	for i := range ft.NumField() {
		name, _, _ := strings.Cut(ft.Field(i).Tag.Get("yaml"), ",")
		if !known[name] {
			t.Errorf("faults.%s (%s) has no shrink step in scheduleKinds or rateKinds", name, ft.Field(i).Type)
		}
	}
	// and each getter reaches the field its name says
	var f workloads.Faults
	for _, k := range rateKinds {
		*k.get(&f) = 0.5
		y := string((&workloads.Scenario{Faults: f}).YAML())
		if !strings.Contains(y, k.name+": 0.5") {
			t.Errorf("rate kind %s sets another field:\n%s", k.name, y)
		}
		*k.get(&f) = 0
	}
}
