#!/usr/bin/env bash
# make scenarios: every scenario's full mode, each into ./scenarios-out/NAME (moved aside to
# NAME.previous if it is there), then its report rendered (index.html and the text on stdout).
# SCENARIOS="message-overhead tls-cost" limits it to those names. Each scenario starts and stops
# the cluster it needs; one that fails does not stop the others, and the script exits 1 if any did.
set -uo pipefail
BIN=${1:-bin/plimsoll}
OUT=${2:-scenarios-out}
NAMES=${SCENARIOS:-$("$BIN" scenario list | sed -n 's/^\([a-z0-9-]*\): .*/\1/p')}
mkdir -p "$OUT"
failed=()
for name in $NAMES; do
  dir="$OUT/$name"
  if [ -e "$dir" ]; then rm -rf "$dir.previous" && mv "$dir" "$dir.previous"; fi
  echo "== scenario $name (full mode) into $dir"
  start=$(date +%s)
  "$BIN" scenario run "$name" --mode full --out "$dir"
  code=$?
  echo "== scenario $name: exit $code after $(( $(date +%s) - start )) s"
  [ "$code" = 0 ] || failed+=("$name (exit $code)")
  [ "$code" -ge 128 ] && break # interrupted: stop here
  if [ -f "$dir/results.jsonl" ]; then "$BIN" report "$dir"; fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "scenarios that failed: ${failed[*]}"
  exit 1
fi
