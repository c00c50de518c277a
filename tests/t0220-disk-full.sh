#!/bin/sh
# host: exclusive, waits
# A run directory on a full disk: the run stops at once instead of measuring
# samples it cannot record, says how many samples were kept, leaves no
# temporary file, and resumes to completion once there is room.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to mount a small tmpfs and set host THP"

thp_before=$(thp_get enabled)
mkdir -p "$TRASH/wl" "$TRASH/small"
cat >"$TRASH/wl/chatty.ini" <<'EOF2'
[workload]
description = prints a number and some padding
run = echo "value: 7"; head -c 6000 /dev/zero | tr '\0' x
metric = regex
metric_regex = value: ([0-9]+)
unit = points
better = higher
EOF2
cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0220
repeat = 40
[matrix]
where = bare-metal
host_thp = always
[workload]
dir = $TRASH/wl
name = chatty
EOF2

test_expect_success 'a run whose directory fills up stops at once, resumable' '
	mount -t tmpfs -o size=96k tmpfs small &&
	rc=0 && { "$VMTAX" run run.ini --out small/run >out 2>err || rc=$?; } &&
	test "$rc" = 1 &&
	grep -q "cannot be written" err &&
	grep -q "samples are in samples.jsonl" err &&
	grep -q "vmtax run --resume" err &&
	! ls small/run/results.json.tmp* 2>/dev/null &&
	kept=$(wc -l <small/run/samples.jsonl) &&
	test "$kept" -gt 0 && test "$kept" -lt 40 &&
	started=$(grep -c "sample [0-9]*/40" err) &&
	test "$started" -le $((kept + 2))
'

test_expect_success 'with room again, --resume completes the run' '
	mount -o remount,size=64m small &&
	"$VMTAX" run --resume small/run >out2 2>err2 &&
	jq -e ".run.status == \"complete\"" small/run/results.json &&
	jq -e ".cells[0].status == \"ok\"" small/run/results.json &&
	test "$(jq ".cells[0].samples | length" small/run/results.json)" = 40 &&
	test "$(jq "[.cells[0].samples[].index] | unique | length" small/run/results.json)" = 40
'

test_expect_success 'host THP is as before' '
	umount small &&
	test "$(thp_get enabled)" = "$thp_before"
'
mountpoint -q "$TRASH/small" && umount "$TRASH/small"
test_done
