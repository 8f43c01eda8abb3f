//go:build !unix

package workloads

// addressSpaceLimit: no address-space limit is read on this platform.
func addressSpaceLimit() int64 { return 0 }
