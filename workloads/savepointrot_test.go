package workloads

import (
	"errors"
	"path"
	"slices"
	"strconv"
	"testing"

	"github.com/ckptsim/ckptsim/core/savepoint"
	"github.com/ckptsim/ckptsim/workloads/oracle"
)

const rotScenario = `name: savepoint-rot-test
cluster: {jobs: 1, pipelines: 3, tasks: 1}
checkpoint: {interval: 2s, timeout: 2s}
workload:
  ack_latency: {kind: uniform, min: 10ms, max: 300ms}
  restart_delay: {min: 200ms}
faults:
  savepoint: {every: 3s}
  master_crash: {every: 7s}
  savepoint_rot: 0.5
run: {duration: 1m, heal: 20s}
`

// runRot runs seed of rotScenario, with plant (nil: none) as the restore
// from a savepoint.
func runRot(t *testing.T, seed uint64, plant func(*savepoints) func(int64, int32) (*savepoint.CompletedCheckpoint, error)) (*runner, Outcome) {
	t.Helper()
	s, err := Parse("savepointrot_test.go", []byte(rotScenario))
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{s: s, opt: Options{Seed: seed}, faults: s.Faults, planted: plant}
	if r.ccfg, err = s.clusterConfig(s.effectiveVariants(nil), s.Faults); err != nil {
		t.Fatal(err)
	}
	return r, r.run(Outcome{Scenario: s.Name, Seed: seed})
}

// TestSavepointRotIsNeverLoaded: savepoint_rot flips a state bit of a
// committed savepoint's payload; core's savepoint.Restore skips the bundle
// (its SHA-256 no longer matches), so the runs pass, master crashes
// included (a rotted savepoint is no longer listed, which savepoint-crash,
// savepoint-retention and model-savepoints excuse). A planted restore that
// reads the newest committed bundle's payload without its checksum loads
// the rotted states, and restore-integrity fires.
func TestSavepointRotIsNeverLoaded(t *testing.T) {
	rotted := 0
	for seed := range uint64(3) {
		r, out := runRot(t, seed, nil)
		if out.Verdict != Pass {
			t.Fatalf("seed %d: %s %v", seed, out.Verdict, out.Violations)
		}
		rotted += len(r.sp.rotted)
	}
	if rotted == 0 {
		t.Fatal("no savepoint rotted in 3 seeds")
	}
	unchecked := func(sp *savepoints) func(int64, int32) (*savepoint.CompletedCheckpoint, error) {
		return func(job int64, p int32) (*savepoint.CompletedCheckpoint, error) {
			ids := sp.chk.CommittedIDs(job)
			id := ids[len(ids)-1]
			file := savepoint.PayloadFile(p, sp.written[savepointID{job, id}][p])
			data, err := sp.fs.ReadFile(path.Join("ns", savepoint.SavepointDir, strconv.FormatInt(job, 10), strconv.FormatInt(id, 10), file))
			if err != nil {
				return nil, err
			}
			return savepoint.DecodePayload(data)
		}
	}
	for seed := range uint64(3) {
		if _, out := runRot(t, seed, unchecked); slices.Contains(out.Checks, oracle.RestoreIntegrity) {
			return
		}
	}
	t.Fatal("a restore that never compares the payload's checksum loaded rotted states on none of 3 seeds, unseen by restore-integrity")
}

// TestSavepointRotForms: savepoint_rot's three forms (a state bit of a
// payload, a bit of the manifest, a payload's tail lost) each occur on
// rotScenario's first seeds, the runs pass, and core's Store.Read refuses
// every rotted bundle by the check the form defeats: the payload's
// SHA-256, the manifest's envelope checksum, the payload's length.
func TestSavepointRotForms(t *testing.T) {
	want := map[string]string{"state": "sha-256", "manifest": "manifest checksum", "torn": "length"}
	seen := map[string]int{}
	for seed := range uint64(6) {
		r, out := runRot(t, seed, nil)
		if out.Verdict != Pass {
			t.Fatalf("seed %d: %s %v", seed, out.Verdict, out.Violations)
		}
		for k, form := range r.sp.rotForm {
			seen[form]++
			_, err := r.sp.store.Read(k.job, k.id)
			var fe *savepoint.FileError
			if !errors.As(err, &fe) || fe.Check != want[form] {
				t.Errorf("seed %d: savepoint %d of job %d rotted (%s): Read gives %v, want a %q refusal", seed, k.id, k.job, form, err, want[form])
			}
		}
	}
	for form := range want {
		if seen[form] == 0 {
			t.Errorf("no %s rot in 6 seeds (seen %v)", form, seen)
		}
	}
	t.Logf("rots by form: %v", seen)
}
