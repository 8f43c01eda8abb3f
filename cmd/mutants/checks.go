package main

import (
	"slices"
	"strings"

	"github.com/ckptsim/ckptsim/workloads/oracle"
)

// pendingChecks are check ids that issue 13 asks for and that have not
// landed in workloads/oracle on this branch yet: a mutant may name one,
// and the report says it is pending instead of counting a miss. Move an id
// out of here when its check lands in the registry.
var pendingChecks = map[string]string{}

// CheckKnown reports whether id is a check id (one of the oracle's
// registry, or pending), and whether it is pending.
func CheckKnown(id string) (known, pending bool) {
	if _, ok := oracle.Lookup(id); ok {
		return true, false
	}
	_, pending = pendingChecks[id]
	return pending, pending
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
		return "model-" + name
	}
	parts := strings.SplitN(first, ": ", 3)
	if len(parts) >= 2 && !strings.Contains(parts[0], " ") {
		if _, ok := oracle.Lookup(parts[0]); ok {
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
