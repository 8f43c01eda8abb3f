package main

import (
	"slices"
	"strings"
)

// knownChecks are the check ids a mutant may name: the ids a seed's verdict
// carries (the "checks" field of simrun's --json line when present, else
// the id parsed from each violation's text by CheckIDs). A pending check is
// one that its branch has not landed here yet: a mutant may name it, and
// the report says it is pending instead of counting a miss.
var knownChecks = map[string]bool{
	// sim/cluster recorder and pipeline invariants
	"one-pending": false, "generation-fence": false, "increasing-ids": false, "generation-order": false,
	"watermark-extend": false, "watermark-stale-commit": false, "watermark-unassigned-commit": false,
	"watermark-backwards": false, "watermark-unread": false, "watermark-leaked-ack": false,
	"watermark-ceiling": false, "watermark-misuse": false,
	// workloads monitor and judge
	"timer-threads": false, "dispatch-bound": false, "worker-died": false, "retention": false,
	"savepoint-retention": false, "latency-bound": false, "liveness": false, "deadlock": false, "lock-order": false,
	// porcupine models
	"model:generation": false, "model:register": false, "model:savepoints": false, "model:watermark": false,
	// pending (issue 13 items 2, 3 and 5)
	"failure-justified": true, "lease-cancel-won": true, "lease-cancel-all": true,
	"savepoint-completes": true, "watermark-under-commit": true,
}

// CheckKnown reports whether id is a check id, and whether it is pending.
func CheckKnown(id string) (known, pending bool) {
	pending, known = knownChecks[id]
	return known, pending
}

// CheckIDs returns the sorted, distinct check ids of one seed: the ids the
// verdict carries when it carries them, else those parsed from the
// violation texts (the formats of workloads' judge: "<at> <subject>:
// <check>: <message>" for invariants, "model <name>: ..." for porcupine,
// "<check>: ..." for the bound, liveness and deadlock, "lock-order cycle:").
func CheckIDs(carried []string, violations []string) []string {
	ids := slices.Clone(carried)
	if len(ids) == 0 {
		for _, v := range violations {
			if id := checkOf(v); id != "" {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func checkOf(v string) string {
	first, _, _ := strings.Cut(v, "\n")
	switch {
	case strings.HasPrefix(first, "lock-order cycle"):
		return "lock-order"
	case strings.HasPrefix(first, "harness panic"), strings.HasPrefix(first, "panic in "):
		return "crash"
	case strings.HasPrefix(first, "model "):
		name, _, _ := strings.Cut(strings.TrimPrefix(first, "model "), ":")
		return "model:" + name
	}
	parts := strings.SplitN(first, ": ", 3)
	if len(parts) >= 2 && !strings.Contains(parts[0], " ") {
		if _, ok := knownChecks[parts[0]]; ok {
			return parts[0] // "latency-bound: ...", "liveness: ...", "deadlock: ..."
		}
	}
	if len(parts) == 3 && strings.Contains(parts[0], " ") && !strings.Contains(parts[1], " ") {
		return parts[1] // "<at> <subject>: <check>: <message>"
	}
	if len(parts) >= 1 && !strings.Contains(parts[0], " ") && parts[0] != "" && len(parts) >= 2 {
		return parts[0]
	}
	return "other"
}
