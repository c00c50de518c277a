#!/bin/sh
# host: exclusive
# Quiet-host evidence before each sample ([run] quiet_wait, quiet_others),
# busy samples flagged in every report format, and [guest] pin.
. "$(dirname "$0")/lib-test.sh"

busy=$TOP/tests/fixtures/results-busy.json

test_expect_success 'report: a busy sample is flagged in text, md, csv, json, html' '
	"$VMTAX" report "$busy" --format text >r.txt &&
	grep -q "warning: 1 of 3 samples taken on a busy host (2 other runnable" r.txt &&
	grep -q "^ sample 1: busy host$" r.txt &&
	"$VMTAX" report "$busy" --format md >r.md &&
	grep -q "bare-metal/host-thp=always.: \*\*busy host\*\*: 1 of 3" r.md &&
	"$VMTAX" report "$busy" --format csv >r.csv &&
	grep -q "^busy,bare-metal/host-thp=always,THP always host,ok,2 other runnable tasks.*,1,,," r.csv &&
	python3 -c "import csv,sys; n={len(r) for r in csv.reader(open(\"r.csv\"))}; sys.exit(len(n) != 1)" &&
	"$VMTAX" report "$busy" --format json >r.json &&
	test "$(jq ".cells[0].busy_samples" r.json)" = 1 &&
	test "$(jq ".cells[1].busy_samples" r.json)" = null &&
	"$VMTAX" report "$busy" --format html >r.html &&
	grep -q "class=\"flag\"><td>bare-metal/host-thp=always<.*busy host: 1 of 3" r.html
'

test_expect_success 'report: a run without host_quiet says nothing of it' '
	"$VMTAX" report "$TOP/tests/fixtures/results-demo.json" --format text >d.txt &&
	! grep -qi busy d.txt
'

w="[workload]
dir = $TOP/configs/workloads
name = randwalk"
bad() {
	printf '%s\n' "$3" >"$TRASH/$1.ini"
	test_expect_success "refused: $1" "
		test_expect_code 2 \"\$VMTAX\" run $1.ini --out out-$1 2>err-$1 &&
		grep -E '$2' err-$1 &&
		test ! -e out-$1/results.json
	"
}
online=$(cat /sys/devices/system/cpu/online)
bad pin-offline "^pin-offline.ini:2: CPU 1023 is offline or absent \\(online: $online\\)$" "[guest]
pin = 0,1023
$w"
bad pin-syntax "^pin-syntax.ini:2: expected a CPU number at .x. \\(pin takes none, auto or a CPU list" "[guest]
pin = x
$w"
bad quiet-range "^quiet-range.ini:2: bad value for .quiet_wait.: -1 is out of range" "[run]
quiet_wait = -1
$w"

test_need ROOT "the bare-metal runs need root"
thp=$(thp_get enabled)
bare() { # NAME QUIET_WAIT QUIET_OTHERS
	cat >"$TRASH/$1.ini" <<EOF2
[run]
name = $1
repeat = 1
quiet_wait = $2
quiet_others = $3
[matrix]
where = bare-metal
host_thp = $thp
$w
SIZE_MIB = 16
READS = 1000
EOF2
}

bare busy 2 0
# Three spinning shells keep the host busy while the busy case runs.
spin=
for i in 1 2 3; do
	sh -c 'while :; do :; done' &
	spin="$spin $!"
done
test_expect_success 'a busy host: waits quiet_wait, then samples and flags it' '
	"$VMTAX" run busy.ini --out busy 2>busy.err &&
	q=".cells[0].samples[0].host_quiet" &&
	test "$(jq "$q.quiet" busy/results.json)" = false &&
	jq -e "$q.waited_s >= 2 and $q.others_running >= 2" busy/results.json &&
	jq -e "$q.procs_running >= $q.others_running + $q.own_running" busy/results.json &&
	jq -e "($q.loadavg | length) == 3" busy/results.json &&
	jq -e "($q.governor != null) or ($q.governor_why | length > 0)" busy/results.json &&
	jq -e "($q.boost != null) or ($q.boost_why | length > 0)" busy/results.json &&
	grep -q "waiting up to 2 s for quiet" busy.err &&
	grep -q "sample taken on a busy host" busy.err &&
	"$VMTAX" report busy/results.json --format text | grep -q "1 of 1 samples taken on a busy host"
'
kill $spin

bare calm 0 1000
test_expect_success 'a threshold above what runs: quiet, no wait' '
	"$VMTAX" run calm.ini --out calm 2>calm.err &&
	q=".cells[0].samples[0].host_quiet" &&
	test "$(jq "$q.quiet" calm/results.json)" = true &&
	test "$(jq "$q.waited_s < 1" calm/results.json)" = true &&
	! grep -q "busy host" calm.err
'

test_need LIBVIRT,TINY
last=$(echo "$online" | sed 's/.*[,-]//')
cat >"$TRASH/pin.ini" <<EOF2
[run]
name = t0260pin
repeat = 1
boot_timeout = 180
[guest]
vcpus = 2
memory = 1G
pin = auto
[matrix]
where = guest
host_thp = $thp
guest_thp = never
$w
SIZE_MIB = 16
READS = 1000
EOF2
test_expect_success 'pin = auto: the guest runs pinned, recorded per cell' '
	"$VMTAX" run pin.ini --out pin 2>pin.err &&
	o=".cells[0].observed" &&
	test "$(jq -r .cells[0].status pin/results.json)" = ok &&
	test "$(jq -r "$o.pin.policy" pin/results.json)" = auto &&
	test "$(jq -c "$o.pin.vcpu_cpus" pin/results.json)" = "[0,1]" &&
	test "$(jq "$o.pin.emulator_cpu" pin/results.json)" = "$last" &&
	jq -e ".cells[0].samples[0].host_quiet.own_running >= 1" pin/results.json &&
	jq -e "$o.boot_breakdown.libvirt_start_s > 0 and $o.boot_breakdown.total_s > 0" pin/results.json &&
	jq -e "$o.boot_breakdown.kernel_to_agent_s > 0 and $o.boot_breakdown.agent_to_hello_s >= 0" pin/results.json &&
	python3 "$TOP/tests/check-results.py" pin/results.json &&
	! virsh -c qemu:///system list --name | grep -q "^vmtax-t0260pin-"
'
test_expect_success 'host left as found' '
	test "$(thp_get enabled)" = "$thp"
'
test_done
