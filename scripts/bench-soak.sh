#!/usr/bin/env bash
# make bench-soak: plimsoll's own memory over a long run. Starts a local 3-broker cluster (its
# own, brought down at the end), runs `plimsoll run` for SOAK_DURATION at SOAK_RATE messages/s,
# and prints plimsoll's resident set (VmRSS) and its peak (VmHWM) from /proc/PID/status every
# SOAK_EVERY seconds, then the growth per hour fitted over the measured window (after the
# warm-up). Not part of make test: it takes as long as the run. SOAK_BOOTSTRAP=host:port runs
# against that cluster instead of starting one (with --replication-factor 1 unless SOAK_ARGS
# says otherwise).
set -euo pipefail
BIN=${1:-bin/plimsoll}
DURATION=${SOAK_DURATION:-30m}
RATE=${SOAK_RATE:-1000}
EVERY=${SOAK_EVERY:-30}
WARMUP=${SOAK_WARMUP:-30s}
DIR=$(mktemp -d /tmp/plimsoll-soak-XXXXXX)
CLUSTER="$DIR/cluster"

cleanup() {
  [ -n "${PID:-}" ] && kill "$PID" 2>/dev/null || true
  [ -n "${SOAK_BOOTSTRAP:-}" ] || "$BIN" cluster down --cluster-dir "$CLUSTER" >/dev/null 2>&1 || true
}
trap cleanup EXIT

if [ -n "${SOAK_BOOTSTRAP:-}" ]; then
  WHERE=(--bootstrap "$SOAK_BOOTSTRAP" --replication-factor 1)
  echo "soak: plimsoll run --duration $DURATION --warmup $WARMUP --rate $RATE (1 KB messages) against $SOAK_BOOTSTRAP; out $DIR/run"
else
  "$BIN" cluster up --cluster-dir "$CLUSTER" --heap 768m >"$DIR/cluster-up.log" 2>&1
  WHERE=(--cluster-dir "$CLUSTER")
  echo "soak: plimsoll run --duration $DURATION --warmup $WARMUP --rate $RATE (1 KB messages) on a local 3-broker cluster; out $DIR/run"
fi
# shellcheck disable=SC2086
"$BIN" run "${WHERE[@]}" --duration "$DURATION" --warmup "$WARMUP" --rate "$RATE" \
  --out "$DIR/run" --quiet ${SOAK_ARGS:-} >"$DIR/run.log" 2>&1 &
PID=$!
start=$(date +%s)
printf '%8s %12s %12s\n' elapsed_s rss_kB peak_kB | tee "$DIR/rss.txt"
while kill -0 "$PID" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/{print $2}' "/proc/$PID/status" 2>/dev/null || true)
  hwm=$(awk '/^VmHWM:/{print $2}' "/proc/$PID/status" 2>/dev/null || true)
  [ -n "$rss" ] && printf '%8d %12s %12s\n' $(( $(date +%s) - start )) "$rss" "$hwm" | tee -a "$DIR/rss.txt"
  sleep "$EVERY"
done
wait "$PID" && code=0 || code=$?
PID=
echo "soak: the run exited $code (3 and 4 are verdicts); its log: $DIR/run.log"
# Least-squares slope of RSS, in MB per hour, over the samples after the warm-up's end, and over
# those after the first ten minutes and a half: the probe's samples, the histograms and the
# timeline rows are held for ten minutes before they spill, so the first fit includes their
# filling and the second shows what a longer run adds.
warm=$(awk -v w="$WARMUP" 'BEGIN{n=w+0; if (w ~ /m$/) n*=60; print n}')
fit() {
  awk -v from="$1" -v what="$2" 'NR>1 && $1>from {n++; sx+=$1; sy+=$2; sxx+=$1*$1; sxy+=$1*$2; if (lo==""||$2<lo) lo=$2; if ($2>hi) hi=$2}
    END { if (n < 3) { printf "soak: %s: too few samples to fit a growth\n", what; exit }
          b=(n*sxy-sx*sy)/(n*sxx-sx*sx); printf "soak: %s: RSS grows %.1f MB per hour over %d samples (%.0f kB/s), between %.1f and %.1f MB\n", what, b*3600/1024, n, b, lo/1024, hi/1024 }' "$DIR/rss.txt"
}
fit $((warm + 10)) "after the warm-up"
fit 630 "after the first ten minutes (the spills under way)"
