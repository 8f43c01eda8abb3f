// Package variant is the one registry of named variants: behaviours that
// were later fixed upstream and stay selectable, so that the harness can
// show each historical hazard and that its fix holds. It covers the
// coordinator (core/coord) and the scheduler (core/sched), the scheduler
// design included.
//
// A Set holds one typed value per key; its zero value is the fixed design
// everywhere. Keys and values are spelled as simrun's --variant key=value
// and a scenario's variants map spell them; Parse and Check are the only
// places they are read, Keys the only place they are listed. An unknown
// key or value is an error naming the key and the values it allows.
//
// Adding a value to an existing key is one line in the registry below (a
// scheduler design: one line in sched.Designs, which the registry reads).
package variant

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/core/sched"
)

// Fence is expiry-fence and deferred-fence: whether deferred work of an
// earlier generation is dropped (H1, H9).
type Fence uint8

// The fence values.
const (
	FenceGeneration Fence = iota // fail only the generation that armed the work
	FenceNone                    // fail whatever generation is current when it runs
)

// SavepointWait is savepoint-wait (H5).
type SavepointWait uint8

// The savepoint-wait values.
const (
	WaitOutsideLock SavepointWait = iota // sleep-poll outside coord.lock
	WaitUnderLock                        // sleep-poll holding coord.lock
)

// TriggerErrors is trigger-errors (H4).
type TriggerErrors uint8

// The trigger-errors values.
const (
	ErrorsReport TriggerErrors = iota // a failed trigger fails the generation
	ErrorsSilent                      // it only fails the scheduler task
)

// Continuation is barrier-continuation (H6).
type Continuation uint8

// The barrier-continuation values.
const (
	ContinueAsync  Continuation = iota // thenAcceptAsync: hop to the executor
	ContinueInline                     // thenAccept: run on the lock holder when complete
)

// ExpiryExec is expiry-exec.
type ExpiryExec uint8

// The expiry-exec values.
const (
	ExpireOnExecutor ExpiryExec = iota // the expiry hops to the coordinator executor
	ExpireInline                       // the watchdog expires on its own thread
)

// ExpiryFallback is expiry-fallback (H11).
type ExpiryFallback uint8

// The expiry-fallback values.
const (
	FallbackInline ExpiryFallback = iota // a rejected expiry runs inline
	FallbackDrop                         // a rejected expiry is dropped
)

// Recheck is watchdog-recheck (H2).
type Recheck uint8

// The watchdog-recheck values.
const (
	RecheckPending Recheck = iota // the watchdog re-checks "still pending"
	RecheckNone                   // it expires whatever it finds
)

// Retention is retention (H10).
type Retention uint8

// The retention values.
const (
	RetainDurable Retention = iota // the deque is rebuilt from storage on restore
	RetainMemory                   // the deque lives in memory only
)

// IdleRestore is idle-restore (#12042): whether a restore keeps the
// closed-idle state of a pipeline's tasks.
type IdleRestore uint8

// The idle-restore values.
const (
	IdleRebuild IdleRestore = iota // rebuilt from the restored state
	IdleForget                     // forgotten: closed tasks get barriers again
)

// The keys below each keep one upstream behaviour that a ledger finding
// (results/findings/Fnnn) fixed in the port; the default is the fix.

// Decrement is pending-decrement (F002).
type Decrement uint8

// The pending-decrement values.
const (
	DecrementIfPending Decrement = iota // only a completion that still finds its checkpoint pending
	DecrementAlways                     // every completion, after a clean zeroed the counter too
)

// SchemaRecommit is schema-recommit (F004): whether a restore's re-commit
// of a SCHEMA_CHANGE_AFTER checkpoint ends a schema change.
type SchemaRecommit uint8

// The schema-recommit values.
const (
	RecommitKeeps SchemaRecommit = iota // a restored SCHEMA_CHANGE_AFTER ends no schema change
	RecommitEnds                        // it tries to end one, and fails the generation when none is on
)

// FinishFuture is finish-future (F005): which future a final completion ends.
type FinishFuture uint8

// The finish-future values.
const (
	FinishOwn     FinishFuture = iota // the future of the generation that completed
	FinishCurrent                     // the future current after the status write (a restore's)
)

// CompletionFallback is completion-fallback (F006).
type CompletionFallback uint8

// The completion-fallback values.
const (
	CompletionInline CompletionFallback = iota // a rejected completion handler runs inline
	CompletionDrop                             // it is lost
)

// DroppedSchema is dropped-schema-change (F008): what guard 5 does with a
// schema change whose trigger it drops.
type DroppedSchema uint8

// The dropped-schema-change values.
const (
	DroppedSchemaEnds  DroppedSchema = iota // the schema change ends
	DroppedSchemaKeeps                      // schemaChanging stays set
)

// StatusFence is status-fence (F013).
type StatusFence uint8

// The status-fence values.
const (
	StatusGeneration StatusFence = iota // a replaced generation's status write is skipped
	StatusNone                          // every write lands, whatever generation wrote it
)

// PeriodicArm is periodic-arm (F015).
type PeriodicArm uint8

// The periodic-arm values.
const (
	ArmNewChain  PeriodicArm = iota // arming ends the live chain
	ArmLiveChain                    // arming adds a trigger to the live chain
)

// TriggerFence is trigger-fence (F019, F029).
type TriggerFence uint8

// The trigger-fence values.
const (
	TriggerGeneration TriggerFence = iota // a trigger or re-arm of a replaced generation stops
	TriggerNone                           // it runs on in whatever generation is current
)

// FinalRearm is final-rearm (F023).
type FinalRearm uint8

// The final-rearm values.
const (
	FinalRearmLease FinalRearm = iota // a failed final trigger is re-armed on the lease
	FinalRearmNone                    // its error goes back to the reporting task
)

// FinalRestore is final-restore (F025).
type FinalRestore uint8

// The final-restore values.
const (
	FinalWaitsRestore FinalRestore = iota // the final trigger waits for a restore in flight
	FinalRacesRestore                     // it runs at once
)

// RestoreChain is restore-chain (F029): which periodic chain a restore's
// resume continues.
type RestoreChain uint8

// The restore-chain values.
const (
	ChainNew  RestoreChain = iota // a new chain: a late re-arm of the old one does nothing
	ChainLive                     // the live chain's token (upstream has none): a late re-arm runs on beside it
)

// NotifyWait is notify-wait (F027): what a failure's handler does between
// telling the job master and its clean.
type NotifyWait uint8

// The notify-wait values.
const (
	NotifyNone    NotifyWait = iota // it cleans at once
	NotifyBackoff                   // it waits one status backoff first (the job master's call blocks on the handler's thread)
)

// RestoreLoad is restore-load (F001): how a restore reads the ready-to-close
// set, and what a failed read leaves.
type RestoreLoad uint8

// The restore-load values.
const (
	LoadRetries RestoreLoad = iota // through the status retry loop, after the old generation's clean
	LoadOnce                       // one read before the clean; a failed read ends the restore there, and the redeploy follows
)

// StatusPanic is status-panic (F039): whether the status retry loop
// retries a status-store call that panicked (a contained PluginPanic).
type StatusPanic uint8

// The status-panic values.
const (
	PanicRetry StatusPanic = iota // retried as a retryable failure is (every status operation is idempotent)
	PanicDrop                     // it ends the loop at once, and updateStatus drops the write
)

// SavepointList is savepoint-list (F040): what the savepoint store's
// listing does with a bundle the file system failed to read.
type SavepointList uint8

// The savepoint-list values.
const (
	ListFail           SavepointList = iota // the listing fails with the read error
	ListSkipUnreadable                      // the bundle is left out, as a corrupt one is
)

// CheckpointDelete is checkpoint-delete (F036): whether the production
// checkpoint store's Delete makes the delete durable.
type CheckpointDelete uint8

// The checkpoint-delete values.
const (
	DeleteSync   CheckpointDelete = iota // Delete syncs the pipeline directory after the remove
	DeleteNoSync                         // it removes the file only: a storage crash may bring it back
)

// CheckpointChecksum is checkpoint-checksum (F035): whether a restore
// compares the latest stored checkpoint with the checksum it carries
// (Completed.Sum) before loading it.
type CheckpointChecksum uint8

// The checkpoint-checksum values.
const (
	ChecksumVerify CheckpointChecksum = iota // a checkpoint that fails its Sum is skipped for the newest intact one
	ChecksumIgnore                           // the Sum is never compared: rotted bytes are loaded and handed to the tasks
)

// AckMatch is ack-match (F032): how an acknowledgement that carries its
// barrier is matched to the pending checkpoint.
type AckMatch uint8

// The ack-match values.
const (
	MatchStamp AckMatch = iota // by id and trigger timestamp: an acknowledgement of another trigger of the id is dropped
	MatchID                    // by id alone: a replaced generation's final acknowledgement counts for the restored final
)

// Set is one value per variant key. The zero value is the fixed design;
// an empty Design, TaskFailure, CancelAll or CloseTasks means the scheduler's default (or the
// scenario's scheduler.design).
type Set struct {
	Design              sched.Design       // design
	TaskFailure         sched.TaskFailure  // task-failure              H3
	ExpiryFence         Fence              // expiry-fence              H1
	DeferredFence       Fence              // deferred-fence            H9
	SavepointWait       SavepointWait      // savepoint-wait            H5
	TriggerErrors       TriggerErrors      // trigger-errors            H4
	BarrierContinuation Continuation       // barrier-continuation      H6
	ExpiryExec          ExpiryExec         // expiry-exec
	ExpiryFallback      ExpiryFallback     // expiry-fallback           H11
	WatchdogRecheck     Recheck            // watchdog-recheck          H2
	Retention           Retention          // retention                 H10
	IdleRestore         IdleRestore        // idle-restore              #12042
	PendingDecrement    Decrement          // pending-decrement         F002
	SchemaRecommit      SchemaRecommit     // schema-recommit           F004
	FinishFuture        FinishFuture       // finish-future             F005
	CompletionFallback  CompletionFallback // completion-fallback       F006
	DroppedSchemaChange DroppedSchema      // dropped-schema-change     F008
	StatusFence         StatusFence        // status-fence              F013
	PeriodicArm         PeriodicArm        // periodic-arm              F015
	TriggerFence        TriggerFence       // trigger-fence             F019, F029
	FinalRearm          FinalRearm         // final-rearm               F023
	FinalRestore        FinalRestore       // final-restore             F025
	RestoreLoad         RestoreLoad        // restore-load              F001
	RestoreChain        RestoreChain       // restore-chain             F029
	NotifyWait          NotifyWait         // notify-wait               F027
	CancelAll           sched.CancelAllSet // cancel-all                F026
	CloseTasks          sched.CloseTasks   // close-tasks               F010
	StatusPanic         StatusPanic        // status-panic              F039
	SavepointList       SavepointList      // savepoint-list            F040
	CheckpointDelete    CheckpointDelete   // checkpoint-delete         F036
	AckMatch            AckMatch           // ack-match                 F032
	CheckpointChecksum  CheckpointChecksum // checkpoint-checksum       F035
}

// Key is one registry entry: its name, its values (default first) and how
// it reads and writes a Set.
type Key struct {
	Name   string
	Values []string
	set    func(*Set, int)
	index  func(*Set) int // -1 for an unset named value
}

// keys is the registry, in listing order.
var keys = []Key{
	named("design", func(s *Set) *sched.Design { return &s.Design }, sched.Designs),
	named("task-failure", func(s *Set) *sched.TaskFailure { return &s.TaskFailure }, sched.TaskFailures),
	enum("expiry-fence", func(s *Set) *Fence { return &s.ExpiryFence }, "generation", "none"),
	enum("deferred-fence", func(s *Set) *Fence { return &s.DeferredFence }, "generation", "none"),
	enum("savepoint-wait", func(s *Set) *SavepointWait { return &s.SavepointWait }, "outside-lock", "under-lock"),
	enum("trigger-errors", func(s *Set) *TriggerErrors { return &s.TriggerErrors }, "report", "silent"),
	enum("barrier-continuation", func(s *Set) *Continuation { return &s.BarrierContinuation }, "async", "inline"),
	enum("expiry-exec", func(s *Set) *ExpiryExec { return &s.ExpiryExec }, "executor", "inline"),
	enum("expiry-fallback", func(s *Set) *ExpiryFallback { return &s.ExpiryFallback }, "inline", "drop"),
	enum("watchdog-recheck", func(s *Set) *Recheck { return &s.WatchdogRecheck }, "pending", "none"),
	enum("retention", func(s *Set) *Retention { return &s.Retention }, "durable", "memory"),
	enum("idle-restore", func(s *Set) *IdleRestore { return &s.IdleRestore }, "rebuild", "forget"),
	enum("pending-decrement", func(s *Set) *Decrement { return &s.PendingDecrement }, "if-pending", "always"),
	enum("schema-recommit", func(s *Set) *SchemaRecommit { return &s.SchemaRecommit }, "keeps", "ends"),
	enum("finish-future", func(s *Set) *FinishFuture { return &s.FinishFuture }, "own", "current"),
	enum("completion-fallback", func(s *Set) *CompletionFallback { return &s.CompletionFallback }, "inline", "drop"),
	enum("dropped-schema-change", func(s *Set) *DroppedSchema { return &s.DroppedSchemaChange }, "ends", "keeps"),
	enum("status-fence", func(s *Set) *StatusFence { return &s.StatusFence }, "generation", "none"),
	enum("periodic-arm", func(s *Set) *PeriodicArm { return &s.PeriodicArm }, "new-chain", "live-chain"),
	enum("trigger-fence", func(s *Set) *TriggerFence { return &s.TriggerFence }, "generation", "none"),
	enum("final-rearm", func(s *Set) *FinalRearm { return &s.FinalRearm }, "lease", "none"),
	enum("final-restore", func(s *Set) *FinalRestore { return &s.FinalRestore }, "waits", "races"),
	enum("restore-load", func(s *Set) *RestoreLoad { return &s.RestoreLoad }, "retries", "once"),
	enum("restore-chain", func(s *Set) *RestoreChain { return &s.RestoreChain }, "new", "live"),
	enum("notify-wait", func(s *Set) *NotifyWait { return &s.NotifyWait }, "none", "backoff"),
	named("cancel-all", func(s *Set) *sched.CancelAllSet { return &s.CancelAll }, sched.CancelAllSets),
	named("close-tasks", func(s *Set) *sched.CloseTasks { return &s.CloseTasks }, sched.CloseTasksValues),
	enum("status-panic", func(s *Set) *StatusPanic { return &s.StatusPanic }, "retry", "drop"),
	enum("savepoint-list", func(s *Set) *SavepointList { return &s.SavepointList }, "fail", "skip-unreadable"),
	enum("checkpoint-delete", func(s *Set) *CheckpointDelete { return &s.CheckpointDelete }, "sync", "no-sync"),
	enum("ack-match", func(s *Set) *AckMatch { return &s.AckMatch }, "stamp", "id"),
	enum("checkpoint-checksum", func(s *Set) *CheckpointChecksum { return &s.CheckpointChecksum }, "verify", "ignore"),
}

// enum is a key whose values are the constants 0, 1, ... of T, spelled
// names in that order.
func enum[T ~uint8](name string, field func(*Set) *T, names ...string) Key {
	return Key{Name: name, Values: names,
		set:   func(s *Set, i int) { *field(s) = T(i) },
		index: func(s *Set) int { return int(*field(s)) }}
}

// named is a key whose values are string constants spelled as themselves.
func named[T ~string](name string, field func(*Set) *T, vals []T) Key {
	names := make([]string, len(vals))
	for i, v := range vals {
		names[i] = string(v)
	}
	return Key{Name: name, Values: names,
		set:   func(s *Set, i int) { *field(s) = vals[i] },
		index: func(s *Set) int { return slices.Index(vals, *field(s)) }}
}

// Keys returns the registry in listing order.
func Keys() []Key { return slices.Clone(keys) }

// Lookup returns the key called name.
func Lookup(name string) (Key, error) {
	for _, k := range keys {
		if k.Name == name {
			return k, nil
		}
	}
	return Key{}, fmt.Errorf("unknown variant key %q", name)
}

// Set applies key=value to s.
func (s *Set) Set(key, value string) error {
	k, err := Lookup(key)
	if err != nil {
		return err
	}
	i := slices.Index(k.Values, value)
	if i < 0 {
		return fmt.Errorf("unknown value %q for variant %s (want %s)", value, key, alternatives(k.Values))
	}
	k.set(s, i)
	return nil
}

// Check validates one key=value.
func Check(key, value string) error {
	var s Set
	return s.Set(key, value)
}

// Parse reads a key -> value map (a scenario's variants, --variant flags),
// in key order so that the first error is always the same one.
func Parse(m map[string]string) (Set, error) {
	var s Set
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if err := s.Set(k, m[k]); err != nil {
			return Set{}, err
		}
	}
	return s, nil
}

// ParsePairs reads "key=value[,key=value...]" as simrun's --variant and
// --with take it, checking every pair; "fixed" alone is the empty map.
func ParsePairs(s string) (map[string]string, error) {
	out := map[string]string{}
	if s == "fixed" {
		return out, nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("want key=value, got %q (keys: see simrun list)", kv)
		}
		if err := Check(k, val); err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}

// String lists the values that differ from the default as key=value in
// registry order, "fixed" when none does.
func (s Set) String() string {
	var parts []string
	for _, k := range keys {
		if i := k.index(&s); i > 0 {
			parts = append(parts, k.Name+"="+k.Values[i])
		}
	}
	if len(parts) == 0 {
		return "fixed"
	}
	return strings.Join(parts, ",")
}

// Listing returns "key=v1|v2|..." lines, default first, for simrun list.
func Listing() []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Name + "=" + strings.Join(k.Values, "|")
	}
	return out
}

// alternatives spells values as "a, b or c".
func alternatives(vs []string) string {
	if len(vs) < 2 {
		return strings.Join(vs, "")
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}
