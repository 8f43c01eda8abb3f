//go:build tools

package tools

import (
	_ "github.com/anishathalye/porcupine"
	_ "github.com/goccy/go-yaml"
	_ "github.com/google/go-cmp/cmp"
	_ "golang.org/x/perf/benchfmt"
	_ "golang.org/x/perf/benchmath"
	_ "golang.org/x/term"
	_ "google.golang.org/protobuf/encoding/protowire"
	_ "pgregory.net/rapid"
)
