package cluster

import (
	"fmt"
	"testing"

	"github.com/ckptsim/ckptsim/core/coord"
	"github.com/ckptsim/ckptsim/sim"
)

// sscanfStatusPipeline is the parser statusPipeline replaced: the oracle.
func sscanfStatusPipeline(key string) (int64, int, bool) {
	var j, p int
	if n, err := fmt.Sscanf(key, "checkpoint_state_%d_%d", &j, &p); err != nil || n != 2 {
		return 0, 0, false
	}
	return int64(j), p, true
}

var statusKeys = []string{
	"checkpoint_state_0_0", "checkpoint_state_1_2", "checkpoint_state_12_345_ready_to_close",
	"checkpoint_state_-1_2", "checkpoint_state_+3_4", "checkpoint_state_1__2", "checkpoint_state_x",
	"checkpoint_state_1_", "checkpoint_state_1", "checkpoint_state_", "checkpoint_state",
	"checkpoint_state_99999999999999999999_1", "checkpoint_state_1_2x", "checkpoint_state_1_2_3",
	"checkpoint_state_0x1_2", "checkpoint_state_1_0x2", "other_1_2", "", "checkpoint_state_1_-",
	"checkpoint_state_-_1", "checkpoint_state_007_08",
}

// TestStatusPipelineMatchesSscanf: the hand parser accepts and returns
// exactly what Sscanf did on status keys and near misses.
func TestStatusPipelineMatchesSscanf(t *testing.T) {
	for _, k := range statusKeys {
		j, p, ok := statusPipeline(k)
		wj, wp, wok := sscanfStatusPipeline(k)
		if j != wj || p != wp || ok != wok {
			t.Errorf("statusPipeline(%q) = %d, %d, %v; Sscanf gives %d, %d, %v", k, j, p, ok, wj, wp, wok)
		}
	}
}

// FuzzStatusPipeline compares the two parsers on any printable key.
func FuzzStatusPipeline(f *testing.F) {
	for _, k := range statusKeys {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		// Status keys are coord's "checkpoint_state_%d_%d" output: printable
		// ASCII without spaces (Sscanf would skip a space before a number).
		for i := 0; i < len(k); i++ {
			if k[i] <= ' ' || k[i] >= 0x7f {
				t.Skip()
			}
		}
		j, p, ok := statusPipeline(k)
		wj, wp, wok := sscanfStatusPipeline(k)
		if j != wj || p != wp || ok != wok {
			t.Errorf("statusPipeline(%q) = %d, %d, %v; Sscanf gives %d, %d, %v", k, j, p, ok, wj, wp, wok)
		}
	})
}

// TestTaskStateMatchesAppendf: the acknowledged state bytes are what
// fmt.Appendf made.
func TestTaskStateMatchesAppendf(t *testing.T) {
	cl := &Cluster{}
	for _, c := range [][4]int64{{0, 0, 0, 1}, {3, 499, 1, 12345}, {-1, 7, 2, 0}, {1 << 40, 1, 1, -5}} {
		got := string(cl.taskState(c[0], int(c[1]), coord.TaskID(c[2]), c[3]))
		want := string(fmt.Appendf(nil, "state-%d-%d-%d-%d", c[0], c[1], c[2], c[3]))
		if got != want {
			t.Errorf("taskState%v = %q, want %q", c, got, want)
		}
	}
}

// TestTaskStatesDoNotShareBytes: states carved from one buffer stay
// intact when a holder appends to one of them.
func TestTaskStatesDoNotShareBytes(t *testing.T) {
	cl := &Cluster{}
	var states [][]byte
	for i := range 500 { // more than one 8 KiB buffer
		states = append(states, cl.taskState(1, i, 1, int64(i)))
	}
	for i, s := range states {
		_ = append(s, "clobber"...)
		if want := fmt.Sprintf("state-1-%d-1-%d", i, i); string(s) != want {
			t.Fatalf("state %d = %q, want %q", i, s, want)
		}
	}
	for i, s := range states {
		if want := fmt.Sprintf("state-1-%d-1-%d", i, i); string(s) != want {
			t.Fatalf("after appends, state %d = %q, want %q", i, s, want)
		}
	}
}

// TestRecordsInOrderAcrossChunks: the chunked event log yields every
// record once, in order, with Seq its index, and stops when asked.
func TestRecordsInOrderAcrossChunks(t *testing.T) {
	w := sim.New(sim.Config{Seed: 1})
	r := newRecorder(w)
	n := 2*recordChunk + 7
	for i := range n {
		r.observe(coord.Event{Kind: coord.EvTriggered, Job: 0, Pipeline: i % 3, ID: int64(i)})
	}
	i := 0
	for j, rec := range r.Records() {
		if j != i || rec.Seq != int64(i) || rec.ID != int64(i) {
			t.Fatalf("record %d: index %d, Seq %d, ID %d", i, j, rec.Seq, rec.ID)
		}
		i++
	}
	if i != n {
		t.Fatalf("%d records, want %d", i, n)
	}
	i = 0
	for range r.Records() {
		if i++; i == recordChunk+1 {
			break
		}
	}
	if i != recordChunk+1 {
		t.Fatalf("stopped after %d", i)
	}
}
