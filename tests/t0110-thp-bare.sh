#!/bin/sh
# host: exclusive, waits
# On bare metal, THP always really changes the fault count of randwalk:
# at least 50x fewer minor faults than THP never.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host THP"
test_need THP

thp_before=$(thp_get enabled)
cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0110
repeat = 1
[matrix]
where = bare-metal
host_thp = always, never
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 512
READS = 100000
EOF2

test_expect_success 'vmtax run on bare metal with host THP always and never' '
	"$VMTAX" run run.ini --out out >/dev/null 2>stderr
'

test_expect_success 'THP always has at least 50x fewer minor faults than never' '
	a=$(jq ".cells[] | select(.id == \"bare-metal/host-thp=always\") | .samples[0].minor_faults" out/results.json) &&
	n=$(jq ".cells[] | select(.id == \"bare-metal/host-thp=never\") | .samples[0].minor_faults" out/results.json) &&
	echo "minor faults: always=$a never=$n" &&
	test "$a" -gt 0 && test $((a * 50)) -le "$n"
'

test_expect_success 'host THP is restored' '
	test "$(thp_get enabled)" = "$thp_before"
'

test_done
