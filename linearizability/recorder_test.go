package linearizability

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/ckptsim/ckptsim/model"
)

func TestRecorderLogicalClockKeepsOrderWithinAnInstant(t *testing.T) {
	rec := NewRecorder(Logical)
	must(t, rec.Record("coord", 100, 100, model.Complete{Pipeline: 1, ID: 1}, nil))
	must(t, rec.Record("master", 100, 100, model.ReadLatest{Pipeline: 1}, model.ReadResult{ID: 1}))
	must(t, rec.Record("coord", 100, 100, model.Complete{Pipeline: 1, ID: 2}, nil))
	ops := rec.Operations()
	for i := 1; i < len(ops); i++ {
		if ops[i].Call <= ops[i-1].Return {
			t.Fatalf("op %d [%d,%d] is not after op %d [%d,%d]", i, ops[i].Call, ops[i].Return, i-1, ops[i-1].Call, ops[i-1].Return)
		}
	}
	if ops[0].Call>>10 != 100 {
		t.Fatalf("call stamp %d does not read back as 100 ns", ops[0].Call)
	}
	// The same history with raw virtual time would make the stale read
	// below concurrent with completion 2, and so legal.
	must(t, rec.Record("master", 100, 100, model.ReadLatest{Pipeline: 1}, model.ReadResult{ID: 1}))
	if v := Check(model.Register, rec.Operations(), 0); v.Result != Illegal {
		t.Fatalf("stale read in one instant: %v, want illegal", v)
	}
}

func TestRecorderRefusals(t *testing.T) {
	in := model.Complete{Pipeline: 1, ID: 1}
	tests := []struct {
		name string
		run  func(r *Recorder) error
		want string
	}{
		{"return before call", func(r *Recorder) error {
			op, _ := r.Invoke("a", 10, in)
			return r.Return(op, 5, nil)
		}, "before its call"},
		{"overlap in progress", func(r *Recorder) error {
			r.Invoke("a", 10, in)
			_, err := r.Invoke("a", 11, in)
			return err
		}, "overlaps the actor's operation still in progress"},
		{"time goes backwards", func(r *Recorder) error {
			r.Record("a", 10, 10, in, nil)
			return r.Record("b", 9, 9, in, nil)
		}, "virtual time went backwards"},
		{"returned twice", func(r *Recorder) error {
			op, _ := r.Invoke("a", 10, in)
			r.Return(op, 11, nil)
			return r.Return(op, 12, nil)
		}, "not in progress"},
		{"cut after return", func(r *Recorder) error {
			op, _ := r.Invoke("a", 10, in)
			r.Return(op, 11, nil)
			return r.Cut(op)
		}, "not in progress"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := NewRecorder(Logical)
			err := tt.run(rec)
			var me *MalformedError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a MalformedError containing %q", err, tt.want)
			}
			if rec.Err() == nil {
				t.Fatal("Err() is nil after a refusal")
			}
		})
	}
}

func TestRecorderCutGetsItsOwnClient(t *testing.T) {
	rec := NewRecorder(Logical)
	op, err := rec.Invoke("coord", 10, model.Complete{Pipeline: 1, ID: 4})
	must(t, err)
	must(t, rec.Cut(op))
	must(t, rec.Record("coord", 20, 21, model.Complete{Pipeline: 1, ID: 5}, nil)) // the actor goes on
	_, err = rec.Invoke("master", 30, model.ReadLatest{Pipeline: 1})
	must(t, err)
	if n := rec.CutOpen(); n != 1 {
		t.Fatalf("CutOpen = %d, want 1", n)
	}
	ops := rec.Operations()
	if len(ops) != 3 {
		t.Fatalf("%d ops, want 3", len(ops))
	}
	cut, next, last := ops[0], ops[1], ops[2]
	if cut.Return != math.MaxInt64 || cut.Output != (model.Unknown{}) {
		t.Fatalf("cut op = %+v, want Return MaxInt64 and output Unknown", cut)
	}
	if cut.ClientId == next.ClientId || last.ClientId == cut.ClientId || last.Return != math.MaxInt64 {
		t.Fatalf("client ids: cut %d, coord %d, cut-open %d", cut.ClientId, next.ClientId, last.ClientId)
	}
	if rec.Open() != 0 {
		t.Fatalf("Open = %d after CutOpen", rec.Open())
	}
}

func TestRecorderConcurrentActors(t *testing.T) {
	rec := NewRecorder(Virtual)
	var wg sync.WaitGroup
	for a := range 8 {
		wg.Go(func() {
			for i := range 100 {
				at := int64(i * 10)
				if err := rec.Record(fmt.Sprint("actor", a), at, at+5, model.Complete{Pipeline: a, ID: int64(i + 1)}, nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if n := len(rec.Operations()); n != 800 {
		t.Fatalf("%d ops, want 800", n)
	}
	if v := Check(model.Register, rec.Operations(), 0); !v.Pass() {
		t.Fatal(v)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
