package watermark

import "github.com/ckptsim/ckptsim/core/env"

// registration announces a newly issued batch; it is queued before the
// batch's Ack exists.
type registration struct {
	id         BatchID
	lastOffset int64
}

// resolution reports that every holder of a batch's Ack resolved it.
type resolution struct {
	id     BatchID
	failed bool
}

// inbox is the unbounded hand-off from issuers and acks (any thread) to the
// Checkpointer (one thread), plus the state the checkpointer publishes back
// to issuers.
//
// mu guards every field. It is a leaf lock: nothing else is taken while
// holding it, and holders only append, swap slices or update counters, so
// it is never held across a blocking call and issuing or resolving never
// waits on queue capacity.
type inbox struct {
	e    Env // for the issuers' probe (hit); immutable
	mu   env.Mutex
	regs []registration
	acks []resolution

	// epoch is the current epoch, published by the checkpointer after its
	// trackers for it exist.
	epoch Epoch
	// retired counts, per tracked partition of epoch, the batches
	// TakeWatermarks advanced past: the pending-ceiling input.
	retired map[Partition]uint64
	ceiling int // Options.PendingCeiling; immutable

	doubleResolved  int
	addAfterResolve int
}

func newInbox(e Env, ceiling int) *inbox {
	return &inbox{e: e, mu: e.NewMutex("watermark.queue"), ceiling: ceiling, retired: map[Partition]uint64{}}
}

func (in *inbox) pushResolution(r resolution) {
	in.mu.Lock()
	in.acks = append(in.acks, r)
	in.mu.Unlock()
}

// takeRegs returns the queued registrations and leaves spare, emptied, as
// the new queue.
func (in *inbox) takeRegs(spare []registration) []registration {
	in.mu.Lock()
	out := in.regs
	in.regs = spare[:0]
	in.mu.Unlock()
	return out
}

// takeAcks is takeRegs for resolutions.
func (in *inbox) takeAcks(spare []resolution) []resolution {
	in.mu.Lock()
	out := in.acks
	in.acks = spare[:0]
	in.mu.Unlock()
	return out
}

// publish makes epoch current for issuers with fresh retirement counters
// for partitions.
func (in *inbox) publish(epoch Epoch, partitions []Partition) {
	in.mu.Lock()
	in.epoch = epoch
	in.retired = make(map[Partition]uint64, len(partitions))
	for _, p := range partitions {
		in.retired[p] = 0
	}
	in.mu.Unlock()
}

// admit adds fresh retirement counters within the current epoch.
func (in *inbox) admit(partitions []Partition) {
	in.mu.Lock()
	for _, p := range partitions {
		in.retired[p] = 0
	}
	in.mu.Unlock()
}

// forget drops retirement counters of revoked partitions.
func (in *inbox) forget(partitions []Partition) {
	in.mu.Lock()
	for _, p := range partitions {
		delete(in.retired, p)
	}
	in.mu.Unlock()
}

// retire adds the batches TakeWatermarks advanced past.
func (in *inbox) retire(counts []retiredCount) {
	in.mu.Lock()
	for _, rc := range counts {
		if _, ok := in.retired[rc.p]; ok {
			in.retired[rc.p] += uint64(rc.n)
		}
	}
	in.mu.Unlock()
}

type retiredCount struct {
	p Partition
	n int
}

func (in *inbox) countDoubleResolve() {
	in.mu.Lock()
	in.doubleResolved++
	in.mu.Unlock()
}

func (in *inbox) countAddAfterResolve() {
	in.mu.Lock()
	in.addAfterResolve++
	in.mu.Unlock()
}

func (in *inbox) misuse() (doubleResolved, addAfterResolve int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.doubleResolved, in.addAfterResolve
}
