#!/bin/sh
# host: exclusive, waits
# The agent's handlers on this host, without a guest: the test build of the
# agent serves a socketpair ("vmtax-agent-test --fd N") and
# tests/agent-hosted.py speaks the protocol to it.  What hello and observe
# report is checked against this host's own files (its userland is GNU
# coreutils, where the tiny guest's is busybox: t0230), and set-knob's
# refusals each give their own reason.  Host state is left alone: the only
# writes are a value the kernel refuses and a knob's current value again.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to write /proc/sys"
test_need AGENT_TEST
AGENT=$BUILD/bin/vmtax-agent-test
test_need PYTHON3

SWAPPINESS=$(cat /proc/sys/vm/swappiness)
PRINTK=$(cat /proc/sys/kernel/printk)
PRINTK1=$(echo "$PRINTK" | cut -f1)

# test-panic must be refused outside a guest: it is sent, and the host is
# still here to check the answer.
cat >"$TRASH/requests" <<EOF
{"type":"hello"}
{"type":"observe"}
{"type":"set-knob","name":"kernel.foo","value":"1"}
{"type":"set-knob","name":"mm.ksm/../../../etc/passwd","value":"1"}
{"type":"set-knob","name":"sysctl.vm.nope","value":"1"}
{"type":"set-knob","name":"sysctl.vm.swappiness","value":"abc"}
{"type":"set-knob","name":"sysctl.vm.swappiness","value":"1\\n2"}
{"type":"set-knob","name":"sysctl.vm.swappiness"}
{"type":"set-knob","name":"sysctl.vm.swappiness","value":"$SWAPPINESS"}
{"type":"set-knob","name":"sysctl.kernel.printk","value":"$PRINTK1"}
{"type":"test-panic"}
EOF

# ans N JQ: answer N (0 = ready, 1 = hello) satisfies JQ
ans() {
	l=$(sed -n "$(($1 + 1))p" "$TRASH/answers")
	test -n "$l" || { echo "no answer $1"; return 1; }
	printf "%s\n" "$l" | jq -e "$2" >/dev/null || { echo "answer $1: $l"; return 1; }
}
# kind PROG: what the agent should call PROG (see lib/guest-obs.h)
kind() {
	f=$(command -v "$1") && f=$(readlink -f "$f") || { echo null; return; }
	case $(basename "$f") in
	busybox*) echo '"busybox"' ;;
	*) if grep -q "BusyBox v" "$f"; then echo '"busybox"'
	   elif grep -q "GNU coreutils" "$f"; then echo '"gnu"'
	   else echo '"other"'; fi ;;
	esac
}

test_expect_success 'the agent serves a socketpair and exits 0 at its end' '
	python3 "$TOP/tests/agent-hosted.py" "$AGENT" <requests >answers &&
	test $(wc -l <answers) = 12 &&
	ans 0 ".type == \"ready\" and .proto_version == 1"
'

test_expect_success 'hello: the test flavour, and cmdline is /proc/cmdline trimmed' '
	want=$(sed "s/^ *//; s/ *$//" /proc/cmdline | jq -Rs "rtrimstr(\"\\n\")") &&
	ans 1 ".ok and .result.flavour == \"test\" and .result.cmdline == $want"
'

test_expect_success 'hello: cpus_online and mem_total_kb are the host numbers' '
	ans 1 ".result.cpus_online == $(getconf _NPROCESSORS_ONLN)" &&
	ans 1 ".result.mem_total_kb == $(sed -n "s/^MemTotal: *\([0-9]*\) kB/\1/p" /proc/meminfo)"
'

test_expect_success 'hello: directmap_kb has a number for each DirectMap line, null for a missing one' '
	for k in 4k 2M 1G; do
		v=$(sed -n "s/^DirectMap$k: *\([0-9]*\) kB/\1/p" /proc/meminfo) &&
		ans 1 ".result.directmap_kb[\"$k\"] == ${v:-null}" || exit 1
	done
'

test_expect_success 'hello: userland as the host has it (sh, ls, dd)' '
	ls=$(kind ls) && dd=$(kind dd) && sh=$(kind /bin/sh) &&
	ans 1 ".result.userland_tools == {\"sh\": $sh, \"ls\": $ls, \"dd\": $dd}" &&
	if test "$ls" = "$dd" && test "$ls" != "\"other\""; then
		ans 1 ".result.userland == $ls"
	else
		ans 1 ".result.userland == \"other\""
	fi
'

test_expect_success 'observe: the observation fields of hello, nothing else' '
	ans 2 ".ok and (.result | keys) == [\"cmdline\",\"cpus_online\",\"directmap_kb\",\"mem_total_kb\",\"userland\",\"userland_tools\"]" &&
	a=$(sed -n 2p answers | jq -c ".result | {cmdline, cpus_online, mem_total_kb, userland, userland_tools}") &&
	b=$(sed -n 3p answers | jq -c ".result | {cmdline, cpus_online, mem_total_kb, userland, userland_tools}") &&
	test "$a" = "$b"
'

test_expect_success 'set-knob: a name outside sysctl.* and mm.* is bad-knob' '
	ans 3 ".error.code == \"bad-knob\" and (.error.message | startswith(\"'"'"'kernel.foo'"'"' is not a guest knob\"))"
'

test_expect_success 'set-knob: a name with a path in it is bad-knob' '
	ans 4 ".error.code == \"bad-knob\" and (.error.message | contains(\"is not a guest knob\"))"
'

test_expect_success 'set-knob: a missing knob file is io-error with path and errno' '
	ans 5 ".error == {\"code\": \"io-error\", \"message\": \"cannot write '"'"'1'"'"' to '"'"'/proc/sys/vm/nope'"'"': No such file or directory\"}"
'

test_expect_success 'set-knob: a value the kernel refuses is io-error with path and errno, nothing changed' '
	ans 6 ".error == {\"code\": \"io-error\", \"message\": \"cannot write '"'"'abc'"'"' to '"'"'/proc/sys/vm/swappiness'"'"': Invalid argument\"}" &&
	test "$(cat /proc/sys/vm/swappiness)" = "$SWAPPINESS"
'

test_expect_success 'set-knob: a value with a newline, or none, is bad-request' '
	ans 7 ".error.code == \"bad-request\" and (.error.message | startswith(\"'"'"'value'"'"' must be a string of 1..63 printable\"))" &&
	ans 8 ".error.code == \"bad-request\" and (.error.message | startswith(\"'"'"'value'"'"' must be\"))"
'

test_expect_success 'set-knob: writing the current value reads it back' '
	ans 9 ".ok and .result == {\"name\": \"sysctl.vm.swappiness\", \"value\": \"$SWAPPINESS\"}"
'

test_expect_success 'set-knob: a read-back that differs is readback-mismatch, with both values' '
	want=$(printf "wrote '"'"'%s'"'"' to '"'"'/proc/sys/kernel/printk'"'"' but read back '"'"'%s'"'"'" "$PRINTK1" "$PRINTK" | jq -Rs .) &&
	ans 10 ".error == {\"code\": \"readback-mismatch\", \"message\": $want}" &&
	test "$(cat /proc/sys/kernel/printk)" = "$PRINTK"
'

test_expect_success 'test-panic is refused outside a guest' '
	ans 11 ".error == {\"code\": \"bad-request\", \"message\": \"test-panic is refused outside a guest\"}"
'

test_done
