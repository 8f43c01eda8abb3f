package sim

type timerEntry struct {
	at  int64
	seq uint64
	t   *thread
	gen uint64
	c   *cond // a WaitFor deadline: on firing, t leaves c's waiters and times out
}

// timerHeap is a min-heap by (at, seq). push and pop are container/heap's
// algorithms on the concrete type (no boxing, so no allocation per timer),
// which keeps the order, and so every trace hash, unchanged.
type timerHeap []timerEntry

func (h timerHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h *timerHeap) push(e timerEntry) {
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

func (h *timerHeap) pop() timerEntry {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	old.down(0, n)
	e := old[n]
	*h = old[:n]
	return e
}

func (h timerHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h timerHeap) down(i0, n int) {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1 // left child
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2
		}
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// timerQueue is the pending timers, taken out in (at, seq) order. Keys are
// unique (seq counts every timer set), so the order of the entries taken
// out is fixed by the keys alone, whatever keeps them; that order, and so
// every trace hash, is the heap's. Most timers are set in key order (a
// thread sleeping its period again after a wake sets a deadline no
// earlier than the ones set before it): those go to a FIFO, a push and a
// pop in constant time, where a heap holding one pending timer per live
// thread took log2(threads) swaps each. A timer due before the FIFO's last
// one moves the FIFO's entries due after it to the heap (so one far
// deadline, a run's end or a long timeout, does not send every later
// timer to the heap), then joins the FIFO: each entry moves at most once.
// The next timer is the smaller of the two fronts.
type timerQueue struct {
	heap timerHeap
	fifo []timerEntry // in key order from fifo[head]
	head int
}

func (q *timerQueue) len() int { return len(q.heap) + len(q.fifo) - q.head }

func (q *timerQueue) push(e timerEntry) {
	for n := len(q.fifo); n > q.head && q.fifo[n-1].at > e.at; n-- { // seq grows: e comes after an equal at
		q.heap.push(q.fifo[n-1])
		q.fifo[n-1] = timerEntry{}
		q.fifo = q.fifo[:n-1]
	}
	q.fifo = append(q.fifo, e)
}

// fromFIFO reports whether the next timer is the FIFO's front (q.len() > 0).
func (q *timerQueue) fromFIFO() bool {
	if q.head == len(q.fifo) {
		return false
	}
	if len(q.heap) == 0 {
		return true
	}
	f, h := &q.fifo[q.head], &q.heap[0]
	return f.at < h.at || f.at == h.at && f.seq < h.seq
}

// peek returns the next timer; valid until the queue changes.
func (q *timerQueue) peek() *timerEntry {
	if q.fromFIFO() {
		return &q.fifo[q.head]
	}
	return &q.heap[0]
}

func (q *timerQueue) pop() timerEntry {
	if !q.fromFIFO() {
		return q.heap.pop()
	}
	e := q.fifo[q.head]
	q.fifo[q.head] = timerEntry{} // drop its pointers
	q.head++
	switch {
	case q.head == len(q.fifo):
		q.fifo, q.head = q.fifo[:0], 0
	case q.head >= 256 && 2*q.head >= len(q.fifo):
		n := copy(q.fifo, q.fifo[q.head:])
		clear(q.fifo[n:])
		q.fifo, q.head = q.fifo[:n], 0
	}
	return e
}
