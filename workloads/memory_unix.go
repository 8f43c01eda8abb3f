//go:build unix

package workloads

import (
	"math"
	"syscall"
)

// addressSpaceLimit is the process's RLIMIT_AS (ulimit -v) in bytes; 0
// when unlimited or unreadable.
func addressSpaceLimit() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur >= math.MaxInt64 {
		return 0
	}
	return int64(r.Cur)
}
