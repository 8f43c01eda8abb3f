package oracle

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSavepointStoreChecks: after a restart, a listed savepoint whose
// commit never returned (and no crash hit) fires savepoint-crash, as do a
// committed one missing, a bundle holding another checkpoint than written
// and a restore that would not use the newest whole one; a rotted one may
// be missing. Bundles are read back only for savepoints the harness
// committed or saw a crash hit. At the end, a committed savepoint gone
// without a delete fires savepoint-retention; a load of states other than
// written fires restore-integrity.
func TestSavepointStoreChecks(t *testing.T) {
	s := NewSavepointStore(2)
	for id := int64(1); id <= 4; id++ {
		s.Wrote(0, id, 0, 10*id, uint64(id))
		s.Wrote(0, id, 1, 10*id+1, uint64(id)+100)
	}
	s.Committed(0, 1)
	s.Committed(0, 2)
	s.Committed(0, 3)
	s.CrashHit(0, 4)
	s.Rotted(0, 3)
	s.Restarted()
	var reads []int64
	read := func(id int64) (map[int32]int64, error) {
		reads = append(reads, id)
		return map[int32]int64{0: 10 * id, 1: 10*id + 1}, nil
	}
	s.Whole(0, []int64{4, 2, 1}, nil, read) // 3 rotted: not listed, excused; 4 hit by the crash: whole
	var f Findings
	s.CrashFindings(&f, time.Minute)
	if got := f.List(); len(got) != 0 || len(reads) != 3 {
		t.Fatalf("a consistent store: %v (read %v)", got, reads)
	}
	reads = nil
	s.Restarted()
	s.Whole(0, []int64{5, 1}, nil, func(id int64) (map[int32]int64, error) {
		reads = append(reads, id)
		return map[int32]int64{0: 99}, nil
	})
	s.Whole(1, nil, errors.New("io"), read)
	s.CrashFindings(&f, time.Minute)
	var msgs []string
	for _, x := range f.List() {
		if x.Check != SavepointCrash {
			t.Fatalf("fired %s", x.Check)
		}
		msgs = append(msgs, x.Message)
	}
	want := []string{
		"after crash 2: savepoint 5 of job 0 is listed but its commit never succeeded",
		"after crash 2: listed savepoint 1 of job 0 pipeline 0 holds checkpoint 99, the harness wrote 10",
		"after crash 2: listed savepoint 1 of job 0 has no pipeline 1",
		"after crash 2: committed savepoint 2 of job 0 is not listed after the restart",
		"after crash 2: a restore of job 0 would use savepoint 5, the newest whole one is 2",
		"after crash 2: list job 1: io",
	}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") || len(reads) != 1 || reads[0] != 1 {
		t.Fatalf("got\n%s\nwant\n%s\n(read %v)", strings.Join(msgs, "\n"), strings.Join(want, "\n"), reads)
	}

	f = Findings{}
	s.Retention(&f, time.Hour, 0, []int64{4, 1}, nil) // 2 gone, 3 rotted
	s.Loaded(time.Second, 0, 1, 11, 101)              // as written
	s.Loaded(2*time.Second, 0, 1, 21, 7)              // other states
	s.IntegrityFindings(&f)
	got := f.List()
	if len(got) != 2 || got[0].Check != SavepointRetention ||
		got[0].Message != "savepoint-retention: committed savepoint 2 of job 0 is gone without a delete" ||
		got[1].Check != RestoreIntegrity || got[1].At != 2*time.Second || got[1].Subject != "job 0 pipeline 1" {
		t.Fatalf("retention and integrity: %v", got)
	}
	f = Findings{}
	SavepointOutcomes(&f, time.Hour, []SavepointRequest{{Job: 1, At: time.Second, Answered: true}, {Job: 2, At: time.Minute}})
	if got := f.List(); len(got) != 1 || got[0].Subject != "job 2" ||
		got[0].Message != "the savepoint requested at 1m0s neither completed nor failed by the end of the run" {
		t.Fatalf("savepoint-outcome: %v", got)
	}
	f = Findings{}
	SavepointOutcomes(&f, time.Hour, []SavepointRequest{
		{Job: 1, At: time.Second, Answered: true, Completed: true, Committed: true}, // completed, committed
		{Job: 2, At: time.Second, Answered: true},                                   // failed, reported failed
		{Job: 3, At: time.Minute, Answered: true, Completed: true},                  // completed, never committed
	})
	if got := f.List(); len(got) != 1 || got[0].Subject != "job 3" || !strings.Contains(got[0].Message, "a savepoint that failed was reported complete") {
		t.Fatalf("savepoint-outcome of a failed commit: %v", got)
	}
}
