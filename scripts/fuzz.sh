#!/usr/bin/env bash
# fuzz.sh runs every native Go fuzz test of the module for a short fixed budget, on top of its
# seed corpus (f.Add and testdata/fuzz), as `make test` does after the unit tests.
#
#   PLIMSOLL_FUZZTIME   budget per fuzz test, as go test's -fuzztime (default 1000x: a count)
#   PLIMSOLL_FUZZ_JOBS  fuzz tests run at once, one fuzzing worker each (default: the CPUs)
#   GO                  the go command (default go)
#
# The fuzz tests are discovered, not listed here: the packages whose test files declare a
# func Fuzz..., then each package's fuzz tests as its test binary lists them (-test.list, what
# `go test -list` asks). Each package's binary is built once with fuzzing instrumentation
# (go test -c -fuzz) and run once per fuzz test with the flags `go test -run '^$' -fuzz
# '^Name$' -fuzztime BUDGET` passes it, in the package's directory, with go test's own fuzz
# cache: one `go test -fuzz` per test would link the binary again each time (about 1.5 s more
# per test on 2 cores). A failing input is written to the package's testdata/fuzz, as go test
# does, and the script fails after running every test.
set -euo pipefail

GO=${GO:-go}
# A count, not a duration: with a duration, Go up to 1.26 can report "context deadline exceeded"
# with no failing input when the deadline races its workers' shutdown (go.dev/issue/75804,
# fixed in Go 1.27); a fresh clone's make test met it (FuzzNewNICNet, 2s, go1.26.8). 1000
# inputs took 0.1-4.7 s per test here (5000 took 0.3-16.6 s): 48 s for all 40, 16 s of it building.
budget=${PLIMSOLL_FUZZTIME:-1000x}
jobs=${PLIMSOLL_FUZZ_JOBS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache=$($GO env GOCACHE)/fuzz
start=$(date +%s)

cd "$root"

# build_one DIR: the package's test binary with fuzzing instrumentation, and its fuzz tests.
build_one() {
	local d=$1 pkg bin
	pkg=$(cd "$d" && $GO list .)
	bin="$work/$(echo "$pkg" | tr '/' '_').test"
	$GO test -c -fuzz . -o "$bin" "./$d" || return 1
	for name in $(cd "$d" && "$bin" -test.list '^Fuzz'); do
		echo "$d $pkg $bin $name"
	done >"$bin.targets"
}
export -f build_one
export GO work

# Packages with a fuzz test: a first cut by text; -test.list is the authority on names.
grep -rl --include='*_test.go' '^func Fuzz[A-Z0-9_]' . | xargs -n1 dirname | sort -u |
	xargs -P "$jobs" -I{} bash -c 'build_one "$@"' _ {}
cat "$work"/*.targets >"$work/targets"
built=$(date +%s)

# run_one DIR PKG BIN NAME: one fuzz test for the budget; its output is kept only on failure.
run_one() {
	local d=$1 pkg=$2 bin=$3 name=$4 log="$work/$4.$RANDOM.log" t0
	t0=$(date +%s.%N)
	if (cd "$d" && "$bin" -test.run '^$' -test.fuzz "^$name\$" -test.fuzztime "$budget" -test.parallel 1 \
		-test.fuzzcachedir "$cache/$pkg") >"$log" 2>&1; then
		printf 'ok   %s %s %.1fs\n' "$pkg" "$name" "$(echo "$(date +%s.%N) - $t0" | bc)"
	else
		echo "FAIL $pkg $name"
		grep -v '^fuzz: elapsed' "$log" | tail -40
		return 1
	fi
}
export -f run_one
export budget cache

n=$(wc -l <"$work/targets")
status=0
xargs -P "$jobs" -L 1 bash -c 'run_one "$@"' _ <"$work/targets" || status=1
echo "fuzz: $n fuzz tests, $budget each, $jobs at a time: $(($(date +%s) - start)) s ($((built - start)) s of it building)"
exit $status
