//go:build !linux

package env

// Default returns the env production code should run on: Wall where
// PreciseWall (futex, prctl) is not available.
func Default() Env { return Wall{} }
