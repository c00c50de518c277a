#!/bin/sh
# host: exclusive, waits
# Durable results and resume: a run killed with SIGKILL, or stopped with one
# SIGINT, resumes to the same cells and samples as an uninterrupted run,
# never repeating a completed sample; a changed config is refused.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host THP"

thp_before=$(thp_get enabled)
mkdir -p "$TRASH/wl"
cat >"$TRASH/wl/nap.ini" <<'EOF2'
[workload]
description = sleeps, then prints a number
run = sleep $NAP; echo "value: 42"
metric = regex
metric_regex = value: ([0-9]+)
unit = points
better = higher
[param.NAP]
default = 0.4
EOF2
cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0130
repeat = 4
[matrix]
where = bare-metal
host_thp = always, never
[workload]
dir = $TRASH/wl
name = nap
EOF2

samples() {
	jq -r '.cells[] | .id as $c | .samples[] | "\($c) \(.index) \(.status) \(.metric)"' "$1/results.json" | sort
}
wait_samples() {
	# wait_samples DIR N: until results.json holds N samples (max ~20 s)
	i=0
	while [ "$(jq '[.cells[].samples[]] | length' "$1/results.json" 2>/dev/null || echo 0)" -lt "$2" ]; do
		i=$((i + 1)); [ $i -lt 200 ] || return 1
		sleep 0.1
	done
}

test_expect_success 'an uninterrupted run for reference' '
	"$VMTAX" run run.ini --out ref >/dev/null 2>&1 &&
	samples ref >ref.samples &&
	test "$(wc -l <ref.samples)" = 8
'

test_expect_success 'SIGKILL mid-run leaves the completed samples on disk' '
	"$VMTAX" run run.ini --out killed >/dev/null 2>killed.err &
	pid=$! &&
	wait_samples killed 3 &&
	kill -KILL $pid && { wait $pid || true; } &&
	n=$(jq "[.cells[].samples[]] | length" killed/results.json) &&
	test "$n" -ge 3 && test "$n" -lt 8 &&
	test "$(wc -l <killed/samples.jsonl)" -ge "$n" &&
	jq -e ".run.status == \"running\"" killed/results.json
'

test_expect_success 'vmtax host restore puts host THP back after SIGKILL' '
	"$VMTAX" host restore >restore.out 2>&1 &&
	test "$(thp_get enabled)" = "$thp_before"
'

test_expect_success 'resume completes the same cells and samples, repeating none' '
	samples killed >before.samples &&
	"$VMTAX" run --resume killed >/dev/null 2>resume.err &&
	samples killed >after.samples &&
	cmp ref.samples after.samples &&
	comm -23 before.samples after.samples >lost && test ! -s lost &&
	jq -e ".run.status == \"complete\" and (.run.resumed | length) == 1" killed/results.json &&
	grep -q "already measured" resume.err
'

test_expect_success 'one SIGINT stops after the current sample, restores, can resume' '
	"$VMTAX" run run.ini --out int >/dev/null 2>int.err &
	pid=$! &&
	wait_samples int 2 &&
	kill -INT $pid &&
	test_expect_code 1 wait $pid &&
	test "$(thp_get enabled)" = "$thp_before" &&
	jq -e ".run.status == \"interrupted\"" int/results.json &&
	"$VMTAX" run --resume int >/dev/null 2>&1 &&
	samples int >int.samples &&
	cmp ref.samples int.samples
'

test_expect_success 'a complete run is not resumed' '
	test_expect_code 2 "$VMTAX" run --resume ref 2>err1 &&
	grep -q "complete" err1
'

test_expect_success 'a changed config is refused, unless --force' '
	{ "$VMTAX" run run.ini --out chg >/dev/null 2>&1 & } &&
	pid=$! && wait_samples chg 1 && kill -KILL $pid &&
	{ wait $pid || true; } &&
	"$VMTAX" host restore >/dev/null 2>&1 &&
	echo "; changed" >>run.ini &&
	test_expect_code 2 "$VMTAX" run --resume chg 2>err2 &&
	grep -q "changed since the run began" err2 &&
	"$VMTAX" run --resume chg --force >/dev/null 2>&1 &&
	test "$(jq "[.cells[].samples[]] | length" chg/results.json)" = 8
'

test_expect_success 'a run written before axes existed resumes (--force: run.ini changed above), and gains them' '
	cp -r ref old &&
	jq "del(.axes) | del(.cells[].axes) | .run.status = \"running\" |
	    .run.finished = null | .cells[1].status = \"pending\" |
	    .cells[1].samples = .cells[1].samples[0:2]" ref/results.json >old/results.json &&
	: >old/samples.jsonl &&
	"$VMTAX" run --resume old --force >/dev/null 2>old.err &&
	samples old >old.samples &&
	cmp ref.samples old.samples &&
	jq -e ".run.status == \"complete\" and (.axes | length) > 0 and
	       ([.cells[] | select(.axes == null)] | length) == 0" old/results.json &&
	python3 "$TOP/tests/check-results.py" old/results.json
'

test_expect_success 'host THP is as before' '
	test "$(thp_get enabled)" = "$thp_before"
'
test_done
