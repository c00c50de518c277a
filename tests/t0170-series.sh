#!/bin/sh
# host: exclusive, waits
# wss-sweep yields a series (x: working-set KiB, y: ns per access) in each
# sample, and vmtax report carries it into csv as rows of kind "series".
# Bare metal only, at the host's current THP mode, so the host is unchanged.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root (vmtax run reads and sets host THP)"

thp=$(thp_get enabled)
cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0170
repeat = 1
[matrix]
where = bare-metal
host_thp = $thp
[workload]
dir = $TOP/configs/workloads
name = wss-sweep
EOF2

test_expect_success 'vmtax run wss-sweep on bare metal' '
	"$VMTAX" run run.ini --out out --set workload.MAX_MIB=4 \
		--set workload.ACCESSES=20000 >/dev/null 2>stderr ||
		{ tail -20 stderr; false; }
'

test_expect_success 'the sample has a series of at least 5 points' '
	jq -e ".cells[0].samples[0].series as \$s |
		(\$s.x | length) >= 5 and (\$s.x | length) == (\$s.y | length)" \
		out/results.json
'

test_expect_success 'x increases and every y is positive' '
	jq -e ".cells[0].samples[0].series as \$s |
		([range(1; \$s.x | length) | \$s.x[.] > \$s.x[. - 1]] | all) and
		(\$s.y | all(. > 0))" out/results.json
'

test_expect_success 'the scalar metric is still there' '
	jq -e ".cells[0].samples[0].metric > 0" out/results.json
'

test_expect_success 'report --format csv has series rows' '
	"$VMTAX" report --format csv out >out.csv &&
	n=$(grep -c "^series," out.csv) &&
	echo "series rows: $n" && test "$n" -ge 5
'

test_done
