#!/bin/sh
# host: exclusive
# The agent in a real tiny guest (TCG here), driven through
# orchestrator/guest/agent-client.h by tests/agent-drive.c: what the guest saw
# (hello's and observe's cmdline, cpus_online, mem_total_kb, directmap_kb,
# userland) checked against the guest's own files and the domain asked for,
# and set-knob round trips and refusals, each with its own reason.  It boots
# a guest: run it under the host lock, as the other guest tests
# (flock -o /tmp/vmtax-host.lock sh tests/t0230-agent-observe.sh).
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root for libvirt's system URI"
test_need LIBVIRT
test_need TINY
DRIVE=${AGENT_DRIVE:-$(dirname "$VMTAX")/tests/agent-drive}
test_lazy_prereq AGENT_DRIVE "no '$DRIVE' (make)" '[ -x "$DRIVE" ]'
test_need AGENT_DRIVE
test_need KERNEL
# The kernel vmtax run boots with that image, by the same lookup.
KERNEL=$("$VMTAX" image path kernel) && [ -r "$KERNEL" ] ||
	bail_out "'$VMTAX image path kernel' names no readable kernel"

VCPUS=2
MEM_MIB=768
MARK=vmtax.t0230=marker-$$

# One request a line; the answers come back in order, after hello's.
cat >"$TRASH/requests" <<'EOF'
{"type":"observe"}
{"type":"run","cmd":"cat /proc/cmdline; grep -E '^(MemTotal|DirectMap)' /proc/meminfo; cat /sys/devices/system/cpu/online; grep -c pdpe1gb /proc/cpuinfo; true","with_output":true,"counters":false}
{"type":"set-knob","name":"sysctl.vm.swappiness","value":"10"}
{"type":"run","cmd":"cat /proc/sys/vm/swappiness","with_output":true,"counters":false}
{"type":"set-knob","name":"kernel.foo","value":"1"}
{"type":"set-knob","name":"sysctl.vm/../../etc","value":"1"}
{"type":"set-knob","name":"sysctl.vm.nope","value":"1"}
{"type":"set-knob","name":"sysctl.vm.swappiness","value":"abc"}
{"type":"set-knob","name":"sysctl.vm.swappiness","value":"1\n2"}
{"type":"set-knob","name":"sysctl.kernel.printk","value":"4"}
{"type":"set-knob","name":"sysctl.kernel.printk","value":"4 4 1 7"}
{"type":"set-thp","enabled":"never"}
{"type":"set-knob","name":"mm.transparent_hugepage.enabled","value":"madvise"}
{"type":"set-thp","enabled":"sometimes"}
{"type":"hello"}
EOF

# ans N JQ: answer N (0 = the first hello) satisfies JQ
ans() {
	l=$(sed -n "$(($1 + 1))p" "$TRASH/answers")
	test -n "$l" || { echo "no answer $1"; return 1; }
	printf "%s\n" "$l" | jq -e "$2" >/dev/null || { echo "answer $1: $l"; return 1; }
}
# out N: the output of run answer N
out() { sed -n "$(($1 + 1))p" "$TRASH/answers" | jq -r .result.output; }

test_expect_success "boot a tiny guest ($VCPUS vCPUs, $MEM_MIB MiB), answer every request" '
	start=$(date +%s) &&
	"$DRIVE" "$KERNEL" "$TINY" $VCPUS $MEM_MIB \
		"console=ttyS0 panic=-1 $MARK" "$TRASH/console.log" \
		<"$TRASH/requests" >"$TRASH/answers" &&
	echo "# agent-drive took $(($(date +%s) - start)) s" &&
	test $(wc -l <"$TRASH/answers") = 16
'

test_expect_success 'hello: cmdline holds what was passed, trimmed' '
	ans 0 ".ret == 0 and (.result.cmdline | contains(\"$MARK\")) and
		(.result.cmdline | test(\"^\\\\S.*\\\\S$\"))" &&
	test "$(out 2 | sed -n 1p)" = "$(sed -n 1p answers | jq -r .result.cmdline)"
'

test_expect_success "hello: cpus_online is the $VCPUS vCPUs asked, as the guest lists them" '
	ans 0 ".result.cpus_online == $VCPUS and .result.cpus == $VCPUS" &&
	test "$(out 2 | grep -E "^[0-9,-]+$" | head -1)" = "0-$((VCPUS - 1))"
'

test_expect_success "hello: mem_total_kb is the guest MemTotal, within $MEM_MIB MiB" '
	kb=$(out 2 | sed -n "s/^MemTotal: *\([0-9]*\) kB/\1/p") &&
	ans 0 ".result.mem_total_kb == $kb and
		.result.mem_total_kb > $MEM_MIB * 1024 * 0.7 and
		.result.mem_total_kb <= $MEM_MIB * 1024"
'

test_expect_success 'observe: directmap 4k and 2M are the guest numbers; 1G null iff no pdpe1gb' '
	# observe, not hello: the direct map may split after boot, and
	# observe is the request just before the guest read its meminfo.
	for k in 4k 2M; do
		kb=$(out 2 | sed -n "s/^DirectMap$k: *\([0-9]*\) kB/\1/p") &&
		test -n "$kb" &&
		ans 1 ".result.directmap_kb[\"$k\"] == $kb" || exit 1
	done &&
	ans 0 ".result.directmap_kb[\"4k\"] > 0 and .result.directmap_kb[\"2M\"] > 0" &&
	gb=$(out 2 | awk NF | tail -n 1) &&
	if test "$gb" = 0; then
		ans 0 ".result.directmap_kb[\"1G\"] == null" &&
		ans 1 ".result.directmap_kb[\"1G\"] == null"
	else
		ans 1 ".result.directmap_kb[\"1G\"] | type == \"number\""
	fi
'

test_expect_success 'hello: userland busybox (sh, ls and dd)' '
	ans 0 ".result.userland == \"busybox\" and
		.result.userland_tools == {\"sh\":\"busybox\",\"ls\":\"busybox\",\"dd\":\"busybox\"}"
'

test_expect_success 'observe: the same observation as hello, checked by agent_observe' '
	ans 1 ".ret == 0 and .type == \"observe\" and
		(.result | keys) == [\"cmdline\",\"cpus_online\",\"directmap_kb\",\"mem_total_kb\",\"userland\",\"userland_tools\"]" &&
	a=$(sed -n 1p answers | jq -c ".result | {cmdline, cpus_online, mem_total_kb, userland}") &&
	b=$(sed -n 2p answers | jq -c ".result | {cmdline, cpus_online, mem_total_kb, userland}") &&
	test "$a" = "$b"
'

test_expect_success 'set-knob sysctl.vm.swappiness=10 reads back 10, and the guest shows 10' '
	ans 3 ".ret == 0 and .result.value == \"10\"" &&
	test "$(out 4)" = 10
'

EREMOTEIO=-121
test_expect_success 'set-knob: a name outside sysctl.* and mm.* is refused, with why' '
	ans 5 ".ret == $EREMOTEIO and (.why | startswith(\"agent error bad-knob: '"'"'kernel.foo'"'"' is not a guest knob\"))"
'

test_expect_success 'set-knob: a name with a path in it is refused, with why' '
	ans 6 ".ret == $EREMOTEIO and (.why | startswith(\"agent error bad-knob: '"'"'sysctl.vm/../../etc'"'"' is not a guest knob\"))"
'

test_expect_success 'set-knob: a knob file that does not exist names the path and errno' '
	ans 7 ".ret == $EREMOTEIO and .why == \"agent error io-error: cannot write '"'"'1'"'"' to '"'"'/proc/sys/vm/nope'"'"': No such file or directory\""
'

test_expect_success 'set-knob: a value the kernel refuses names the path and errno' '
	ans 8 ".ret == $EREMOTEIO and .why == \"agent error io-error: cannot write '"'"'abc'"'"' to '"'"'/proc/sys/vm/swappiness'"'"': Invalid argument\""
'

test_expect_success 'set-knob: a value with a newline is a bad request' '
	ans 9 ".ret == $EREMOTEIO and (.why | startswith(\"agent error bad-request: '"'"'value'"'"' must be a string of 1..63 printable\"))"
'

test_expect_success 'set-knob: a read-back that differs is a readback-mismatch, with both values' '
	ans 10 ".ret == $EREMOTEIO and (.why | startswith(\"agent error readback-mismatch: wrote '"'"'4'"'"' to '"'"'/proc/sys/kernel/printk'"'"' but read back '"'"'4\\t\"))"
'

test_expect_success 'set-knob: a multi-field value reads back with tabs and matches' '
	ans 11 ".ret == 0 and .result.value == \"4\\t4\\t1\\t7\""
'

test_expect_success 'set-thp keeps its request and reply, through the knob code' '
	ans 12 ".ret == 0 and .result.enabled == \"never\" and (.result | keys) == [\"defrag\",\"enabled\"]" &&
	ans 13 ".ret == 0 and .result.value == \"madvise\"" &&
	ans 14 ".ret == $EREMOTEIO and (.why | startswith(\"agent error bad-value: '"'"'sometimes'"'"' is not one of\"))" &&
	ans 15 ".ret == 0 and .result.thp_enabled == \"madvise\""
'

test_expect_success 'no agent-drive domain is left' '
	! virsh -c qemu:///system list --name | grep -q "^vmtax-agent-drive-"
'

test_done
