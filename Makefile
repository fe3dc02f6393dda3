# plimsoll: the two promised entry points are `make demo` and `make test`; both install what they
# need (Go modules through the Go proxy, Kafka jars through Maven) on first use.
GO        ?= go
BIN       := bin/plimsoll
PKGS      := ./...
# The packages with integration tests (real Kafka): the second pass of `make test` runs only
# these, as the first has run every package's unit tests already. cmd/plimsoll's unit test files
# carry `//go:build !integration`, so that this pass does not run them a second time (52 s of the
# suite, measured on the clean clone of 9506e87).
INTEGRATION_PKGS = $(sort $(dir $(shell grep -l --include='*_test.go' --exclude-dir=.git -r '^//go:build integration' .)))
# They share one 3-broker cluster, handed over in PLIMSOLL_IT_CLUSTER (a directory): cmd/plimsoll's
# tests start it, the packages after them use it, and localkafka's, run last (go test -p 1 runs
# packages in the order given), stop it; the trap stops whatever is left if a package failed
# first. Each package alone (no PLIMSOLL_IT_CLUSTER) starts and stops a cluster of its own.
IT_ORDER = $(filter-out ./localkafka/,$(INTEGRATION_PKGS)) $(filter ./localkafka/,$(INTEGRATION_PKGS))
IT_SHARED = it=$$(mktemp -d /tmp/plimsoll-it-XXXXXX) && trap "$(BIN) cluster down --cluster-dir $$it/cluster >/dev/null 2>&1; rm -rf $$it" EXIT && \
	PLIMSOLL_IT_CLUSTER=$$it/cluster
# Pinned linter, run through `go run` so nothing needs installing by hand.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# As root (CI), the emulated-NIC tests must run: a machine that cannot emulate NICs fails them.
ROOT      := $(shell [ "$$(id -u)" = 0 ] && echo 1)
DEMO_DIR  ?= $(CURDIR)/.demo
REPORT    ?= $(CURDIR)/plimsoll-report

.PHONY: all build test test-nic nic-deps browser-deps unit fuzz integration lint demo scenarios bench-loadgen bench-consumer bench-soak clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/plimsoll

## test: everything CI runs: vet, unit tests, every fuzz test for PLIMSOLL_FUZZTIME (1000 inputs) on top of
## its seed corpus (scripts/fuzz.sh), and integration tests against real Kafka.
test: build nic-deps
	./scripts/browser-deps.sh start
	$(GO) vet $(PKGS)
	$(GO) test -count=1 $(PKGS)
	GO="$(GO)" ./scripts/fuzz.sh
	./scripts/browser-deps.sh wait
	$(IT_SHARED) PLIMSOLL_REQUIRE_NIC=$(ROOT) PLIMSOLL_REQUIRE_BROWSER=$(ROOT) $(GO) test -count=1 -tags integration -p 1 -timeout 45m $(IT_ORDER)

## nic-deps: as root, make sure iproute2 (ip, tc) is there for the emulated NICs.
nic-deps:
	@if [ "$(ROOT)" = 1 ] && ! { command -v ip && command -v tc; } >/dev/null 2>&1; then \
		echo "installing iproute2 for the emulated NICs"; apt-get update -qq && apt-get install -y -qq iproute2; fi
	@[ "$(ROOT)" = 1 ] || echo "note: not root, so the emulated-NIC tests will be skipped"

## browser-deps: as root, make sure Debian's chromium is there for the live page's headless-browser
## checks (`make test` starts this in the background and waits for it before the integration tests).
browser-deps:
	./scripts/browser-deps.sh start
	./scripts/browser-deps.sh wait

unit:
	$(GO) test $(PKGS)

fuzz:
	GO="$(GO)" ./scripts/fuzz.sh

integration: build
	$(IT_SHARED) $(GO) test -count=1 -tags integration -p 1 -timeout 45m $(IT_ORDER)

## test-nic: the emulated-NIC integration tests (root and iproute2 needed).
test-nic: build
	$(GO) test -count=1 -tags integration -p 1 -timeout 20m -run 'NIC' ./cmd/plimsoll

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags integration $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)

## demo: the main job on the embedded cluster (see README).
demo: build
	./scripts/demo.sh "$(BIN)" "$(DEMO_DIR)" "$(REPORT)"

## scenarios: every scenario's full mode (not part of `make test`), each into ./scenarios-out/NAME
## with its report; SCENARIOS="message-overhead tls-cost" runs only those.
scenarios: build
	./scripts/scenarios.sh "$(BIN)" "$(CURDIR)/scenarios-out"

## bench-loadgen: plimsoll's generator vs kafka-producer-perf-test, side by side, as ratios.
bench-loadgen: build
	$(GO) run ./tools/benchloadgen -plimsoll $(BIN)
	$(GO) test -run XXX -bench . -benchmem ./loadgen

## bench-consumer: plimsoll's consumer path vs franz-go's default PollFetches loop and Kafka's
## ConsumerPerformance on one local broker, side by side, as ratios (BENCH_RECORDS, BENCH_PASSES,
## BENCH_COMPRESSION). Not part of make test.
bench-consumer: build
	GO="$(GO)" ./scripts/bench-consumer.sh $(BIN)

## bench-soak: plimsoll's own memory over a long run on a local cluster (SOAK_DURATION, default
## 30m; SOAK_RATE msgs/s; RSS every SOAK_EVERY seconds). Not part of make test.
bench-soak: build
	./scripts/bench-soak.sh $(BIN)

clean:
	rm -rf bin $(DEMO_DIR) $(REPORT) scenarios-out
