package linearizability

import (
	"fmt"
	"math"
	"sync"

	"github.com/anishathalye/porcupine"

	"github.com/ckptsim/ckptsim/model"
)

// Clock chooses how a Recorder turns virtual nanoseconds into porcupine
// timestamps.
type Clock int

const (
	// Logical stamps every call and return with a strictly increasing
	// number, virtual ns << 10 plus a counter within the nanosecond (it
	// borrows from the next nanosecond after 1024 stamps, staying strictly
	// increasing). Two operations that follow each other in one virtual
	// instant therefore stay ordered, as they were in the run; operations
	// are concurrent only when they really overlapped. Virtual time handed
	// to the recorder must never decrease. This is the default.
	Logical Clock = iota
	// Virtual uses virtual ns as they are. Operations that touch the same
	// instant are concurrent (porcupine's intervals are closed), which is
	// weaker and slower to check; use it for histories written after the
	// fact, such as testdata files.
	Virtual
)

// MalformedError is a refusal of the recorder: the history would not mean
// what the run did.
type MalformedError struct {
	Actor  string
	Input  any
	Detail string
}

func (e *MalformedError) Error() string {
	if e.Actor == "" {
		return "malformed history: " + e.Detail
	}
	return fmt.Sprintf("malformed history: actor %q, %v: %s", e.Actor, e.Input, e.Detail)
}

// Recorder records a history of operations, one client id per actor. It is
// safe for concurrent use. It refuses, with a *MalformedError, an operation
// that returns before its call, an operation that overlaps an earlier one of
// the same actor, and (with the Logical clock) virtual time that goes
// backwards; a refused operation is not recorded and Err keeps the first
// refusal. An operation cut by a failover (Cut) returns at math.MaxInt64
// with output model.Unknown{} and gets a client id of its own, so its actor
// may go on.
type Recorder struct {
	mu      sync.Mutex
	clock   Clock
	lastNs  int64 // Logical: latest virtual time seen
	lastTs  int64 // Logical: latest timestamp handed out
	actors  map[string]*actor
	clients int
	ops     []porcupine.Operation
	open    map[int]*openOp
	nextOp  int
	err     error
}

type actor struct {
	client  int
	open    bool
	lastRet int64 // timestamp of the actor's last return; -1 none
}

type openOp struct {
	actor  string
	input  any
	callNs int64
	call   int64
}

// Op is the handle of an invoked operation.
type Op struct{ id int }

// NewRecorder returns an empty recorder using clock c.
func NewRecorder(c Clock) *Recorder {
	return &Recorder{clock: c, lastNs: math.MinInt64, lastTs: math.MinInt64,
		actors: map[string]*actor{}, open: map[int]*openOp{}}
}

// Invoke records the call of an operation by actor at virtual time nowNs.
// Return or Cut it later.
func (r *Recorder) Invoke(actorName string, nowNs int64, input any) (Op, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.actor(actorName)
	if a.open {
		return Op{}, r.refuse(actorName, input, "overlaps the actor's operation still in progress")
	}
	call, err := r.stamp(actorName, input, nowNs)
	if err != nil {
		return Op{}, err
	}
	if call <= a.lastRet {
		return Op{}, r.refuse(actorName, input, fmt.Sprintf(
			"overlaps the actor's previous operation (call %d <= its return %d)", call, a.lastRet))
	}
	a.open = true
	r.nextOp++
	r.open[r.nextOp] = &openOp{actor: actorName, input: input, callNs: nowNs, call: call}
	return Op{r.nextOp}, nil
}

// Return records the return of op at virtual time nowNs with its output.
func (r *Recorder) Return(op Op, nowNs int64, output any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.take(op)
	if err != nil {
		return err
	}
	if nowNs < o.callNs {
		return r.refuse(o.actor, o.input, fmt.Sprintf("returns at %d ns, before its call at %d ns", nowNs, o.callNs))
	}
	ret, err := r.stamp(o.actor, o.input, nowNs)
	if err != nil {
		return err
	}
	r.finish(o, ret, output)
	return nil
}

// SetInput replaces the input of an operation still in progress: for an
// observer that learns what an operation was only when it returns (the
// generation a restore installed, the generation a failure failed), while
// its call must keep its place in the history.
func (r *Recorder) SetInput(op Op, input any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, ok := r.open[op.id]
	if !ok {
		return r.refuse("", input, fmt.Sprintf("operation %d is not in progress", op.id))
	}
	o.input = input
	return nil
}

// Cut records that op's outcome is unknown (for example, a failover cut it):
// it may or may not have taken effect, at any time after its call.
func (r *Recorder) Cut(op Op) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	o, err := r.take(op)
	if err != nil {
		return err
	}
	r.cut(o)
	return nil
}

// CutOpen cuts every operation still in progress (call it at the end of a
// run) and returns how many there were.
func (r *Recorder) CutOpen() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for id := 1; id <= r.nextOp; id++ {
		if o, ok := r.open[id]; ok {
			delete(r.open, id)
			r.actors[o.actor].open = false
			r.cut(o)
			n++
		}
	}
	return n
}

// Record records a whole operation at once. With the Logical clock callNs
// must not be earlier than any virtual time already recorded (the operation
// is stamped as it is recorded); use Invoke and Return for operations that
// span other recordings.
func (r *Recorder) Record(actorName string, callNs, returnNs int64, input, output any) error {
	if returnNs < callNs {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.refuse(actorName, input, fmt.Sprintf("returns at %d ns, before its call at %d ns", returnNs, callNs))
	}
	op, err := r.Invoke(actorName, callNs, input)
	if err != nil {
		return err
	}
	return r.Return(op, returnNs, output)
}

// Operations returns a copy of the recorded history (returned and cut
// operations, in the order they completed). Operations still in progress are
// not included; CutOpen them first.
func (r *Recorder) Operations() []porcupine.Operation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]porcupine.Operation(nil), r.ops...)
}

// Open returns the number of operations in progress.
func (r *Recorder) Open() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.open)
}

// Err returns the first refusal, or nil.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *Recorder) actor(name string) *actor {
	a, ok := r.actors[name]
	if !ok {
		a = &actor{client: r.clients, lastRet: math.MinInt64}
		r.clients++
		r.actors[name] = a
	}
	return a
}

// stamp turns nowNs into a timestamp; r.mu is held.
func (r *Recorder) stamp(actorName string, input any, nowNs int64) (int64, error) {
	if r.clock == Virtual {
		return nowNs, nil
	}
	if nowNs < r.lastNs {
		return 0, r.refuse(actorName, input, fmt.Sprintf("virtual time went backwards: %d ns after %d ns", nowNs, r.lastNs))
	}
	if nowNs > math.MaxInt64>>10-1 {
		return 0, r.refuse(actorName, input, fmt.Sprintf("virtual time %d ns is too large for the logical clock", nowNs))
	}
	r.lastNs = nowNs
	r.lastTs = max(nowNs<<10, r.lastTs+1)
	return r.lastTs, nil
}

func (r *Recorder) take(op Op) (*openOp, error) {
	o, ok := r.open[op.id]
	if !ok {
		return nil, r.refuse("", nil, fmt.Sprintf("operation %d is not in progress (returned twice, or never invoked)", op.id))
	}
	delete(r.open, op.id)
	r.actors[o.actor].open = false
	return o, nil
}

func (r *Recorder) finish(o *openOp, ret int64, output any) {
	a := r.actors[o.actor]
	a.lastRet = ret
	r.ops = append(r.ops, porcupine.Operation{ClientId: a.client, Input: o.input, Call: o.call,
		Output: output, Return: ret, Metadata: o.actor})
}

func (r *Recorder) cut(o *openOp) {
	client := r.clients
	r.clients++
	r.ops = append(r.ops, porcupine.Operation{ClientId: client, Input: o.input, Call: o.call,
		Output: model.Unknown{}, Return: math.MaxInt64, Metadata: o.actor + " (cut)"})
}

func (r *Recorder) refuse(actorName string, input any, detail string) error {
	err := &MalformedError{Actor: actorName, Input: input, Detail: detail}
	if r.err == nil {
		r.err = err
	}
	return err
}
