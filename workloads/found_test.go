package workloads

import "testing"

// TestFoundSeeds replays seeds that once failed on the fixed design; each
// must pass now. The comment says what the seed found.
func TestFoundSeeds(t *testing.T) {
	for _, tc := range []struct {
		scenario string
		seed     uint64
		found    string
	}{
		// A schema change requested while a failover restore was reading
		// the status store (after its clean, before its resume) had both
		// triggers dropped as "shut down" but left schemaChanging set, so
		// guard 6 stopped every periodic trigger of job 1 pipeline 2 after
		// the restore (core/coord, guard 5; TestSchemaChangeDuringRestore).
		// Then (with the lease checks of issue 13): a periodic trigger armed
		// before a schema change and due after its end ran on beside the
		// chain the schema change's end started: two periodic chains for
		// job 0 pipeline 9 from 49 s on (lease-trigger-chains; core/coord
		// armPeriodic).
		{"swarm", 101259, "schema change lost in a restore stops checkpoints; two periodic chains after a schema change"},
		// A periodic trigger due at a master failover's instant was handed
		// to a dispatch thread, cancelled by the restore's clean (CancelAll,
		// best-effort after the hand-off), passed its chain check (the
		// restore ends the old chain only when it resumes) and triggered a
		// checkpoint in the restored generation: Executor.Execute from a
		// body whose cancel had won (lease-cancel-effect; core/coord
		// staleTrigger, TestTriggerOfEarlierGenerationDoesNothing).
		{"h2-cancel-after-handoff", 3000411, "trigger cancelled by a restore after its hand-off triggered in the restored generation"},
		{"h2-cancel-after-handoff", 3000415, "the same, at 1m34s"},
		{"h2-cancel-after-handoff", 3000926, "the same, at 1m54s"},
	} {
		s, err := Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		if out := Run(s, Options{Seed: tc.seed}); out.Verdict != Pass {
			t.Errorf("%s seed %d (%s): %s %v\nreplay: %s", tc.scenario, tc.seed, tc.found, out.Verdict, out.Violations, out.Replay)
		}
	}
}
