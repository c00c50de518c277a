#!/bin/sh
# host: exclusive, waits
# vmtax run --dry-run says how long the run will take (docs/estimate.md):
# from the workload's declared estimate until this host has run it, then
# from what its last run here measured (kept in VMTAX_TIMINGS_DIR: every
# test's own, lib-test.sh; else vmtax's cache directory).  The run's first
# lines say the same, its progress lines an ETA.  A figures file that is a symbolic link
# or not root's is neither read nor replaced.  No duration is asserted.
. "$(dirname "$0")/lib-test.sh"
test_prereq ROOT || skip_all "needs root to set host THP"

thp=$(thp_get enabled)
# lib-test.sh keeps the figures of a test's runs in $TRASH/timings
test "$VMTAX_TIMINGS_DIR" = "$TRASH/timings" || skip_all "VMTAX_TIMINGS_DIR is not the test's own"
mkdir -p "$TRASH/wl"
cat >"$TRASH/wl/nap.ini" <<EOF2
[workload]
run = sleep \$S
estimate = 0.2
[param.S]
default = 0.1
EOF2
cat >"$TRASH/wl/bare.ini" <<EOF2
[workload]
run = sleep 0.1
EOF2
for w in nap bare; do
	cat >"$TRASH/$w.ini" <<EOF2
[run]
name = t0262
repeat = 3
warmup = 1
[matrix]
where = bare-metal
host_thp = $thp
[workload]
dir = $TRASH/wl
name = $w
EOF2
done
today=$(date -u +%F)

test_expect_success 'a dry run estimates from the declared estimate' '
	"$VMTAX" run nap.ini --dry-run >out 2>err &&
	grep "^estimate: " out >line &&
	grep -F "(1 cell; samples 3 x 0.2 s (nap, bare-metal, declared: its estimate)" line &&
	grep -F "; 1 warm-up run; 1 start x 3.0 s of setup and the rest (not measured here: assumed))" line &&
	test ! -e timings
'

test_expect_success 'a workload with no estimate: what is assumed is said' '
	"$VMTAX" run bare.ini --dry-run >out 2>err &&
	grep -F "samples 3 x 10.0 s (bare, bare-metal, not measured here: no estimate in '\''$TRASH/wl/bare.ini'\'': assumed 10 s x 1)" out
'

test_expect_success 'a parameter the run sets is said against the declared estimate' '
	"$VMTAX" run nap.ini --dry-run --set workload.S=0.05 >out 2>err &&
	grep -F "(nap, bare-metal, declared: its estimate, at its defaults, which this run changes)" out
'

test_expect_success 'a run says the estimate first, an ETA in its progress' '
	"$VMTAX" run nap.ini --out run1 >/dev/null 2>err &&
	grep -n "" err >numbered &&
	e=$(grep -m1 ": estimate: " numbered | cut -d: -f1) &&
	p=$(grep -m1 "\[1/1\]" numbered | cut -d: -f1) &&
	test -n "$e" && test -n "$p" && test "$e" -lt "$p" &&
	grep "\[1/1\] bare-metal/host-thp=$thp: sample 3/3 (elapsed [0-9]*:[0-9][0-9], ETA [0-9]*:[0-9][0-9])" err
'

test_expect_success 'the run kept its figures: root'\''s, 0644, its schema' '
	f=timings/timings.json &&
	test "$(stat -c "%u %a" "$f")" = "0 644" &&
	test "$(jq -r .schema "$f")" = vmtax-timings/1 &&
	test "$(jq "[.sample | to_entries[] | select(.key | test(\"^nap/[0-9a-f]{16}/bare-metal$\")) | .value.n] | .[0]" "$f")" = 3 &&
	test "$(jq -r ".sample[] | .params" "$f")" = "S=0.1" &&
	test "$(jq -r ".rest | keys[]" "$f" | grep -c "^nap/[0-9a-f]\{16\}$")" = 1 &&
	test "$(jq -r ".rest[].params" "$f")" = "S=0.1" &&
	test "$(jq -r ".rest[].date" "$f")" = "$today" &&
	jq -e ".rest[].s >= 0" "$f"
'

test_expect_success 'the next estimate says its figures were measured here' '
	"$VMTAX" run nap.ini --dry-run >out 2>err &&
	grep -F "(nap, bare-metal, measured here $today)" out &&
	grep -F "of setup and the rest (measured here $today))" out
'

test_expect_success 'other parameters are another figure' '
	"$VMTAX" run nap.ini --dry-run --set workload.S=0.05 >out 2>err &&
	grep -F "(nap, bare-metal, declared: its estimate, at its defaults" out
'

test_expect_success 'a symbolic link in its place is neither read nor replaced' '
	mv timings/timings.json kept.json &&
	ln -s "$TRASH/kept.json" timings/timings.json &&
	"$VMTAX" run nap.ini --dry-run >out 2>err &&
	grep -F "'\''$TRASH/timings/timings.json'\'' is not used: a symbolic link" err &&
	grep -F "declared: its estimate" out &&
	"$VMTAX" run nap.ini --out run2 >/dev/null 2>err &&
	grep -F "this run'\''s figures are not kept: '\''$TRASH/timings/timings.json'\'': a symbolic link" err &&
	test -L timings/timings.json &&
	cmp kept.json timings/timings.json
'

test_expect_success 'a file that is not root'\''s is neither read nor replaced' '
	rm timings/timings.json &&
	cp kept.json timings/timings.json &&
	chown 1:1 timings/timings.json &&
	"$VMTAX" run nap.ini --dry-run >out 2>err &&
	grep -F "is not used: owned by uid 1, not by root" err &&
	"$VMTAX" run nap.ini --out run3 >/dev/null 2>err &&
	grep -F "figures are not kept: '\''$TRASH/timings/timings.json'\'': owned by uid 1, not by root" err &&
	test "$(stat -c %u timings/timings.json)" = 1
'

wait_samples() {
	# wait_samples DIR N: until results.json holds N samples (max ~20 s)
	i=0
	while [ "$(jq '[.cells[].samples[]] | length' "$1/results.json" 2>/dev/null || echo 0)" -lt "$2" ]; do
		i=$((i + 1)); [ $i -lt 200 ] || return 1
		sleep 0.1
	done
}

test_expect_success 'a resumed run says what is left of it' '
	rm -f timings/timings.json &&
	"$VMTAX" run nap.ini --out cut --set workload.S=0.4 >/dev/null 2>&1 &
	pid=$! &&
	wait_samples cut 1 &&
	kill -KILL $pid && { wait $pid || true; } &&
	n=$(jq "[.cells[].samples[]] | length" cut/results.json) &&
	"$VMTAX" run --resume cut >/dev/null 2>err &&
	grep "estimate: resumed with $n of 3 samples taken: [0-9.]* \(s\|min\) left" err &&
	test "$(jq "[.cells[].samples[]] | length" cut/results.json)" = 3
'

test_expect_success 'a resumed run keeps its samples'\'' figures, not its wall'\''s' '
	f=timings/timings.json &&
	test "$(jq "[.sample[] | select(.params == \"S=0.4\")] | length" "$f")" = 1 &&
	test "$(jq ".rest | length" "$f")" = 0
'

test_expect_success 'host THP is as it was' '
	test "$(thp_get enabled)" = "$thp"
'

test_done
