module github.com/ckptsim/ckptsim

go 1.26.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/goccy/go-yaml v1.19.2
	github.com/google/go-cmp v0.7.0
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	golang.org/x/term v0.48.0
	google.golang.org/protobuf v1.36.12
	pgregory.net/rapid v1.3.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
