package workloads

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

func TestDebugSeed(t *testing.T) {
	if os.Getenv("DBG_SCENARIO") == "" {
		t.Skip()
	}
	s, _ := Lookup(os.Getenv("DBG_SCENARIO"))
	seed, _ := strconv.Atoi(os.Getenv("DBG_SEED"))
	job, _ := strconv.Atoi(os.Getenv("DBG_JOB"))
	pipe, _ := strconv.Atoi(os.Getenv("DBG_PIPE"))
	faults, kinds := s.Faults, []string(nil)
	if s.Swarm {
		faults, kinds = swarm(s.Faults, uint64(seed))
	}
	r := &runner{s: s, opt: Options{Seed: uint64(seed), Trace: true}, faults: faults, kinds: kinds}
	r.ccfg, _ = s.clusterConfig(s.effectiveVariants(nil), faults)
	out := r.run(Outcome{})
	fmt.Println(out.Verdict, out.Violations, kinds)
	for _, rec := range r.c.Recorder.Records {
		if rec.Pipeline == pipe && int(rec.Job) == job {
			fmt.Printf("%v %v gen=%d armed=%d id=%d type=%v reason=%s delay=%v count=%d op=%d\n", rec.At, rec.Kind, rec.Gen, rec.ArmedGen, rec.ID, rec.Type, rec.Reason, rec.Delay, rec.Count, rec.Op)
		}
	}
	for _, e := range r.w.Events() {
		if e.Op == "note" {
			fmt.Println(e)
		}
	}
}
