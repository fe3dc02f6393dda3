#!/usr/bin/env bash
# make demo: the main job on the embedded cluster. Bring up a real 3-broker Kafka cluster (with
# emulated NICs when this machine allows it, so it is network-bound like a real cluster), find
# its limit for three message sizes, write the report, and bring the cluster down again
# whatever happens in between.
set -euo pipefail
BIN=${1:-bin/plimsoll}
DIR=${2:-.demo}
REPORT=${3:-plimsoll-report}
CLUSTER="$DIR/cluster"
mkdir -p "$DIR"

cleanup() { "$BIN" cluster down --cluster-dir "$CLUSTER" >/dev/null 2>&1 || true; }
trap cleanup EXIT
cleanup # a cluster left over from an interrupted demo

# 16 Mbit/s per direction: on a 2-core machine the links fill before the CPU does, so the
# boundary is the network's and the model can be checked against it.
NIC=16Mbit/s
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v tc >/dev/null && ip netns list >/dev/null 2>&1; then
  echo "demo: emulated NICs of $NIC per broker (a network namespace and a shaped link each)"
  "$BIN" cluster up --cluster-dir "$CLUSTER" --heap 768m --nic "$NIC"
  SEARCH=(--growth 1.25 --tolerance 0.1)
else
  echo "demo: not root or no iproute2, so no emulated NICs: the cluster runs on loopback and is CPU-bound;"
  echo "      the report measures this host, and there is no model line to compare with"
  "$BIN" cluster up --cluster-dir "$CLUSTER" --heap 768m
  SEARCH=(--growth 2 --tolerance 0.15)
fi

rm -rf "$REPORT"
"$BIN" limit --cluster-dir "$CLUSTER" --message-sizes 100,1000,10000 "${SEARCH[@]}" \
  --trial-duration 10s --warmup 4s --drain-timeout 10s --brokers-down 1 --out "$REPORT"
echo "demo: open $REPORT/index.html (self-contained; the boundary chart is also $REPORT/boundary.png)"
