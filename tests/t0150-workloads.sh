#!/bin/sh
# host: exclusive
# Every workload in configs/workloads runs once on bare metal and once in the
# tiny guest and yields its metric (but kbuild and ccbuild, which compile:
# the tiny guest has no compiler; t0155 runs ccbuild on bare metal); every
# INI there parses and is listed; a throwaway workload INI in a scratch
# directory runs the same way with no C changes.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root (vmtax run sets host THP)"
test_need LIBVIRT
test_need TINY

thp=$(thp_get enabled)

run_one() {
	# run_one NAME DIR SET... : one bare-metal and one guest cell
	name=$1 dir=$2; shift 2
	cat >"$TRASH/$name.ini" <<EOF2
[run]
name = t0150-$name
repeat = 1
boot_timeout = 180
timeout = 300
[guest]
vcpus = 1
memory = 1G
[matrix]
where = bare-metal, guest
host_thp = $thp
guest_thp = always
[workload]
dir = $dir
name = $name
EOF2
	"$VMTAX" run "$name.ini" --out "out-$name" "$@" >/dev/null 2>"err-$name" || {
		tail -20 "err-$name"; return 1; }
	jq -e '[.cells[] | .status == "ok" and (.samples[0].metric | type) == "number" and .samples[0].metric > 0] | all' \
		"out-$name/results.json" >/dev/null || {
		jq -c '.cells[] | [.id, .status, .reason, .samples[0].metric]' "out-$name/results.json"; return 1; }
	jq -r '.cells[] | "\(.id): \(.samples[0].metric)"' "out-$name/results.json"
}

W=$TOP/configs/workloads
test_expect_success 'randwalk' 'run_one randwalk $W --set workload.SIZE_MIB=16 --set workload.READS=50000'
test_expect_success 'stream (triad MB/s, higher is better)' '
	run_one stream $W --set workload.ELEMENTS=1000000 --set workload.NTIMES=3 &&
	jq -e ".workload.better == \"higher\" and .workload.unit == \"MB/s\"" out-stream/results.json
'
test_expect_success 'sparse-touch' 'run_one sparse-touch $W --set workload.SIZE_MIB=128 --set workload.ROUNDS=2'
test_expect_success 'wss-sweep' 'run_one wss-sweep $W --set workload.MAX_MIB=8 --set workload.ACCESSES=100000'

mkdir -p "$TRASH/mywl"
cat >"$TRASH/mywl/count.ini" <<'EOF2'
; a throwaway workload: no C, just a shell command and a regex
[workload]
description = shell loops per second
run = sleep $S & p=$!; i=0; while kill -0 $p 2>/dev/null; do i=$((i + 1)); done; echo "counted $((i / S)) loops/s"
metric = regex
metric_regex = counted ([0-9]+) loops/s
unit = loops/s
better = higher
[param.S]
default = 1
EOF2
test_expect_success 'a throwaway workload INI runs on bare metal and in the guest' '
	run_one count "$TRASH/mywl" &&
	jq -e "[.cells[].samples[0] | .metric > 0 and .elapsed_s >= 1] | all" out-count/results.json &&
	"$VMTAX" workloads "$TRASH/mywl" | grep -q "shell loops per second"
'
test_expect_success '--out makes missing parent directories' '
	"$VMTAX" run count.ini --out "$TRASH/a/b/count" \
		--set matrix.where=bare-metal --set workload.S=1 >/dev/null 2>err &&
	jq -e ".cells[0].samples[0].metric > 0" "$TRASH/a/b/count/results.json"
'
test_expect_success 'vmtax workloads lists every workload with its parameters' '
	"$VMTAX" workloads "$TOP/configs/workloads" >list &&
	for w in randwalk stream sparse-touch wss-sweep kbuild forktouch ccbuild; do grep -q "^$w " list || exit 1; done &&
	grep -q "SIZE_MIB=2048" list &&
	grep -q "FILES=12 " list && grep -q "SRCSET= " list
'
test_expect_success 'host THP as before, no domain left' '
	test "$(thp_get enabled)" = "$thp" && no_vmtax_domains
'
test_done
