package linearizability_test

import (
	"fmt"
	"time"

	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
)

// The simulator records each model's operations in virtual time, cuts the
// operations a failover interrupted, and checks after the run.
func Example() {
	rec := linearizability.NewRecorder(linearizability.Logical)
	const s = int64(time.Second)

	// Pipeline 1 completes checkpoint 7 ...
	op, _ := rec.Invoke("coordinator-1", 1*s, model.Complete{Pipeline: 1, ID: 7})
	_ = rec.Return(op, 1*s+200e6, nil)

	// ... a failover cuts the completion of checkpoint 8 ...
	op, _ = rec.Invoke("coordinator-1", 11*s, model.Complete{Pipeline: 1, ID: 8})
	_ = rec.Cut(op)

	// ... and the restore reads checkpoint 7: legal, since 8 may not have
	// been stored.
	_ = rec.Record("master", 12*s, 12*s, model.ReadLatest{Pipeline: 1}, model.ReadResult{ID: 7})

	r := linearizability.Report{Run: "scenario failover seed 42", Replay: "simrun replay failover --seed 42"}
	r.Add(linearizability.Check(model.Register, rec.Operations(), 30*time.Second))
	for _, v := range r.Verdicts {
		fmt.Println(v.Model, v.Result, v.Ops)
	}
	fmt.Println("pass:", r.Pass())
	// Output:
	// register ok 3
	// pass: true
}
