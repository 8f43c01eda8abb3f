package sim

// slab hands out pointers to values carved from chunks, one allocation
// per chunk instead of one per value. A run makes tens of thousands of
// mutexes, condition variables and threads that all live until the run
// ends (a World serves one run), so keeping a chunk alive while one of
// its values is reachable costs nothing that matters. Chunks grow from 8
// to 256 values, so a small run stays small.
type slab[T any] struct {
	chunk []T
	size  int
}

func (s *slab[T]) new() *T {
	if len(s.chunk) == cap(s.chunk) {
		s.size = min(max(2*s.size, 8), 256)
		s.chunk = make([]T, 0, s.size)
	}
	s.chunk = s.chunk[:len(s.chunk)+1]
	return &s.chunk[len(s.chunk)-1]
}
