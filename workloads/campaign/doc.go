// Package campaign is what runs many seeds and keeps their results: a
// worker pool that hands seeds out in order and reports them in order
// (Execute, Map), the seeds-to-detection search of a bug over independent
// campaigns (SeedsToDetection, DetectionStats), durable atomic writes
// (WriteFile: the file and its folder are fsynced), an append-only journal
// of per-seed records that survives a killed process (Journal: one write
// per record, fsync at most every SyncEvery, a torn last line cut on
// reopen), mergeable latency histograms (Hist: log-linear buckets,
// quantiles within 0.4%, the maximum exact) and the shrinker that reduces a
// failing seed's scenario (Shrink).
//
// # Guarantees
//
//   - Execute starts jobs in index order and, when its context ends, starts
//     no more; it returns how many started, always a prefix.
//   - A record appended to a Journal is in the file (the kernel's page
//     cache) when Append returns, so a SIGKILL loses only records not yet
//     appended; fsync bounds what a machine crash can lose to SyncEvery.
//   - Hist merging is commutative and associative, so a summary computed
//     from per-seed histograms does not depend on the order seeds finished,
//     on sharding or on resuming.
//   - Shrink is deterministic: the same scenario, seed and run function give
//     the same steps and the same result.
package campaign
