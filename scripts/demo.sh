#!/usr/bin/env bash
# make demo: bring up the embedded real Kafka cluster, run the main job, write a report, and
# bring the cluster down again, whatever happens in between.
set -euo pipefail
BIN=${1:-bin/plimsoll}
DIR=${2:-.demo}
REPORT=${3:-plimsoll-report}
mkdir -p "$DIR" "$REPORT"
CLUSTER="$DIR/cluster"

cleanup() { "$BIN" cluster down --dir "$CLUSTER" >/dev/null 2>&1 || true; }
trap cleanup EXIT

# A cluster left over from an interrupted demo is taken down first.
"$BIN" cluster down --dir "$CLUSTER" >/dev/null 2>&1 || true
"$BIN" cluster up --dir "$CLUSTER" --heap 768m
"$BIN" cluster status --dir "$CLUSTER" --json > "$REPORT/cluster.json"
echo "demo: cluster status written to $REPORT/cluster.json"
