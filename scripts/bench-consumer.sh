#!/usr/bin/env bash
# make bench-consumer: plimsoll's consumer paths (franz-go's polls with pools; plimsoll's own fetch
# path, package loadgen/fetch) side by side with franz-go's default PollFetches
# loop and with Kafka's own ConsumerPerformance (from the cluster's own jars), in one run, on a
# local one-broker cluster started for it and brought down at the end. The measuring is
# BenchmarkConsumer in loadgen (PLIMSOLL_BENCH_CLUSTER_DIR): bytes allocated and CPU per record
# in steady state, and plimsoll's as ratios of the others'. Not part of make test.
# BENCH_RECORDS records of 100 bytes (default 2000000), BENCH_PASSES passes a side (default 3),
# BENCH_COMPRESSION the producer's codec for the topic (none, lz4, zstd; default none).
set -euo pipefail
BIN=${1:-bin/plimsoll}
GO=${GO:-go}
RECORDS=${BENCH_RECORDS:-2000000}
PASSES=${BENCH_PASSES:-3}
COMPRESSION=${BENCH_COMPRESSION:-none}
DIR=$(mktemp -d /tmp/plimsoll-bench-consumer-XXXXXX)
cleanup() {
  "$BIN" cluster down --cluster-dir "$DIR/cluster" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
trap cleanup EXIT

echo "bench-consumer: starting one local Kafka broker ..."
if ! "$BIN" cluster up --cluster-dir "$DIR/cluster" --brokers 1 --heap 1g >"$DIR/up.log" 2>&1; then
  cat "$DIR/up.log" >&2
  exit 1
fi
echo "bench-consumer: $RECORDS records of 100 bytes, 3 partitions, compression $COMPRESSION; $PASSES passes a side; load average $(cut -d' ' -f1 /proc/loadavg)"
PLIMSOLL_BENCH_CLUSTER_DIR="$DIR/cluster" PLIMSOLL_BENCH_RECORDS="$RECORDS" PLIMSOLL_BENCH_COMPRESSION="$COMPRESSION" \
  "$GO" test -count=1 -run '^$' -bench '^BenchmarkConsumer$' -benchtime "${PASSES}x" -timeout 30m ./loadgen >"$DIR/bench.txt" 2>&1 ||
  { cat "$DIR/bench.txt" >&2; exit 1; }
# The last report's lines (franz-go, plimsoll, plimsoll-fetch, franz-go-pooled, java), then the ratios off the metrics line.
awk '/consumer_bench_test.go/ {sub(/^.*consumer_bench_test.go:[0-9]+: /, "  "); line[++n]=$0} END {for (i = n-4; i <= n; i++) if (i > 0) print line[i]}' "$DIR/bench.txt"
awk '/^BenchmarkConsumer/ {for (i = 3; i <= NF; i++) if ($i ~ /\/(franz-go|java)-/) printf "  ratio %-22s %s\n", $i, $(i-1)}' "$DIR/bench.txt"
echo "bench-consumer: load average at the end $(cut -d' ' -f1 /proc/loadavg); the targets (issue 15): bytes <= 0.2 B/record, CPU <= 0.5x franz-go and <= 0.25x ConsumerPerformance"
