package env

// Probe names a rare window or outcome in core code that a campaign must
// enter (FoundationDB's TEST/CODE_PROBE). Core calls Hit(e, probe) at the
// point of the window: between two sections of one operation under the
// same lock, where work handed to another thread can arrive late, in a
// fallback branch, where one part of a fan-out fails while others run, in
// each branch of the offset checkpointer's epoch handling. The simulator
// counts each probe's hits in a run; a campaign reports them, and the
// probe the default campaign leaves unhit fails `make test`
// (workloads/probes.go says which scenario must hit each one).
//
// A probe observes and never changes behaviour: Hit is not a scheduling
// point, draws no randomness and writes nothing to the trace. In wall
// mode it costs one type assertion (no allocation, no lock).
//
// The table is the list: one constant each, its comment naming the
// window and, where a BUGGIFY site widens it, the site (or why no site
// can widen it without changing what production does).
type Probe uint16

// The probes. Their names are stable: campaign reports and
// workloads/probes.go use them.
const (
	// ProbeRegisterLate: a pending checkpoint's registration hop reached
	// the pending map after a clean had run since the checkpoint was
	// created; it is refused and its future ends (coord register).
	// Widened by SiteRegisterLate (the hop arrives one pending back-off
	// late) and SiteCleanSlow (the clean holds coord.lock and is slow to
	// reach the pending map).
	ProbeRegisterLate Probe = iota + 1
	probeEnd
)

var probeNames = [...]string{"", "register-late"}

func (p Probe) String() string {
	if p == 0 || p >= probeEnd {
		return "probe?"
	}
	return probeNames[p]
}

// Probes returns every probe, in declaration order.
func Probes() []Probe {
	out := make([]Probe, 0, probeEnd-1)
	for p := Probe(1); p < probeEnd; p++ {
		out = append(out, p)
	}
	return out
}

// ParseProbe returns the probe with the given name.
func ParseProbe(name string) (Probe, bool) {
	for p := Probe(1); p < probeEnd; p++ {
		if probeNames[p] == name {
			return p, true
		}
	}
	return 0, false
}

// Prober is implemented by environments that count probe hits
// (sim.World). Probe must not be a scheduling point.
type Prober interface {
	Probe(p Probe)
}

// Hit records that core reached probe p. It does nothing unless e is a
// Prober: in wall mode it costs one type assertion.
func Hit(e Env, p Probe) {
	if pr, ok := e.(Prober); ok {
		pr.Probe(p)
	}
}
