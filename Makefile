# ckptsim — see README.md. Every target installs what it needs through the
# Go module proxy; nothing else is required on a fresh machine.
GO      ?= go
SEEDS   ?= 200
R       := results/bench
TMP     ?= $(shell mktemp -d)

.PHONY: all test race lint run bench bench-peer benchstat bench-ci fuzz hazards

all: test

## test: the whole suite (lint, unit, property, simulation and end-to-end tests)
test: lint
	$(GO) test -timeout 30m ./...

## race: wall-mode tests under the race detector (simulated seeds are cut to a tenth)
race:
	$(GO) test -race -short -timeout 20m ./core/... ./sim/... ./linearizability/...

## lint: gofmt, go vet and the core purity test
lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v /testdata/)); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 -run 'TestCoreIsPure|TestPurityCatchesPlantedViolations' ./core/

## run: the default simrun campaign on the embedded scenarios
run:
	$(GO) run ./cmd/simrun

## bench: every benchmark, written to results/bench with command, commit and machine lines
bench:
	bench/run.sh $(R)/trigger.txt    $(GO) test -run '^$$' -bench '^BenchmarkTrigger(Precise)?$$' -benchtime 500x -count 1 -timeout 60m ./bench/
	bench/run.sh $(R)/coord.txt      $(GO) test -run '^$$' -bench '^BenchmarkTriggerCoord(Precise)?$$' -benchtime 500x -count 1 -timeout 60m ./bench/
	bench/run.sh $(R)/floor.txt      $(GO) test -run '^$$' -bench '^BenchmarkTimerFloor$$' -benchtime 5000x -count 5 ./bench/
	bench/run.sh $(R)/saturation.txt $(GO) test -run '^$$' -bench '^BenchmarkSaturation(Sim)?$$' -benchtime 1000x -count 1 ./bench/
	bench/run.sh $(R)/sim.txt        $(GO) test -run '^$$' -bench '^BenchmarkSim$$|^BenchmarkSchedPoint$$' -benchmem -count 5 ./bench/
	bench/run.sh $(R)/sim-switch.txt $(GO) test -run '^$$' -bench '^BenchmarkSwitch$$|^BenchmarkSchedPoint$$' -count 10 ./bench/
	bench/run.sh results/linearizability/bench.txt $(GO) test ./linearizability -run '^$$' -bench BenchmarkCheckHour -cpu 1 -count 5 -benchmem -timeout 30m
	$(GO) run ./bench/cmd/plot -dir $(R) > $(R)/tables.md

## bench-peer: the JDK peer (ScheduledThreadPoolExecutor designs), when javac is present
bench-peer:
	@command -v javac >/dev/null || { echo "bench-peer: javac not found, skipped"; exit 0; }; \
	  bench/run.sh $(R)/trigger-jdk.txt peer/jdk/run.sh -n 500 -count 1 && \
	  $(GO) run ./bench/cmd/plot -dir $(R) > $(R)/tables.md

## bench-ci: the short deterministic set, gated against the committed baseline
bench-ci:
	$(GO) test ./cmd/benchgate/ ./bench/
	: > $(TMP)/bench-head.txt
	$(GO) test -run '^$$' -bench '^BenchmarkSim$$' -benchtime 1x ./bench/ >> $(TMP)/bench-head.txt
	$(GO) test -run '^$$' -bench '^BenchmarkSaturationSim$$' -benchtime 1000x ./bench/ >> $(TMP)/bench-head.txt
	$(GO) test -run '^$$' -bench '^BenchmarkTrigger(Precise)?$$/design=shared/pipelines=10$$|^BenchmarkTimerFloor$$' -benchtime 100x ./bench/ >> $(TMP)/bench-head.txt
	$(GO) run golang.org/x/perf/cmd/benchstat base=$(R)/baseline-ci.txt head=$(TMP)/bench-head.txt || true
	$(GO) run ./cmd/benchgate -max 10 $(R)/baseline-ci.txt $(TMP)/bench-head.txt

## benchstat: head against the committed baseline
benchstat: bench-ci

## fuzz: longer fuzzing of the savepoint decoders
fuzz:
	$(GO) test ./core/savepoint -run '^$$' -fuzz '^FuzzDecodePayload$$' -fuzztime 2m
	$(GO) test ./core/savepoint -run '^$$' -fuzz '^FuzzParseManifest$$' -fuzztime 2m
