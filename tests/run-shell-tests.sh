#!/bin/sh
# Run every tests/tNNNN-*.sh; print a summary line; fail if any failed.
# A file that skips entirely ("1..0 # SKIP name: reason (missing X)") is
# counted as skipped, not as passed; the summary lists it with its reason,
# and each test skipped inside a file that ran ("ok N - NAME # SKIP reason
# (missing X)").  Under CI=true a skip that names no prerequisite, or one
# the host meets, fails its file (tests/lib-test.sh).
#
#   sh tests/run-shell-tests.sh [-j N]
#
# T=t0010 limits the run to matching files.  J=N (or -j N) runs N tests at
# a time; by default one more than make's -jN (from MAKEFLAGS) or else
# nproc: the tests that need the host take one slot between them, and while
# they run (a TCG guest keeps one CPU busy) the others use the rest.
#
# A test with a line "# host: exclusive" boots guests, changes host state
# (THP, kvm parameters, hugepages, /proc/sys, the vmtax lock) or checks that
# it is unchanged: those run one at a time, each under the host lock
# (flock -o /tmp/vmtax-host.lock, VMTAX_HOST_LOCK_FILE to change it), in
# file order (those that say "# host: exclusive, waits" first), and the
# others run beside them (SCHED_IDLE, else nice 10: a
# guest's timings are asserted, a report's are not).  A caller that already holds
# the lock (flock -o LOCK make check) says so with VMTAX_HOST_LOCK_HELD=1,
# else the runner finds it in /proc/locks held by one of its ancestors: it is
# not taken twice.  Each test's output is printed whole when it ends, with
# its time ("== tNNNN-name: 12s"); a failing test's output is in it.
cd "$(dirname "$0")" || exit 1
while getopts j: opt; do
	case $opt in
	j) J=$OPTARG ;;
	*) echo "usage: $0 [-j N]" >&2; exit 2 ;;
	esac
done
# By default the host's tests take a slot of their own beside make's -jN
# (else nproc) for the others: the host's tests mostly wait on guests, and
# the others, at SCHED_IDLE, only take the CPU they leave, so they are done
# sooner and overlap fewer of the guests (-j1 stays one test at a time).
if [ -z "${J:-}" ]; then
	J=$(printf ' %s\n' "${MAKEFLAGS:-}" | sed -n 's/.* -\{0,1\}[a-zA-Z]*j\([0-9][0-9]*\).*/\1/p')
	[ -n "$J" ] || J=$(nproc 2>/dev/null || echo 1)
	[ "$J" = 1 ] || J=$((J + 1))
fi
case $J in '' | *[!0-9]* | 0) echo "run-shell-tests: bad -j '$J'" >&2; exit 2 ;; esac
LOCK=${VMTAX_HOST_LOCK_FILE:-/tmp/vmtax-host.lock}

# Test bodies chain their lines with && (see chainlint.py): a break fails the suite.
echo "== chainlint"
python3 chainlint.py || { echo "shell-tests: chainlint found broken && chains"; exit 1; }
dir=$(mktemp -d /tmp/vmtax-shell-tests.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM

# lock_held_above: an ancestor of this shell holds a flock on $LOCK.
lock_held_above() {
	[ -e "$LOCK" ] && [ -r /proc/locks ] || return 1
	ino=$(stat -c %i "$LOCK") || return 1
	for holder in $(awk -v i=":$ino" '$2 == "FLOCK" && substr($6, length($6) - length(i) + 1) == i { print $5 }' /proc/locks); do
		p=$$
		while [ "$p" -gt 1 ]; do
			[ "$p" = "$holder" ] && return 0
			p=$(awk '{ print $4 }' "/proc/$p/stat" 2>/dev/null) || break
		done
	done
	return 1
}
if [ "${VMTAX_HOST_LOCK_HELD:-}" != 1 ] && lock_held_above; then
	echo "== the host lock $LOCK is held by this run's caller: not taken again"
	VMTAX_HOST_LOCK_HELD=1
fi
export VMTAX_HOST_LOCK_HELD

: >"$dir/excl"
: >"$dir/free"
: >"$dir/all"
: >"$dir/excl-later"
for t in t[0-9][0-9][0-9][0-9]-*.sh; do
	case "$t" in *"${T:-}"*) ;; *) continue ;; esac
	echo "$t" >>"$dir/all"
	if grep -q '^# host: exclusive, waits$' "$t"; then
		echo "$t" >>"$dir/excl"
	elif grep -q '^# host: exclusive' "$t"; then
		echo "$t" >>"$dir/excl-later"
	else
		echo "$t" >>"$dir/free"
	fi
done
# The host's tests that mostly wait (no guest, no build: "# host:
# exclusive, waits") go first, while the others start beside them: a
# guest's timings suffer from what runs beside it even at SCHED_IDLE
# (t0105 61 s alone, 87 s beside them), a sleep's do not.
cat "$dir/excl-later" >>"$dir/excl"

# run_one T: run T, its output in $dir/T.out, then print it whole with the
# seconds it ran (a wait for the host lock is not counted in them).
run_one() {
	date +%s >"$dir/$1.t0"
	start=$(cat "$dir/$1.t0")
	if ! grep -q '^# host: exclusive' "$1"; then
		# beside the host's tests, which the guests' timings are in:
		# these take only the CPU those leave
		$NICE sh "$1" >"$dir/$1.out" 2>&1
	elif [ "$VMTAX_HOST_LOCK_HELD" = 1 ]; then
		sh "$1" >"$dir/$1.out" 2>&1
	else
		flock -n "$LOCK" true ||
			flock "$dir/print.lock" echo "== $1: waiting for the host lock $LOCK"
		VMTAX_HOST_LOCK_HELD=1 flock -o "$LOCK" \
			sh -c 'date +%s >"$1.t0" && exec sh "$2"' sh "$dir/$1" "$1" \
			>"$dir/$1.out" 2>&1
	fi
	echo $? >"$dir/$1.rc"
	t0=$(cat "$dir/$1.t0")
	waited=
	[ "$t0" = "$start" ] || waited=" (after $((t0 - start))s waiting for the host lock)"
	flock "$dir/print.lock" sh -c 'echo "== $1"; cat "$2"; echo "== $1: $3s$4"' \
		sh "$1" "$dir/$1.out" "$(($(date +%s) - t0))" "$waited"
}

# worker LIST...: run each test of the lists that no worker has claimed yet.
worker() {
	for t in $(cat "$@"); do
		mkdir "$dir/$t.claim" 2>/dev/null || continue
		run_one "$t"
	done
}

wall=$(date +%s)
# The others take only the CPU the host's tests leave: SCHED_IDLE on an
# otherwise idle host, else nice 10 (tests/check-nice.sh says why; the
# Makefile's check decides once and passes it down as CHECK_IDLE).
NICE=
if [ "$J" != 1 ]; then
	NICE=${CHECK_IDLE:-$(sh ./check-nice.sh)}
fi
if [ "$J" = 1 ]; then
	worker "$dir/all"
else
	# One worker takes the host's tests in order, then helps with the rest.
	worker "$dir/excl" "$dir/free" &
	n=1
	while [ $n -lt "$J" ]; do
		worker "$dir/free" &
		n=$((n + 1))
	done
	wait
fi

pass=0 fail=0 skip=0 cases=0 failed="" skipped=""
for t in $(cat "$dir/all"); do
	rc=$(cat "$dir/$t.rc" 2>/dev/null || echo "(not run)")
	why=$(sed -n 's/^1\.\.0 # SKIP [^:]*: //p' "$dir/$t.out" 2>/dev/null | head -n 1)
	if [ "$rc" != 0 ]; then
		fail=$((fail + 1))
		failed="$failed $t"
	elif [ -n "$why" ]; then
		skip=$((skip + 1))
		skipped="$skipped
  $t: $why"
		continue
	else
		pass=$((pass + 1))
	fi
	# the tests skipped inside a file that ran: "'NAME': reason (missing X)"
	inside=$(sed -n "s/^ok [0-9]* - \(.*\) # SKIP \(.*\)\$/  $t: '\1': \2/p" \
		"$dir/$t.out" 2>/dev/null)
	[ -z "$inside" ] || {
		cases=$((cases + $(printf '%s\n' "$inside" | wc -l)))
		skipped="$skipped
$inside"
	}
done
[ -z "$skipped" ] || echo "skipped (files: $skip, tests inside files that ran: $cases):$skipped"
[ -z "$failed" ] || echo "failed:$failed"
echo "== wall: $(($(date +%s) - wall))s with -j $J"
echo "shell-tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
