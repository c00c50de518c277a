#!/bin/sh
# host: exclusive
# The paging axis (EPT/NPT) and the backing axis (THP, hugetlb 2M/1G).
# On a host that cannot toggle paging, its cells are skipped with the reason
# and the others run; hugetlb-backed guests use the pool, which is given back.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host THP and hugetlb pools"
test_need LIBVIRT
test_need TINY

thp_before=$(thp_get enabled)
pool2m=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
pool1g=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
p2_before=$(cat $pool2m)
p1_before=$(cat $pool1g 2>/dev/null || echo none)
accel=$("$VMTAX" host probe --json | jq -r .accel.decision 2>/dev/null)

cat >"$TRASH/ept.ini" <<EOF2
[run]
name = t0140
repeat = 1
boot_timeout = 180
[guest]
vcpus = 1
memory = 1G
[matrix]
where = bare-metal, guest
ept = on, off
host_thp = always
guest_thp = never
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 32
READS = 100000
EOF2

# Where vmtax boots guests with KVM the paging axis is real: these cells
# are skipped only under TCG.
test_lazy_prereq TCG "this host has KVM: the paging axis is real here" \
	'[ "$accel" != kvm ]'
test_expect_success TCG 'an ept = on, off run completes with honest skips' '
	"$VMTAX" run ept.ini --out ept >/dev/null 2>err &&
	jq -e ".cells[] | select(.env.where == \"bare-metal\") | .status == \"ok\"" ept/results.json &&
	test "$(jq "[.cells[] | select(.env.where == \"guest\" and .status == \"skipped\")] | length" ept/results.json)" = 2 &&
	jq -e "[.cells[] | select(.status == \"skipped\") | .reason | test(\"TCG\")] | all" ept/results.json &&
	grep -q "skipped" err &&
	grep -qi "skipped" ept/report.txt
'

cat >"$TRASH/backing.ini" <<EOF2
[run]
name = t0140b
repeat = 1
boot_timeout = 180
[guest]
vcpus = 1
memory = 1G
[matrix]
where = guest
host_thp = never
guest_thp = always
backing = thp, hugetlb-2M, hugetlb-1G
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 32
READS = 100000
EOF2

test_expect_success 'guests backed by THP, hugetlb 2M and hugetlb 1G' '
	{ "$VMTAX" run backing.ini --out backing >/dev/null 2>err ||
		echo "vmtax run exited $? (each cell is checked below)"; } &&
	jq -r ".cells[] | \"\(.id) \(.status) \(.reason)\"" backing/results.json &&
	jq -e ".cells[] | select(.env.backing == \"thp\") | .status == \"ok\"" backing/results.json &&
	jq -e ".cells[] | select(.env.backing == \"hugetlb-2M\") |
		.status == \"ok\" and .observed.hugetlb_pages_in_use >= 512" backing/results.json
'

test_expect_success 'a 1G-backed guest runs, or is skipped with a reason' '
	jq -e ".cells[] | select(.env.backing == \"hugetlb-1G\") |
		(.status == \"ok\" and .observed.hugetlb_pages_in_use >= 1) or
		(.status == \"skipped\" and (.reason | length) > 0)" backing/results.json
'

test_expect_success 'host THP never: QEMU RAM had no THP (no contradiction flagged)' '
	jq -e ".cells[] | select(.env.backing == \"thp\") | .observed.contradiction == null" backing/results.json
'

test_expect_success 'pools, host THP and domains are as before' '
	test "$(cat $pool2m)" = "$p2_before" &&
	test "$(cat $pool1g 2>/dev/null || echo none)" = "$p1_before" &&
	test "$(thp_get enabled)" = "$thp_before" &&
	no_vmtax_domains
'
test_done
