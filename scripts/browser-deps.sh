#!/bin/sh
# browser-deps.sh start|wait: Debian's chromium for the live page's headless-browser checks
# (TestLimitSearchAndResume drives it through chromedp), installed as root when missing.
#
# `make test` calls `start` first and `wait` just before the integration tests, so that the
# install (about 110 s on a fresh machine: 115 packages, 134 MiB downloaded, measured) runs
# behind vet, the unit tests and the fuzz step instead of before them.
#
# The state (the install's pid, log and exit code) is kept in the checkout's bin/, so that two
# checkouts' `make test` on one machine do not read each other's. An install already under way
# (one left running by a make test that failed early) is waited for, under a lock of this
# machine's, and apt waits for another's dpkg lock instead of failing: a second clean clone's
# make test, started while the first one's install ran, failed on the lock at once.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$root/bin"
state=$root/bin/browser-deps
lock="-o DPkg::Lock::Timeout=600"
case "${1:-}" in
start)
	rm -f "$state.rc"
	if command -v chromium >/dev/null 2>&1; then
		exit 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "note: not root and no chromium, so the live page's browser checks will be skipped"
		exit 0
	fi
	echo "installing chromium for the live page's browser checks in the background (log: $state.log)"
	(
		flock "${TMPDIR:-/tmp}/plimsoll-browser-deps.lock" sh -c "command -v chromium >/dev/null 2>&1 ||
			{ apt-get $lock update -qq && DEBIAN_FRONTEND=noninteractive apt-get $lock install -y -qq chromium; }" >"$state.log" 2>&1
		echo $? >"$state.rc.tmp" && mv "$state.rc.tmp" "$state.rc"
	) >/dev/null 2>&1 &
	echo $! >"$state.pid"
	;;
wait)
	[ -f "$state.pid" ] || exit 0
	pid=$(cat "$state.pid")
	while kill -0 "$pid" 2>/dev/null; do sleep 1; done
	rm -f "$state.pid"
	rc=$(cat "$state.rc" 2>/dev/null || echo 1)
	if [ "$rc" != 0 ]; then
		echo "installing chromium failed (exit $rc); apt-get said:" >&2
		tail -n 20 "$state.log" >&2
		exit 1
	fi
	echo "chromium installed: $(command -v chromium)"
	;;
*)
	echo "usage: $0 start|wait" >&2
	exit 2
	;;
esac
