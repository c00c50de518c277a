#!/bin/sh
# host: exclusive
# Adaptive sampling ([run] target, max_repeat; docs/sampling.md) on bare
# metal, with a workload whose metric the test controls per cell: a steady
# cell settles on the target at the minimum of 5 samples, a noisy one runs
# to max_repeat (and so does the baseline, sampled alongside), a rising one
# and one with a spike are flagged in the reports (never dropped); without
# a target every cell stops at repeat.
# Each stop reason is recorded in results.json and shown in every format.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host THP"

thp_before=$(thp_get enabled)
mkdir -p "$TRASH/wl" "$TRASH/state"
# KIND 0: 100 every time; 1: 100 and 180 in turn; 2: 100 + the sample's
# number (rising); 3: 100, but 500 on the fourth sample; 4: 100 and 180 in
# turn, and 5 twice that (in the same round, a ratio of exactly 2).
cat >"$TRASH/wl/ctl.sh" <<'EOF2'
f=$STATE/n.$KIND
n=$(cat $f 2>/dev/null || echo 0)
echo $((n + 1)) >$f
case $KIND in
0) v=100 ;;
1) v=$((100 + (n % 2) * 80)) ;;
2) v=$((100 + n)) ;;
3) v=100; [ $n = 3 ] && v=500 ;;
4) v=$((100 + (n % 2) * 80)) ;;
5) v=$((200 + (n % 2) * 160)) ;;
esac
echo "v: $v"
EOF2
cat >"$TRASH/wl/ctl.ini" <<EOF2
[workload]
description = a metric the test controls, per KIND
run = sh $TRASH/wl/ctl.sh
metric = regex
metric_regex = v: ([0-9]+)
unit = points
better = lower
[param.KIND]
default = 0
[param.STATE]
default = /nonexistent
EOF2
cat >"$TRASH/adapt.ini" <<EOF2
[run]
name = t0260
repeat = 3
target = 2%
max_repeat = 8
baseline = bare-metal/host-thp=always/KIND=0
[matrix]
where = bare-metal
host_thp = always
[workload]
dir = $TRASH/wl
name = ctl
KIND = 0, 1, 2, 3
STATE = $TRASH/state
EOF2

test_expect_success 'a run with a target: each cell stops for its own reason' '
	"$VMTAX" run adapt.ini --out adapt >out 2>err &&
	jq -r ".cells[] | \"\(.id) \(.stop_reason) \(.samples | length)\"" \
		adapt/results.json >got &&
	cat >want <<-\EOF2 &&
	bare-metal/host-thp=always/KIND=0 max_repeat 8
	bare-metal/host-thp=always/KIND=1 max_repeat 8
	bare-metal/host-thp=always/KIND=2 target 5
	bare-metal/host-thp=always/KIND=3 max_repeat 8
	EOF2
	test_cmp want got &&
	grep -q "pass 1: .* more samples" err
'

test_expect_success 'order = cells: the same stop reasons, in rounds of cells' '
	rm -f state/* &&
	"$VMTAX" run adapt.ini --set run.order=cells --out adapt-cells >out 2>err &&
	jq -r ".cells[] | \"\(.id) \(.stop_reason) \(.samples | length)\"" \
		adapt-cells/results.json >got &&
	test_cmp want got &&
	grep -q "round 1: .* more samples" err &&
	test "$(jq -r .schedule.order adapt-cells/results.json)" = cells
'

test_expect_success 'every cell is ok, with consecutive sample indexes' '
	test "$(jq -r "[.cells[].status] | unique | join(\",\")" adapt/results.json)" = ok &&
	test "$(jq "[.cells[] | [.samples[].index] == [range(.samples | length)]] | all" adapt/results.json)" = true
'

test_expect_success 'text shows each stop reason, the trend and the outlier' '
	"$VMTAX" report adapt >report.txt &&
	grep -q "stopped: target met (half-width .*, 5 samples)" report.txt &&
	grep -q "stopped: max_repeat reached (half-width .*, 8 samples)" report.txt &&
	grep -q "trend over the samples (Mann-Kendall): rising, p" report.txt &&
	grep -q "outliers (modified z > 3.5, kept): samples 3$" report.txt
'

test_expect_success 'md, csv, json and html show the stop reasons' '
	"$VMTAX" report --format md adapt >report.md &&
	grep -q "^## Sampling" report.md &&
	grep -q "| max_repeat reached (" report.md &&
	"$VMTAX" report --format csv adapt >report.csv &&
	grep -q "^sampling,bare-metal/host-thp=always/KIND=2,stop_reason,ok,target," report.csv &&
	grep -q "^sampling,bare-metal/host-thp=always/KIND=3,outliers,ok,samples 3,,8,1," report.csv &&
	"$VMTAX" report --format json adapt >report.json &&
	test "$(jq -r "[.cells[].sampling.stop_reason] | join(\",\")" report.json)" = max_repeat,max_repeat,target,max_repeat &&
	test "$(jq -c ".cells[3].sampling.outliers" report.json)" = "[3]" &&
	"$VMTAX" report --format html adapt >report.html &&
	grep -q "<h2>Sampling</h2>" report.html &&
	grep -q "<td>target met (" report.html
'

# The plan judges the interval the report prints (reports/slowdown.h):
# interleaved, KIND 5 against KIND 4 is exactly 2 in every round, so the
# paired interval has no width and the cell stops on the target at the
# minimum of 5, with the half-width its report prints; Fieller's over the
# two sides' means (each side 100/180 in turn: a CV near 30%) is far
# wider, and in cells order, where the report prints it, both run to the
# cap.
sed -e "s/^KIND = .*/KIND = 4, 5/" -e "s/KIND=0$/KIND=4/" \
	"$TRASH/adapt.ini" >"$TRASH/pair.ini"
test_expect_success 'the stop rule judges the interval the report prints' '
	rm -f state/* &&
	"$VMTAX" run pair.ini --out pair >out 2>err &&
	jq -r ".cells[] | \"\(.id) \(.stop_reason) \(.samples | length)\"" \
		pair/results.json >got &&
	cat >want <<-\EOF2 &&
	bare-metal/host-thp=always/KIND=4 target 5
	bare-metal/host-thp=always/KIND=5 target 5
	EOF2
	test_cmp want got &&
	grep -q "KIND=5: done sampling (target): 5 samples, interval half-width 0.00% (paired rounds)" err &&
	"$VMTAX" report pair >pair.txt &&
	grep -q "^ stopped: target met (half-width 0.00%, 5 samples)$" pair.txt &&
	grep -q "(paired rounds), p " pair.txt &&
	rm -f state/* &&
	"$VMTAX" run pair.ini --set run.order=cells --out pair-cells >out 2>err &&
	jq -r ".cells[] | \"\(.id) \(.stop_reason) \(.samples | length)\"" \
		pair-cells/results.json >got &&
	cat >want <<-\EOF2 &&
	bare-metal/host-thp=always/KIND=4 max_repeat 8
	bare-metal/host-thp=always/KIND=5 max_repeat 8
	EOF2
	test_cmp want got &&
	"$VMTAX" report pair-cells >pair-cells.txt &&
	grep -q "(Fieller), Welch p " pair-cells.txt
'

test_expect_success 'without a target every cell stops at repeat' '
	rm -f state/* &&
	"$VMTAX" run adapt.ini --set run.target= --set run.max_repeat=3 --out fixed >out 2>err &&
	test "$(jq -r "[.cells[] | \"\(.stop_reason):\(.samples | length)\"] | unique | join(\",\")" fixed/results.json)" = repeat:3 &&
	! grep -q "pass 1" err
'

test_expect_success 'bad sampling keys are refused, each with its reason' '
	test_expect_code 2 "$VMTAX" run adapt.ini --set run.target=2 --out bad1 2>err1 &&
	grep -q "bad target .2. (want a percentage" err1 &&
	test_expect_code 2 "$VMTAX" run adapt.ini --set run.target=0% --out bad2 2>err2 &&
	grep -q "bad target .0%. (want a percentage" err2 &&
	test_expect_code 2 "$VMTAX" run adapt.ini --set run.max_repeat=2 --out bad3 2>err3 &&
	grep -q "max_repeat = 2 is below repeat = 3" err3 &&
	test_expect_code 2 "$VMTAX" run adapt.ini --set run.boots=4 --out bad4 2>err4 &&
	grep -q "boots = 4 needs at least as many samples (repeat = 3)" err4 &&
	test ! -e bad1/results.json
'

# In a guest: 100, 101, ... counting from each fresh guest's first sample.
cat >"$TRASH/wl/rise.ini" <<'EOF2'
[workload]
description = 100 + the number of samples before this one in this guest
run = n=$(cat n 2>/dev/null || echo 0); echo $((n + 1)) >n; echo "v: $((100 + n))"
metric = regex
metric_regex = v: ([0-9]+)
unit = points
better = lower
EOF2
cat >"$TRASH/boots.ini" <<EOF2
[run]
name = t0260b
repeat = 4
boots = 2
[guest]
memory = 512M
[matrix]
where = guest
host_thp = always
guest_thp = always
[workload]
dir = $TRASH/wl
name = rise
EOF2

test_expect_success LIBVIRT,TINY 'boots = 2: four samples in two fresh guests' '
	"$VMTAX" run boots.ini --out boots >out 2>err &&
	test "$(jq -c "[.cells[0].samples[].boot]" boots/results.json)" = "[0,0,1,1]" &&
	test "$(jq -c "[.cells[0].samples[].metric]" boots/results.json)" = "[100,101,100,101]" &&
	test "$(jq -r ".cells[0].observed.guest_boots" boots/results.json)" = 2 &&
	test "$(jq -r ".cells[0].sample_unit" boots/results.json)" = boot &&
	test "$(jq -r ".cells[0].stop_reason" boots/results.json)" = repeat &&
	test -s boots/logs/guest_host-thp_always_guest-thp_always.boot1.console.log
'
test_expect_success LIBVIRT,TINY 'the report splits the variance by boot' '
	"$VMTAX" report boots >boots.txt &&
	grep -q "boots: 2 boots, sd of the samples within a boot 0.7071, sd of the boot means 0; interval over boot means" boots.txt &&
	"$VMTAX" report --format json boots >boots.json &&
	test "$(jq -r ".cells[0].sampling.units" boots.json)" = 2 &&
	test "$(jq -r ".cells[0].sampling.boots.boot_means_var == 0" boots.json)" = true
'
test_expect_success LIBVIRT,TINY 'no guest of this test is left running' '
	! virsh -c qemu:///system list --name | grep -q "^vmtax-t0260b-"
'

test_expect_success 'the host is left as found' '
	test "$(thp_get enabled)" = "$thp_before"
'

test_done
