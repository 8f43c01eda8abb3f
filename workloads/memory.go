package workloads

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
)

// The memory model of one seed: the member it builds (each lease and each
// task), the histories the checks keep of every checkpoint round until the
// end of the run (each lease and each task acknowledges in every round; a
// round is one checkpoint interval of duration + heal), and the batches of
// the sources' partitions (workload.partitions x batch_rate per pipeline
// over duration + heal), whose watermark histories are kept too.
//
// Calibrated from the peak resident memory of one seed (linux/amd64, go
// 1.26, commit d8397d0): smoke's workload on scenarios of J jobs, P
// pipelines and T tasks, interval 10s (or 5s), timeout 5s, max_retained 3,
// and watermarks.yaml with its batch_rate changed:
//
//	/usr/bin/time -v nice simrun run --scenario FILE --seeds 1 --parallel 1
//	(Maximum resident set size)
//
//	 J     P   T  duration+heal   rounds  batches  peak RSS  estimate
//	 1  1000   2  2ms              0           0     12 MB     21 MB
//	10  1000   2  2ms              0           0     55 MB     66 MB
//	10  1000  64  2ms              0           0     98 MB    125 MB
//	 1  1000   2  1m30s            9           0     85 MB     94 MB
//	10   100   2  1m30s            9           0     81 MB     94 MB
//	 1  2000   2  1m30s            9           0    149 MB    173 MB
//	 1  1000  16  1m30s            9           0    219 MB    243 MB
//	 1   200  64  1m30s            9           0    159 MB    163 MB
//	 1  1000   2  4m30s           27           0    184 MB    242 MB
//	 1  1000   2  1m30s, int. 5s  18           0    133 MB    168 MB
//	watermarks, batch_rate 5       7       30000     25 MB     30 MB
//	watermarks (batch_rate 20)     7      120000     67 MB     69 MB
//	watermarks, batch_rate 40      7      240000     99 MB    120 MB
//	savepoint-storm                                  45 MB     54 MB
//	saturation                                       29 MB     54 MB
//	expiries                                         47 MB     56 MB
//	h5-savepoint-under-lock                          25 MB     63 MB
//
// (MB = 2^20 bytes.) The estimate is above every measurement, by at most
// a third for a large member; replay keeps the readable trace as well,
// which this leaves out.
const (
	memBase          = 16 << 20 // the process and the simulator
	memPerLease      = 5 << 10  // a pipeline's coordinator, lease and tracker
	memPerTask       = 100      // a task of the member
	memPerLeaseRound = 6 << 10  // a round's trigger, completion and history
	memPerTaskRound  = 1229     // a round's barrier and acknowledgement (1.2 KiB)
	memPerBatch      = 450      // a source batch and its watermark history
)

// MemoryEstimate is the peak resident memory, in bytes, that one seed of
// the scenario is expected to need (the model above).
func (s *Scenario) MemoryEstimate() int64 {
	leases := float64(s.Cluster.Jobs) * float64(s.Cluster.Pipelines)
	tasks := leases * float64(s.Cluster.Tasks)
	rounds := 0.0
	if s.Checkpoint.Interval.D > 0 {
		rounds = math.Floor(float64(s.Run.Duration.D+s.heal()) / float64(s.Checkpoint.Interval.D))
	}
	run := (s.Run.Duration.D + s.heal()).Seconds()
	batches := leases * float64(s.Workload.Partitions) * s.Workload.BatchRate * run
	est := memBase + leases*memPerLease + tasks*memPerTask + rounds*(leases*memPerLeaseRound+tasks*memPerTaskRound) +
		batches*memPerBatch
	return int64(min(est, math.MaxInt64/2))
}

// MachineMemory is the memory a seed may use when the scenario does not
// set run.max_memory: this machine's (MemTotal), its cgroup's limit, or
// half the process's address-space limit (ulimit -v: the Go runtime
// reserves address space beyond its heap), whichever is least; 0 when none
// can be read (no check).
var MachineMemory = machineMemory()

func machineMemory() int64 {
	var total int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				total = kb << 10
			}
		}
		f.Close()
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (total == 0 || v < total) {
			total = v
		}
	}
	if v := addressSpaceLimit() / 2; v > 0 && (total == 0 || v < total) {
		total = v
	}
	return total
}

// validateMemory refuses a scenario whose seed would need more memory
// than it may use (run.max_memory, else MachineMemory).
func (s *Scenario) validateMemory() error {
	m := s.Run.MaxMemory
	if m.err != nil {
		return s.errorf("$.run.max_memory", "invalid size %q: %v", m.Raw, m.err)
	}
	limit, from, allow := m.B, "run.max_memory", "raise run.max_memory"
	if limit == 0 {
		limit, from, allow = MachineMemory, "this machine's memory", "set run.max_memory to allow it"
	}
	if est := s.MemoryEstimate(); limit > 0 && est > limit {
		return s.errorf("$.cluster", "one seed needs an estimated %s (%d jobs x %d pipelines x %d tasks over %v of run; workloads/memory.go), above %s, %s: make the cluster smaller or the run shorter, or %s",
			FormatSize(est), s.Cluster.Jobs, s.Cluster.Pipelines, s.Cluster.Tasks, s.Run.Duration.D+s.heal(), from, FormatSize(limit), allow)
	}
	return nil
}

// Size is a YAML memory size ("512MiB", "8GiB", "2GB", or bytes). It
// decodes leniently and is validated with the file position.
type Size struct {
	B   int64
	Raw string
	err error
}

// UnmarshalYAML keeps the raw text and the parse error for validation.
func (z *Size) UnmarshalYAML(b []byte) error {
	var s string
	if err := yaml.Unmarshal(b, &s); err != nil {
		return err
	}
	z.Raw = s
	z.B, z.err = ParseSize(s)
	return nil
}

// MarshalYAML writes the size back as its text.
func (z Size) MarshalYAML() ([]byte, error) { return []byte(z.Raw), nil }

var sizeUnits = []struct {
	suffix string
	mult   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}

// ParseSize reads a memory size: a number with a unit (B, KB, MB, GB, TB,
// KiB, MiB, GiB, TiB) or a plain number of bytes.
func ParseSize(s string) (int64, error) {
	t, mult := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if v, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(v), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || f*float64(mult) > math.MaxInt64/2 {
		return 0, fmt.Errorf("want a size such as 512MiB or 8GiB")
	}
	return int64(f * float64(mult)), nil
}

// FormatSize prints bytes in binary units with three significant digits.
func FormatSize(b int64) string {
	v, units := float64(b), []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for ; v >= 1024 && i < len(units)-1; i++ {
		v /= 1024
	}
	prec := 2
	if v >= 100 {
		prec = 0
	} else if v >= 10 {
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + units[i]
}
