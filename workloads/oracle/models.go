package oracle

import (
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/linearizability"
	"github.com/ckptsim/ckptsim/model"
)

// The porcupine models (model-generation, model-register,
// model-savepoints, model-watermark): each history the harness recorded at
// the boundaries (its restores and failure notifications, storage's stores
// and reads, savepoint commits and listings, the pipelines' epochs,
// resolutions and commits) linearizes against its model.

// History is one recorded history and the model it is checked against.
type History struct {
	Spec model.Spec
	Ops  []porcupine.Operation
}

// ModelCheckID is the check id of a porcupine model.
func ModelCheckID(model string) string { return "model-" + model }

// CheckModels checks each history against its model within opt's bounds
// (model steps and search memory per partition, the heap and wall-clock
// backstops), reports each illegal one as a finding of its model's check
// (at at, subject the failing partition), and returns every verdict in
// order: an unknown one (a bound ran out) is no finding, and the harness
// says so in the run's verdict.
func CheckModels(f *Findings, at time.Duration, hs []History, opt linearizability.Options) []linearizability.Verdict {
	var out []linearizability.Verdict
	for _, h := range hs {
		v := linearizability.CheckWith(h.Spec, h.Ops, opt)
		if !v.Pass() && v.Result != linearizability.Unknown {
			f.Add(ModelCheckID(v.Model), at, v.Partition, "%s", v.Message)
		}
		out = append(out, v)
	}
	return out
}
