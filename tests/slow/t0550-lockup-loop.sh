#!/bin/sh
# t0550-lockup-loop: the TCG guest lockup of issue 21 stays away
# (docs/tcg-lockup.md).  tests/slow/lockup-loop.sh boots the tiny guest
# LOCKUP_BOOTS times (20) through libvirt as vmtax does (2 vCPUs, 2 GiB,
# guest THP never) and sends LOCKUP_EXECS runs (40) with the perf counters
# on to its agent; before the agent held its counters about one boot in
# four of these locked up (4 of 15).  Prints the count; asserts none.
# Slow: about 30 s a boot here.  Run by 'make check-slow', under the host
# lock (flock -o /tmp/vmtax-host.lock).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "needs root (libvirt's system connection)"
test_need LIBVIRT
test_need TINY
[ -x "$BUILD/tests/agent-drive" ] || skip_all "no $BUILD/tests/agent-drive (make)"

BOOTS=${LOCKUP_BOOTS:-20}
EXECS=${LOCKUP_EXECS:-40}

test_expect_success "no lockup in $BOOTS boots of $EXECS runs with counters" '
	DRIVE="$BUILD/tests/agent-drive" EXECS=$EXECS \
		WL_ARGS="--size-mib 64 --reads 100000 --seed 1" \
		sh "$TOP/tests/slow/lockup-loop.sh" "$BOOTS" >loop.out &&
	cat loop.out &&
	grep "^lockups 0 in $BOOTS boots ($((BOOTS * EXECS)) runs, 0 failed otherwise; " loop.out
'
echo "# $(tail -n 1 "$TRASH/loop.out" 2>/dev/null)"

test_done
