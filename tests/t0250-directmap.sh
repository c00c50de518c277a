#!/bin/sh
# host: exclusive
# Seed 002 as a config: configs/directmap-sparse.ini, made small, boots one
# tiny guest per direct-map setting (1G, 2M, 4K through the guest kernel's
# command line) and each cell proves its mapping from the guest's own
# /proc/meminfo (observed.guest_directmap_kb).  A second boot, through
# tests/agent-drive.c, checks the side effects of the 4K option
# (clearcpuid=pse: no PSE, no THP, a tainted kernel) and set-thp there.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host THP"
test_need LIBVIRT
test_need TINY

thp_before=$(thp_get enabled)
C_1G='guest/host-thp=always/guest-thp=never/cmdline='
C_2M='guest/host-thp=always/guest-thp=never/cmdline=nogbpages'
C_4K='guest/host-thp=always/guest-thp=never/cmdline=nogbpages clearcpuid=pse'
cell() { printf '.cells[] | select(.id == "%s")' "$1"; }

test_expect_success 'directmap-sparse.ini runs its three guest cells' '
	"$VMTAX" run "$TOP/configs/directmap-sparse.ini" --out out \
		--set run.repeat=1 --set workload.SIZE_MIB=64 \
		--set workload.ROUNDS=1 >stdout 2>stderr &&
	test "$(jq "[.cells[] | select(.status == \"ok\")] | length" out/results.json)" = 3 &&
	test "$(jq "[.cells[].samples[] | select(.metric > 0)] | length" out/results.json)" = 3 &&
	python3 "$TOP/tests/check-results.py" out/results.json
'

test_expect_success 'every cell booted with its own command line' '
	jq -e "[.cells[] | .env.cmdline as \$c |
		(.observed.guest_cmdline | contains(\$c))] | all" out/results.json &&
	jq -e "$(cell "$C_2M") | .observed.guest_cmdline | test(\"(^| )nogbpages( |$)\")" out/results.json &&
	jq -e "$(cell "$C_4K") | .observed.guest_cmdline | test(\"(^| )clearcpuid=pse( |$)\")" out/results.json
'

test_expect_success 'default cell: the direct map has 1G pages' '
	jq -e "$(cell "$C_1G") | .observed.guest_directmap_kb[\"1G\"] > 0" out/results.json
'

test_expect_success 'nogbpages cell: no 1G pages, 2M ones' '
	jq -e "$(cell "$C_2M") | .observed.guest_directmap_kb |
		(.[\"1G\"] == null or .[\"1G\"] == 0) and .[\"2M\"] > 0" out/results.json
'

test_expect_success 'clearcpuid=pse cell: 4K pages only, about all memory' '
	jq -e "$(cell "$C_4K") | .observed.guest_directmap_kb |
		(.[\"1G\"] == null or .[\"1G\"] == 0) and
		(.[\"2M\"] == null or .[\"2M\"] == 0)" out/results.json &&
	jq -e "$(cell "$C_4K") | .observed.guest_directmap_kb[\"4k\"] >=
		0.95 * .observed.guest_mem_total_kb" out/results.json
'

test_expect_success 'every cell has guest THP never, as asked; only the 4K one lacks THP' '
	jq -e "[.cells[] | .observed.guest_thp == \"never\"] | all" out/results.json &&
	jq -e "$(cell "$C_4K") | .observed.guest_thp_available == false" out/results.json &&
	jq -e "[.cells[] | select(.id != \"$C_4K\") | .observed | has(\"guest_thp_available\") | not] | all" out/results.json
'

# The 4K option's side effects, seen from inside a guest booted with it, and
# set-thp there (docs/protocol.md), through tests/agent-drive.c.
DRIVE=${AGENT_DRIVE:-$(dirname "$VMTAX")/tests/agent-drive}
# the kernel the tiny image is for (vmtax's kernel cache, else /boot)
KERNEL=$("$VMTAX" image path kernel)
cat >"$TRASH/requests" <<'EOF2'
{"type":"run","cmd":"grep -cw pse /proc/cpuinfo; test -d /sys/kernel/mm/transparent_hugepage && echo thp-dir || echo no-thp-dir; cat /proc/sys/kernel/tainted; echo 2 >/proc/sys/vm/nr_hugepages; cat /proc/sys/vm/nr_hugepages; grep -E '^(DirectMap|Hugepagesize)' /proc/meminfo; true","with_output":true,"counters":false}
{"type":"set-thp","enabled":"never","defrag":"never"}
{"type":"set-thp","enabled":"always"}
{"type":"set-thp","defrag":"madvise"}
{"type":"set-thp"}
EOF2
# ans N JQ: answer N (0 = the hello) satisfies JQ
ans() {
	l=$(sed -n "$(($1 + 1))p" answers)
	test -n "$l" || { echo "no answer $1"; return 1; }
	printf "%s\n" "$l" | jq -e "$2" >/dev/null || { echo "answer $1: $l"; return 1; }
}

test_expect_success 'a tiny guest boots with clearcpuid=pse and answers' '
	test -x "$DRIVE" && test -r "$KERNEL" &&
	"$DRIVE" "$KERNEL" "$TINY" 1 768 \
		"console=ttyS0 panic=-1 nogbpages clearcpuid=pse" console.log \
		<requests >answers &&
	test $(wc -l <answers) = 6 &&
	sed -n 2p answers | jq -r .result.output >probe.out &&
	cat probe.out
'

test_expect_success 'it has no PSE, no THP, 4K direct-map pages only, a tainted kernel' '
	test "$(sed -n 1p probe.out)" = 0 &&
	test "$(sed -n 2p probe.out)" = no-thp-dir &&
	test "$(sed -n 3p probe.out)" -ne 0 &&
	grep -q "^DirectMap2M: *0 kB" probe.out &&
	ans 0 ".result.thp_enabled == null"
'

test_expect_success 'set-thp there: never succeeds with available false' '
	ans 2 ".ret == 0 and .result == {\"enabled\":\"never\",\"defrag\":\"never\",\"available\":false}" &&
	ans 5 ".ret == 0 and .result.available == false"
'

test_expect_success 'set-thp there: always and madvise fail as unavailable, with the reason' '
	ans 3 ".ret != 0 and (.why | test(\"unavailable: cannot set THP enabled to .always.: this guest has no THP\"))" &&
	ans 4 ".ret != 0 and (.why | test(\"unavailable: cannot set THP defrag to .madvise.\"))"
'

test_expect_success 'host THP is as before and no vmtax domain is left' '
	test "$(thp_get enabled)" = "$thp_before" &&
	no_vmtax_domains
'

test_done
