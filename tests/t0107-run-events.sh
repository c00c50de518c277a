#!/bin/sh
# host: exclusive
# [run] events on a real run, bare metal and a tiny guest (TCG here): the
# software events (major-faults, cpu-migrations) are counted on both
# sides, the guest's through the agent's runner; a hardware cache event
# (dTLB-store-misses) is a count where the PMU has it and null where it
# does not (this host has no PMU: its dTLB-load-misses is null too), never
# 0; the report shows them as perf stat does, '<not supported>' for null.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host THP"
test_need LIBVIRT
test_need TINY

thp_before=$(thp_get enabled)

cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0107
repeat = 1
boots = 1
boot_timeout = 180
events = major-faults, cpu-migrations, dTLB-store-misses
[guest]
vcpus = 1
memory = 1G
[matrix]
host_thp = always
guest_thp = always
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 32
READS = 100000
EOF2

test_expect_success 'vmtax run with [run] events: a bare-metal and a guest cell' '
	"$VMTAX" run run.ini --out out >stdout 2>stderr &&
	jq -e "([.cells[] | .status == \"ok\"] | all) and (.cells | length) == 2" out/results.json &&
	python3 "$TOP/tests/check-results.py" out/results.json
'

test_expect_success 'the config recorded in results.json has the events' '
	jq -e ".run.config.run.events == \"major-faults, cpu-migrations, dTLB-store-misses\"" out/results.json
'

test_expect_success 'software events counted on both sides (the guest through its agent)' '
	jq -e "[.cells[].samples[].counters | (.[\"major-faults\"] | type == \"number\" and . >= 0) and (.[\"cpu-migrations\"] | type == \"number\")] | all" out/results.json &&
	jq -e "[.cells[] | select(.env.where == \"guest\") | .samples[].counters | has(\"major-faults\")] | all and length == 1" out/results.json &&
	! jq -e ".cells[].samples[].counters | has(\"LLC-loads\")" out/results.json >/dev/null
'

test_expect_success 'a hardware event: a count where the PMU has it, else null, never 0' '
	jq -e "[.cells[].samples[].counters | (.[\"dTLB-store-misses\"] == null) == (.[\"dTLB-load-misses\"] == null)] | all" out/results.json &&
	jq -e "[.cells[].samples[].counters[\"dTLB-store-misses\"] | . == null or . > 0] | all" out/results.json
'

test_expect_success 'the report shows them as perf stat, each format follows its schema' '
	"$VMTAX" report out >r.txt &&
	grep -q "^  *[0-9][0-9]*      major-faults  *#  *[0-9.]* [KMG]*/sec" r.txt &&
	grep -q "^  *[0-9.]* msec task-clock  *#  *[0-9.]* CPUs utilized" r.txt &&
	if jq -e ".cells[0].samples[0].counters[\"dTLB-store-misses\"] == null" out/results.json >/dev/null
	then
		grep -q "^    <not supported>      dTLB-store-misses$" r.txt
	else
		grep -q "^  *[0-9][0-9]*      dTLB-store-misses" r.txt
	fi &&
	"$VMTAX" report -f csv out >r.csv &&
	# the events after the seven, in lib/runner-counters.c'"'"'s order
	head -n 1 r.csv | grep -q ",dTLB-load-misses,cpu-migrations,major-faults,dTLB-store-misses,why_empty$" &&
	"$VMTAX" report -f json out >r.json &&
	python3 "$TOP/tests/check-report.py" r.json &&
	jq -e "[.cells[].counters[\"major-faults\"].state == \"ok\"] | all" r.json
'

test_expect_success 'a raw PMU event (--set run.events=r003c): null on both sides here, never 0' '
	"$VMTAX" run run.ini --out raw --set run.events=r003c,major-faults >stdout 2>stderr &&
	jq -e "([.cells[] | .status == \"ok\"] | all) and ([.cells[].env.where] | sort) == [\"bare-metal\", \"guest\"]" raw/results.json &&
	python3 "$TOP/tests/check-results.py" raw/results.json &&
	jq -e ".run.config.run.events == \"r003c,major-faults\"" raw/results.json &&
	jq -e "[.cells[].samples[].counters | has(\"r003c\") and (.r003c == null or .r003c > 0) and (.[\"major-faults\"] | type == \"number\")] | all and length == 2" raw/results.json &&
	jq -e "[.cells[].samples[].counters | select(.cycles == null) | .r003c == null] | all" raw/results.json &&
	"$VMTAX" report raw >r.txt &&
	if jq -e ".cells[0].samples[0].counters.r003c == null" raw/results.json >/dev/null
	then
		test "$(grep -c "^    <not supported>      r003c$" r.txt)" = 2
	else
		grep -q "^  *[1-9][0-9]*      r003c" r.txt
	fi &&
	"$VMTAX" report -f csv raw >r.csv &&
	head -n 1 r.csv | grep -q ",dTLB-load-misses,major-faults,r003c,why_empty$" &&
	"$VMTAX" report -f json raw >r.json &&
	python3 "$TOP/tests/check-report.py" r.json
'

test_expect_success 'host THP is restored' '
	test "$(thp_get enabled)" = "$thp_before"
'

test_done
