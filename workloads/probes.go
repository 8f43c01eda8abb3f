package workloads

import (
	"maps"
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/core/env"
)

// ProbeRow says which entry of DefaultCampaign must hit a code probe
// (env.Probe): the default campaign leaving a probe unhit in its entry
// fails `make test` (cmd/simrun TestDefaultCampaign).
type ProbeRow struct {
	Probe string
	Entry ProbeEntry
}

// ProbeEntry names a DefaultCampaign entry: its scenario and the
// settings of its own (CampaignEntry).
type ProbeEntry struct {
	Name     string
	Variants map[string]string
	Strategy string
	Buggify  string
}

// String is the entry as the campaign summary labels its row: the
// scenario, then its own variants in key order, then its strategy and
// BUGGIFY overrides (EntryLabel).
func (e ProbeEntry) String() string {
	s := e.Name
	for _, k := range slices.Sorted(maps.Keys(e.Variants)) {
		s += " " + k + "=" + e.Variants[k]
	}
	if e.Strategy != "" {
		s += " strategy=" + e.Strategy
	}
	if e.Buggify != "" {
		s += " buggify=" + e.Buggify
	}
	return s
}

// ProbeTable is the committed table: one row per probe, in env.Probes
// order (TestProbeTableCoversEveryProbe).
var ProbeTable = []ProbeRow{
	{Probe: "register-late", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "trigger-stale-after-lock", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "rearm-superseded", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "rearm-stale-generation", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "clean-fenced-at-begin", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "clean-replaced-while-waiting", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "fail-replaced-during-status", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "fail-lost-the-future", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "expiry-stale", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "expiry-inline", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "watchdog-fully-acked", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "continuation-fallback", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "completion-inline", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "ack-after-abort", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "idle-ack-after-clean", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "complete-stale-generation", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "complete-replaced-during-store", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "complete-after-clean", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "barrier-partial", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "notify-partial", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "notify-start-fails", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "task-error-stale", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "savepoint-aborted", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "savepoint-part-fails", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "savepoint-not-ready", Entry: ProbeEntry{Name: "redeploy-savepoint"}},
	{Probe: "savepoint-not-ready-after-wait", Entry: ProbeEntry{Name: "redeploy-savepoint"}},
	{Probe: "job-restore-part-fails", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "retain-listed", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "trigger-generation-ended", Entry: ProbeEntry{Name: "windows"}},
	{Probe: "restore-skips-corrupt", Entry: ProbeEntry{Name: "bit-rot"}},
	{Probe: "savepoint-marker-remove-fails", Entry: ProbeEntry{Name: "cleanup"}},
	{Probe: "savepoint-delete-sync-fails", Entry: ProbeEntry{Name: "cleanup"}},
	{Probe: "savepoint-delete-all-list-fails", Entry: ProbeEntry{Name: "cleanup"}},
	{Probe: "savepoint-parent-sync-fails", Entry: ProbeEntry{Name: "cleanup"}},
	{Probe: "checkpoint-job-sync-fails", Entry: ProbeEntry{Name: "cleanup"}},
	{Probe: "task-cancel-after-fire", Entry: ProbeEntry{Name: "smoke"}},
	{Probe: "task-skipped-cancelled", Entry: ProbeEntry{Name: "smoke"}},
	{Probe: "task-runs-after-cancel", Entry: ProbeEntry{Name: "smoke"}},
	{Probe: "lease-arm-refused", Entry: ProbeEntry{Name: "close-at-firing"}},
	{Probe: "claim-hand-off-refused", Entry: ProbeEntry{Name: "close-at-firing"}},
	{Probe: "pool-reap-declined", Entry: ProbeEntry{Name: "swarm"}},
	{Probe: "pool-worker-reaped", Entry: ProbeEntry{Name: "swarm"}},
	{Probe: "pool-rejects-saturated", Entry: ProbeEntry{Name: "swarm"}},
	{Probe: "pool-rejects-shutdown", Entry: ProbeEntry{Name: "swarm"}},
	{Probe: "pool-await-timeout", Entry: ProbeEntry{Name: "lifecycle"}},
	{Probe: "timer-claim-cancelled", Entry: ProbeEntry{Name: "cancel-at-failure"}},
	{Probe: "timer-claim-dropped", Entry: ProbeEntry{Name: "swarm"}},
	{Probe: "timer-schedule-closed", Entry: ProbeEntry{Name: "close-at-firing"}},
	{Probe: "epoch-drops-pending", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "epoch-drops-partition", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "epoch-extended", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "revoke-with-pending", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "stale-registration", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "stale-resolution", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "stall-begins", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "quarantine", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "issuer-epoch-resync", Entry: ProbeEntry{Name: "watermarks"}},
	{Probe: "fail-after-end", Entry: ProbeEntry{Name: "cancel-at-failure"}},
}

// ProbeEntryOf returns the table's entry for a probe.
func ProbeEntryOf(probe string) (ProbeEntry, bool) {
	for _, r := range ProbeTable {
		if r.Probe == probe {
			return r.Entry, true
		}
	}
	return ProbeEntry{}, false
}

// ProbeNames returns every probe core declares, in declaration order.
func ProbeNames() []string {
	var out []string
	for _, p := range env.Probes() {
		out = append(out, p.String())
	}
	return out
}

// EntryLabel is a campaign row's label for a scenario and its variant
// string ("k=v,k=v"; "" or "fixed": none of its own), as ProbeEntry.String
// writes it.
func EntryLabel(scenario, variants, strategy, buggify string) string {
	s := scenario
	if variants != "" && variants != "fixed" {
		s += " " + strings.ReplaceAll(variants, ",", " ")
	}
	if strategy != "" {
		s += " strategy=" + strategy
	}
	if buggify != "" {
		s += " buggify=" + buggify
	}
	return s
}
