package variant

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Profile is a named bundle of variant values: not a key of its own, it
// expands to key=value pairs (simrun --profile NAME). A value given with
// --variant for the same key wins over the profile's.
type Profile struct {
	Name  string
	About string
	// Values are the key=value pairs the profile sets, each with the
	// reason for it (the upstream behaviour it keeps).
	Values []ProfileValue
	// NotModelled lists behaviours of the profile's subject that no key
	// keeps yet, each with the reason.
	NotModelled []string
}

// ProfileValue is one key=value of a profile and why.
type ProfileValue struct {
	Key, Value, Why string
}

// profiles is the registry of profiles, in listing order.
var profiles = []Profile{{
	Name: "upstream",
	About: "Apache SeaTunnel Zeta's checkpoint coordinator as read at CheckpointCoordinator.java@0032ddc5 " +
		"(results/findings/FIDELITY.md): every key where the Java code behaves differently from the port " +
		"and the port keeps the Java behaviour as a value",
	// notify-wait=backoff (F027's window) is left out: it is a stall on
	// every failure's handler, not a code path upstream takes where the
	// port takes another, and it moves every schedule with a failure in it
	// (workloads/REFERENCE.md, Profiles).
	Values: []ProfileValue{
		{"task-failure", "kill-worker", "PipelineCheckpointTask L74 rethrows and kills the dispatch worker (H3)"},
		{"expiry-fence", "none", "the watchdog carries no generation (L962-992, H1)"},
		{"deferred-fence", "none", "error reports, completions and cleans carry no generation (L326-348, L509-514, L1154-1202; F012, F027)"},
		{"savepoint-wait", "under-lock", "startSavepoint sleeps holding lock (L839-842, H5)"},
		{"trigger-errors", "silent", "tryTriggerPendingCheckpoint has no catch that fails the coordinator (H4, #12442)"},
		{"barrier-continuation", "inline", "thenAccept, not thenAcceptAsync (L903, H6)"},
		{"expiry-exec", "inline", "the watchdog expires on its own thread (L985)"},
		{"retention", "memory", "the retention deque is not rebuilt from storage on restore (H10)"},
		{"idle-restore", "forget", "a restore forgets the tasks closed for good (#12042, F017)"},
		{"pending-decrement", "always", "L1356 remove may miss and L1360 decrements anyway (F002)"},
		{"schema-recommit", "ends", "a restore's re-commit ends the schema change through L1536 (F004)"},
		{"finish-future", "current", "L1366/L1370 re-read the future field after the status write (F005)"},
		{"completion-fallback", "drop", "whenCompleteAsync loses a rejected handler (L910, F006)"},
		{"dropped-schema-change", "keeps", "a trigger dropped at L774 leaves schemaChanging set (F008)"},
		{"status-fence", "none", "updateStatus writes whatever generation calls it (L1447-1474, F013)"},
		{"periodic-arm", "live-chain", "a schema change's end re-arms beside the waiting trigger (L1549, F015)"},
		{"trigger-fence", "none", "triggers and re-arms carry no generation (L722-805; F019, F029)"},
		{"final-rearm", "none", "readyToClose's rejected final trigger goes back to a fire-and-forget caller (L543-549, F023)"},
		{"final-restore", "races", "readyToClose takes no lock against a restore (L543-549, F025)"},
		{"restore-load", "once", "restoreCoordinator reads the ready-to-close set once (L553) and a failure throws out before its clean (L670-673; F001)"},
		{"restore-chain", "live", "triggers carry no chain: a re-arm of the old chain landing after the restore's cancelAll (L748, L768, L802) runs beside the chain the restore arms (L695, L449; F029)"},
		{"cancel-all", "clears", "PipelineCheckpointScheduler.cancelAll clear()s its set after cancelling its copy (PCS L92-95, F026)"},
		{"close-tasks", "drops", "SharedCheckpointScheduler.close discards what shutdownNow returns (SCS L199-200, F010)"},
		{"status-panic", "drop", "updateStatus (L1447-1478) retries IMap.set only for three exception types (L1470) and its catch (L1472-1477) logs and drops the write of any other exception, as the port's panicked write is (F039)"},
		{"savepoint-list", "skip-unreadable", "HdfsStorage.listCompletedSavepoints@af72d15e catches any exception reading a bundle's metadata and skips the bundle (log.warn \"Skip unreadable savepoint bundle\"; F040)"},
		{"checkpoint-delete", "no-sync", "HdfsStorage.deleteCheckpoint@15431c94 (L304-332) deletes each file with FileSystem.delete and syncs nothing; on Hadoop's local file system that is File.delete (F036)"},
		{"ack-match", "id", "acknowledgeTask looks the pending checkpoint up by the barrier's id alone (L812-818@15431c94), and every COMPLETED_POINT has the id Long.MAX_VALUE (L700-704; F032)"},
		{"checkpoint-checksum", "ignore", "the localfile plugin (deprecated, still shipped) restores by LocalFileStorage.getLatestCheckpointByJobIdAndPipelineId@15431c94 (L189-235): FileUtils.readFileToByteArray then deserializeCheckPointData (L217-218), and PipelineState (L27-36) carries no checksum, so rotted state bytes decode and reach the tasks (F035; the hdfs plugin over Hadoop's checksummed local file system fails such a read instead)"},
	},
	NotModelled: []string{
		"F031: a data race on the watchdog field is a Java memory-model race; the simulator has no weak memory to show it",
		"watchdog-recheck: upstream re-checks by id and the captured checkpoint's acks, close to the port's object re-check, so the default stays",
	},
}}

// Profiles returns the registry of profiles in listing order.
func Profiles() []Profile { return slices.Clone(profiles) }

// LookupProfile returns the profile called name.
func LookupProfile(name string) (Profile, error) {
	var names []string
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("unknown profile %q (want %s)", name, alternatives(names))
}

// Map returns the profile's key -> value pairs.
func (p Profile) Map() map[string]string {
	m := make(map[string]string, len(p.Values))
	for _, v := range p.Values {
		m[v.Key] = v.Value
	}
	return m
}

// Expand returns the profile's pairs with over applied on top: a key set
// in over wins over the profile's value.
func (p Profile) Expand(over map[string]string) map[string]string {
	m := p.Map()
	maps.Copy(m, over)
	return m
}

// String spells the profile as simrun list prints it: its name and its
// pairs in registry order.
func (p Profile) String() string {
	s, _ := Parse(p.Map())
	return p.Name + ": " + strings.ReplaceAll(s.String(), ",", " ")
}
