#!/bin/sh
# host: exclusive
# order = interleaved (docs/sampling.md): groups of cells that share host
# settings, shuffled rounds, boots as a level, each guest's backing kept
# through the rounds, paired and bridged slowdowns; vmtax calibrate (an A/A
# run) writes both runs and its verdict.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-faults.sh"
test_need ROOT "needs root to set host THP"
test_need LIBVIRT
test_need TINY

thp_before=$(thp_get enabled)

cat >"$TRASH/il.ini" <<EOF2
[run]
name = t0105
repeat = 2
boot_timeout = 180
seed = 7
baseline = bare-metal/host-thp=always
[guest]
vcpus = 1
memory = 1G
[matrix]
host_thp = always, never
guest_thp = always
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 32
READS = 50000
EOF2

test_expect_success 'an interleaved run of two host THP modes completes' '
	"$VMTAX" run il.ini --out il >stdout 2>stderr &&
	python3 "$TOP/tests/check-results.py" il/results.json &&
	grep -q "interleaved rounds (seed 7): 2 groups" stderr
'

# A resumed run whose guest still needs a round when its baseline has no
# sample of its plan left (a lab that hung took the guest's last sample
# with it, 2026-12-05): the baseline takes one more, in the guest's round,
# so that round pairs; unpaired, the cell's interval had one unit (df 0).
# The guest's last sample is taken out of both records a resume reads:
# results.json and samples.jsonl (which gives back a sample results.json
# lacks).
test_expect_success 'resumed: the baseline takes a sample to pair with a guest round it lacks' '
	cp -r il il2 &&
	g=guest/host-thp=always/guest-thp=always &&
	b=bare-metal/host-thp=always &&
	last=$(jq "[.cells[] | select(.id == \"$g\") | .samples[].round] | max" il/results.json) &&
	jq "(.cells[] | select(.id == \"$g\")) |= (.samples |= map(select(.round != $last)) | .status = \"pending\" | .stop_reason = null) | .run.status = \"interrupted\"" \
		il/results.json >il2/results.json &&
	jq -c "select((.cell == \"$g\" and .sample.round == $last) | not)" il/samples.jsonl >il2/samples.jsonl &&
	test "$(wc -l <il2/samples.jsonl)" = $(($(wc -l <il/samples.jsonl) - 1)) &&
	"$VMTAX" run --resume il2 >stdout2 2>stderr2 &&
	n=$(jq "[.cells[].samples[]] | length" il/results.json) &&
	grep -q "resuming .*: $((n - 1)) samples already measured" stderr2 &&
	new=$(jq "[.cells[] | select(.id == \"$g\") | .samples[].round] | max" il2/results.json) &&
	test "$new" -gt "$last" &&
	test "$(jq "[.cells[] | select(.id == \"$g\") | .samples[] | select(.status == \"ok\")] | length" il2/results.json)" = 2 &&
	jq -e "[.cells[] | select(.id == \"$b\") | .samples[].round] | index($new) != null" il2/results.json &&
	test "$(jq "[.cells[] | select(.id == \"$b\") | .samples[]] | length" il2/results.json)" = 3 &&
	"$VMTAX" report il2 -f json >report2.json &&
	test "$(jq -r ".cells[] | select(.id == \"$g\") | .interval.rounds" report2.json)" = 2
'

test_expect_success 'the schedule: two groups, split by host THP, with the seed' '
	test "$(jq -r .schedule.order il/results.json)" = interleaved &&
	test "$(jq -r .schedule.seed il/results.json)" = 7 &&
	test "$(jq -r ".schedule.groups | length" il/results.json)" = 2 &&
	test "$(jq -r ".schedule.groups[0].shares" il/results.json)" = "guests with host THP always" &&
	test "$(jq -r ".schedule.groups[1].shares" il/results.json)" = "guests with host THP never" &&
	jq -e ".schedule.groups[1].cells | index(\"bare-metal/host-thp=never\") != null" il/results.json &&
	jq -e ".schedule.groups[1].cells | index(\"bare-metal/host-thp=always\") == null" il/results.json
'

test_expect_success 'every sample has a round; each guest cell booted twice' '
	test "$(jq "[.cells[].samples[] | select(.round == null)] | length" il/results.json)" = 0 &&
	test "$(jq -c "[.cells[] | select(.env.where == \"guest\") | [.samples[].boot]]" il/results.json)" = "[[0,1],[0,1]]" &&
	test "$(jq -r "[.cells[] | select(.id == \"bare-metal/host-thp=never\") | .samples | length][0]" il/results.json)" = 4
'

test_expect_success 'the never-group shares no round with the baseline' '
	jq -e "(.cells[] | select(.id == \"bare-metal/host-thp=always\") | [.samples[].round]) as \$b |
		(.cells[] | select(.id == \"guest/host-thp=never/guest-thp=always\") | [.samples[].round]) as \$g |
		(\$b - \$g) == \$b" il/results.json
'

test_expect_success 'each guest kept its backing through the rounds' '
	jq -e "[.cells[] | select(.id == \"guest/host-thp=never/guest-thp=always\") | .samples[].qemu_anon_huge_kb_before] | all(. == 0)" il/results.json &&
	jq -e "[.cells[] | select(.id == \"guest/host-thp=always/guest-thp=always\") | .samples[].qemu_anon_huge_kb_before] | all(. > 0)" il/results.json
'

test_expect_success 'the report pairs the always guest and bridges the never guest' '
	"$VMTAX" report il >rep &&
	grep -q "(paired rounds)" rep &&
	grep -q "interval: paired through bare-metal/host-thp=never" rep &&
	"$VMTAX" report il --format json >rep.json &&
	jq -e "[.cells[] | select(.interval.method == \"paired, bridged\")] | length == 1" rep.json &&
	jq -e "[.cells[] | select(.interval.method == \"paired rounds\")] | length == 2" rep.json
'

# One boot per replica (calib-small.ini has two): what calibrate writes and
# its verdict do not depend on them; two boots per cell are asserted above.
test_expect_success 'vmtax calibrate writes both runs and the verdict' '
	rc=0 &&
	"$VMTAX" calibrate "$TOP/configs/calib-small.ini" --out cal \
		--set workload.SIZE_MIB=16 --set workload.READS=50000 --set run.repeat=2 \
		--set run.boots=1 >cal.out 2>cal.err || rc=$? &&
	{ test $rc = 0 || test $rc = 1; } &&
	test -f cal/a/results.json && test -f cal/b/results.json &&
	test -f cal/a/report.txt &&
	test "$(jq -r ".cells | length" cal/a/results.json)" = 2 &&
	test "$(jq -r .baseline cal/b/results.json)" = "bare-metal/host-thp=always" &&
	jq -e ".consistent | type == \"boolean\"" cal/calibration.json &&
	test "$(jq -r ".cells | length" cal/calibration.json)" = 2 &&
	grep -q "^verdict: " cal.out &&
	grep -q "ratio intervals holding 1: " cal/calibration.txt &&
	if test $rc = 0; then grep -q "^verdict: consistent" cal.out; else grep -q "^verdict: NOT consistent" cal.out; fi
'

test_expect_success 'calibrate refuses bad usage with exit 2' '
	test_expect_code 2 "$VMTAX" calibrate "$TOP/configs/calib-small.ini" 2>err &&
	grep -q "usage: vmtax calibrate" err
'

test_expect_success 'plan = auto: a sizing pass, then the boots and samples it chose' '
	"$VMTAX" run "$TOP/configs/calib-small.ini" --out auto \
		--set run.boots=0 --set run.plan=auto --set run.max_boots=3 \
		--set run.max_repeat=6 --set workload.SIZE_MIB=16 --set workload.READS=50000 >auto.out 2>auto.err &&
	grep -q "sizing: group 1 of 1" auto.err &&
	g=".cells[] | select(.env.where == \"guest\")" &&
	jq -e "$g | .plan.samples_per_boot >= 1 and .plan.boots >= 2 and .plan.boots <= 3" auto/results.json &&
	jq -e "$g | .stop_reason == \"plan\"" auto/results.json &&
	jq -e "$g | (.samples | length) == 4 + (.plan.boots - 2) * .plan.samples_per_boot" auto/results.json &&
	jq -e "$g | ([.samples[].boot] | unique | length) == .plan.boots" auto/results.json &&
	jq -e "$g | .plan.why | test(\"samples? per boot\")" auto/results.json &&
	jq -e "$g | .plan | has(\"log_within_var\") and has(\"log_between_var\") and (has(\"between_var\") | not)" auto/results.json &&
	jq -e "$g | .variance | has(\"log_between_var\") and (has(\"between_var\") | not)" auto/results.json &&
	python3 "$TOP/tests/check-results.py" auto/results.json
'

# A guest killed mid-round is replaced (retries) and the round goes on.
mkdir "$TRASH/wl" &&
printf '[workload]\ndescription = a slow sample\nrun = sleep 2.5;echo done\nmetric = elapsed\n' >"$TRASH/wl/slow.ini"
cat >"$TRASH/die.ini" <<EOF2
[run]
name = t0105die
repeat = 2
boots = 1
retries = 1
boot_timeout = 180
[guest]
vcpus = 1
memory = 1G
[matrix]
host_thp = always
guest_thp = always
[workload]
dir = $TRASH/wl
name = slow
EOF2

test_expect_success 'a guest killed mid-round is replaced and the round goes on' '
	vmtax_bg die.ini die &&
	wait_for die.stderr "guest/host-thp=always/guest-thp=always: sample 1/2" 300 &&
	sleep 1 &&
	pid=$(qemu_pid t0105die) &&
	kill -KILL "$pid" &&
	vmtax_wait $VPID die 600 &&
	test "$(cat die.rc)" = 0 &&
	res die "[.cells[] | .status] | all(. == \"ok\")" &&
	res die "[.cells[] | [.samples[] | select(.status == \"ok\")] | length] == [2, 2]" &&
	res die ".cells[] | select(.env.where == \"guest\") | (.observed.guest_restarts | length) == 1" &&
	res die "[.cells[].samples[] | select(.status == \"ok\") | .round] | sort == [0, 0, 1, 1]"
'

# vmtax host restore after a run killed (SIGKILL) as it started a guest:
# libvirt autodestroys that guest only once it has finished starting it
# (about 4 s here); restore returns when it is gone, so a script that
# checks right after sees no vmtax-* domain (issue 33).
test_expect_success 'host restore after SIGKILL at a guest start returns with no domain left' '
	vmtax_bg il.ini killed --set run.seed=9 &&
	wait_for killed.stderr "booting guest" 300 &&
	kill -KILL "$VPID" &&
	{ wait "$VPID" || true; } &&
	"$VMTAX" host restore 2>restore.err &&
	cat restore.err &&
	no_vmtax_domains &&
	test "$(thp_get enabled)" = "$thp_before"
'

test_expect_success 'host THP is as before and no vmtax domain is left' '
	test "$(thp_get enabled)" = "$thp_before" &&
	no_vmtax_domains
'

test_done
