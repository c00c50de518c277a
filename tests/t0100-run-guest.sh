#!/bin/sh
# host: exclusive
# vmtax run on bare metal and in real tiny guests (TCG here): hello, set-thp
# with read-back, samples, results.json valid, host left as found.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host THP"
test_need LIBVIRT
test_need TINY

thp_before=$(thp_get enabled)

# One boot per guest cell (the default is two in interleaved rounds): what
# boots as a level do is t0105's, which asserts each cell's two boots.
cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0100
repeat = 2
boots = 1
boot_timeout = 180
[guest]
vcpus = 2
memory = 1G
[matrix]
host_thp = always
guest_thp = always, never
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 64
READS = 200000
EOF2

test_expect_success 'vmtax run completes a bare-metal and two guest cells' '
	"$VMTAX" run run.ini --out out >stdout 2>stderr &&
	test -f out/results.json &&
	grep -q "sample 2/2" stderr
'

test_expect_success 'results.json follows the schema' '
	python3 "$TOP/tests/check-results.py" out/results.json
'

test_expect_success 'every cell is ok with 2 samples and a metric' '
	test "$(jq "[.cells[] | select(.status == \"ok\")] | length" out/results.json)" = 3 &&
	test "$(jq "[.cells[].samples[] | select(.metric > 0)] | length" out/results.json)" = 6
'

test_expect_success 'guest cells observed the requested guest THP and kernel' '
	jq -e "[.cells[] | select(.env.where == \"guest\") |
		.observed.guest_thp == .env.guest_thp] | all" out/results.json &&
	jq -e "[.cells[] | select(.env.where == \"guest\") |
		(.observed.guest_kernel | test(\"^[0-9]+\\\\.[0-9]+\"))] | all" out/results.json &&
	jq -e "[.cells[] | select(.env.where == \"guest\") | .env.paging == \"tcg\" or .env.paging == \"ept\" or .env.paging == \"npt\"] | all" out/results.json
'

test_expect_success 'guest cells booted the kernel through its PVH entry' '
	jq -e "[.cells[] | select(.env.where == \"guest\") |
		(.observed.guest_boot_kernel | test(\"^pvh-[0-9a-f]{16}\\\\.vmlinux$\"))] | all" out/results.json
'

test_expect_success 'host THP was set for the cells and observed' '
	jq -e "[.cells[] | .observed.host_thp == \"always\"] | all" out/results.json
'

test_expect_success 'software counters count; hardware ones are counts or null, never 0' '
	jq -e "[.cells[].samples[].counters[\"task-clock\"] > 0] | all" out/results.json &&
	jq -e "[.cells[].samples[].counters[\"page-faults\"] > 0] | all" out/results.json &&
	jq -e "[.cells[].samples[].counters | .cycles, .instructions, .[\"dTLB-loads\"] |
		. == null or . > 0] | all" out/results.json
'

test_expect_success 'guest console and agent logs are kept' '
	test -s "out/logs/guest_host-thp_always_guest-thp_never.console.log" &&
	grep -q "\"type\":\"hello\"" out/logs/guest_host-thp_always_guest-thp_never.agent.log
'

test_expect_success 'the table was printed and report.txt written' '
	test -s out/report.txt &&
	grep -q "guest" stdout
'

test_expect_success 'host THP is as before and no vmtax domain is left' '
	test "$(thp_get enabled)" = "$thp_before" &&
	no_vmtax_domains
'

test_done
