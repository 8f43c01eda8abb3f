package model

import "fmt"

// Generation operations, keyed by pipeline.
//
// The simulator records them from the coordinator:
//   - Restore around restoreCoordinator installing a new generation
//     (output nil);
//   - Trigger around a trigger body, with the generation it believes
//     current and the checkpoint id it allocated (output TriggerResult);
//   - Effect around a deferred failure (an expiry, or any deferred
//     handleCoordinatorError caller: kind names it), with the generation
//     that armed it (output EffectResult: which generation it failed, or
//     dropped);
//   - ReadGen around a read of the coordinator's generation and whether it
//     has failed (output ReadGenResult).
type (
	Restore struct {
		Pipeline int
		NewGen   int64
	}
	Trigger struct {
		Pipeline int
		Gen, ID  int64
	}
	Effect struct {
		Pipeline int
		Armed    int64  // the generation current when the effect was armed
		Kind     string // "expiry", "abort", "complete-failed", ...
		ID       int64  // checkpoint id, for the visualisation
	}
	ReadGen struct{ Pipeline int }

	TriggerResult struct{ Started bool }
	EffectResult  struct {
		Failed bool  // false: dropped as stale or already decided
		Gen    int64 // the generation it failed
	}
	ReadGenResult struct {
		Gen    int64
		Failed bool
	}
)

func (o Restore) Key() Key { return Key{ID: o.Pipeline} }
func (o Trigger) Key() Key { return Key{ID: o.Pipeline} }
func (o Effect) Key() Key  { return Key{ID: o.Pipeline} }
func (o ReadGen) Key() Key { return Key{ID: o.Pipeline} }

func (o Restore) String() string { return fmt.Sprintf("restore(g%d)", o.NewGen) }
func (o Trigger) String() string { return fmt.Sprintf("trigger(g%d, #%d)", o.Gen, o.ID) }
func (o Effect) String() string  { return fmt.Sprintf("%s(armed g%d, #%d)", o.Kind, o.Armed, o.ID) }
func (o ReadGen) String() string { return "status" }
func (r TriggerResult) String() string {
	if r.Started {
		return "started"
	}
	return "refused"
}
func (r EffectResult) String() string {
	if r.Failed {
		return fmt.Sprintf("failed g%d", r.Gen)
	}
	return "dropped"
}
func (r ReadGenResult) String() string {
	if r.Failed {
		return fmt.Sprintf("g%d FAILED", r.Gen)
	}
	return fmt.Sprintf("g%d running", r.Gen)
}

// GenerationState is one pipeline's coordinator generation. The first
// generation is 0.
type GenerationState struct {
	Gen    int64
	Failed bool
	LastID int64 // last checkpoint id started in this generation; 0 none
}

// Reasons a generation step is illegal.
const (
	ReasonGenRegress    Reason = "restore must install a newer generation"
	ReasonStaleTrigger  Reason = "trigger started in a generation that is not current"
	ReasonFailedTrigger Reason = "trigger started in a failed generation"
	ReasonIDRegress     Reason = "checkpoint ids must increase within a generation"
	ReasonWrongGenFail  Reason = "effect failed a generation other than the one that armed it"
	ReasonStaleFail     Reason = "effect armed in an earlier generation failed the current one"
	ReasonStatus        Reason = "status differs from the current generation"
)

// Apply is the sequential specification of one pipeline's generations.
func (s GenerationState) Apply(in, out any) (GenerationState, Reason) {
	next, why := s.apply(in, out)
	return tolerate(s, out, next, why)
}

func (s GenerationState) apply(in, out any) (GenerationState, Reason) {
	switch op := in.(type) {
	case Restore:
		if op.NewGen <= s.Gen {
			return s, ReasonGenRegress
		}
		return GenerationState{Gen: op.NewGen}, ""
	case Trigger:
		return s.trigger(op, out)
	case Effect:
		return s.effect(op, out)
	case ReadGen:
		return s.status(out)
	}
	return s, ReasonBadInput
}

func (s GenerationState) trigger(op Trigger, out any) (GenerationState, Reason) {
	var why Reason
	switch {
	case op.Gen != s.Gen:
		why = ReasonStaleTrigger
	case s.Failed:
		why = ReasonFailedTrigger
	case op.ID <= s.LastID:
		why = ReasonIDRegress
	}
	switch r := out.(type) {
	case Unknown:
		if why == "" {
			s.LastID = op.ID
		}
		return s, ""
	case TriggerResult:
		if !r.Started {
			return s, ""
		}
		if why == "" {
			s.LastID = op.ID
		}
		return s, why
	}
	return s, ReasonBadOutput
}

func (s GenerationState) effect(op Effect, out any) (GenerationState, Reason) {
	switch r := out.(type) {
	case Unknown:
		if op.Armed == s.Gen {
			s.Failed = true
		}
		return s, ""
	case EffectResult:
		switch {
		case !r.Failed:
			return s, ""
		case r.Gen != op.Armed:
			return s, ReasonWrongGenFail
		case op.Armed != s.Gen:
			return s, ReasonStaleFail
		}
		s.Failed = true
		return s, ""
	}
	return s, ReasonBadOutput
}

func (s GenerationState) status(out any) (GenerationState, Reason) {
	switch r := out.(type) {
	case Unknown:
		return s, ""
	case ReadGenResult:
		if r.Gen != s.Gen || r.Failed != s.Failed {
			return s, ReasonStatus
		}
		return s, ""
	}
	return s, ReasonBadOutput
}

// Describe renders the state for the visualisation.
func (s GenerationState) Describe() string {
	if s.Failed {
		return fmt.Sprintf("g%d FAILED last=#%d", s.Gen, s.LastID)
	}
	return fmt.Sprintf("g%d running last=#%d", s.Gen, s.LastID)
}

// Generation is the per-pipeline generation-fence model.
var Generation = newSpec("generation", GenerationState{},
	func(k Key) string { return fmt.Sprintf("pipeline %d", k.ID) },
	func(a, b GenerationState) bool { return a == b },
	func(s GenerationState) uint64 { return mix(mix(uint64(s.Gen), uint64(s.LastID)), b2u(s.Failed)) })
