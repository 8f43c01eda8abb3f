//go:build race

package sched_test

// raceEnabled cuts the heaviest simulated tests (500 leases per seed) under
// the race detector, whose point there is the wall-mode subtest.
const raceEnabled = true
