#!/bin/sh
# host: exclusive
# Fault injection against real tiny guests (TCG here): a workload that exits
# 3, one that sleeps past its timeout, a hung agent, QEMU killed mid-sample,
# a guest panic, a guest whose agent never says hello, and libvirtd
# restarted mid-run.  After each: the failed sample or cell says why, the run
# went on (the next sample or cell is ok), every completed sample is in
# results.json, host THP is as before and no vmtax-* domain of the run is
# left.  Cells: the fault fires only where the guest's THP reads [always]
# (the first guest cell); the cell with guest THP never is the "next cell".
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-faults.sh"
test_need ROOT "needs root to set host THP"
test_need LIBVIRT
test_need TINY

# Whatever happens below, libvirtd runs again at the end.
trap 'pidof libvirtd >/dev/null || libvirtd -d' EXIT

wait_host_free 900 || skip_all "another vmtax held the host lock for 15 minutes"
thp_before=$(thp_get enabled)
defrag_before=$(thp_get defrag)

mkdir "$TRASH/wl"
# Workload commands must stay on one line of < 200 characters, with no
# blank before a ';' (inih takes " ;" for a comment).
FIRST="grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled"
wl() {
	# wl NAME RUN [EXTRA-LINE]
	printf '[workload]\ndescription = fault test %s\nrun = %s\nmetric = elapsed\n%s\n' \
		"$1" "$2" "${3:-}" >"$TRASH/wl/$1.ini"
}
# Sample 0 exits 3, sample 1 sleeps past the timeout with a background
# sleeper in its process group, sample 2 fails if that sleeper survived (a
# zombie not yet reaped by init does not count).
wl samples 'n=$(cat n 2>/dev/null||echo 0);echo $((n+1))>n;case $n in 0)exit 3;;1)sleep 60& echo $!>bg;sleep 60;;*)! grep -qs "^State:.[^Z]" /proc/$(cat bg)/status;;esac' \
	'timeout = 3'
# Guest faults strike in the second sample of the first cell, so that the
# first sample must survive in results.json.
SECOND='n=$(cat n 2>/dev/null||echo 0);echo $((n+1))>n;[ $n = 1 ]&&'$FIRST'&&'
# The workload's parent is the agent: stop it, so heartbeats stop.
# (only the faulty sample sleeps: the others take no time)
wl hang "${SECOND}kill -STOP \$PPID&&sleep 2;echo done"
wl sleep "${SECOND}sleep 30;echo done"
wl panic "${SECOND}echo c>/proc/sysrq-trigger;echo done"
# What the guest kernel logs when a CPU loops in it (an exec stuck in the
# page-fault handler under TCG, docs/profile.md), written to /dev/kmsg.
STUCK='watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [t0200:1]'
wl stuck "n=\$(cat n 2>/dev/null||echo 0);echo \$((n+1))>n;[ \$n = 1 ]&&echo '$STUCK'>/dev/kmsg&&sleep 40;echo done"
# The agent stopped first, so that no heartbeat can carry the record: only
# the guest's console shows it (issue 21).
wl silentstuck "n=\$(cat n 2>/dev/null||echo 0);echo \$((n+1))>n;[ \$n = 1 ]&&kill -STOP \$PPID&&echo '$STUCK'>/dev/kmsg&&sleep 40;echo done"
wl true "echo done"

# The faults strike "in sample 2 of the first cell": these runs take the
# cells one after the other (order = cells, one guest per cell).  What the
# same machinery does in interleaved rounds (a guest killed mid-round is
# replaced and the round goes on) is t0105's.
conf() {
	# conf NAME WORKLOAD: two guest cells (guest THP always, never), 2 samples
	cat >"$TRASH/$1.ini" <<EOF
[run]
name = $1
order = cells
repeat = 2
timeout = 60
boot_timeout = 120
heartbeat = 1
[guest]
vcpus = 1
memory = 1G
[matrix]
where = guest
host_thp = always
guest_thp = always, never
[workload]
dir = $TRASH/wl
name = $2
EOF
}

# cell DIR GUEST_THP JQ: JQ holds for that guest cell of DIR
cell() {
	res "$1" "[.cells[] | select(.env.where == \"guest\" and
		.env.guest_thp == \"$2\") | $3] | length == 1 and all"
}

# The failed cell kept the sample measured before the fault, and lists the
# sample lost with its guest as failed, with the reason the cell gives
# (issue 21: "1 of 2 samples ok", never "1 of 1"); the next cell has both
# its samples, ok.
FIRST_OK='.samples[0].index == 0 and .samples[0].status == "ok" and
	.samples[0].metric != null'
LOST_LISTED="$FIRST_OK"' and (.samples | length == 2) and
	.samples[1].index == 1 and .samples[1].status == "failed" and
	.samples[1].metric == null and (.samples[1].reason | type == "string") and
	.reason == "sample 1: \(.samples[1].reason)"'
# libvirtd killed: the cell may fail in its sample or after it.
LIBVIRT_KEPT="$FIRST_OK"' and (.samples | length <= 2) and
	([.samples[1:][] | .status == "failed" and (.reason | type == "string")] | all)'
NEXT_OK='.status == "ok" and (.samples | length == 2) and
	([.samples[] | .status == "ok" and .metric != null] | all)'

host_clean() {
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(thp_get defrag)" = "$defrag_before" &&
	! run_domains "$1"
}

timing() { echo "# $1: vmtax ran $(cat "$TRASH/$1.secs" 2>/dev/null || echo ?) s"; }
# Times are compared with one another, not with fixed seconds: now() is the
# time in seconds with a fraction, since T the seconds from T to now, and
# le A B is A <= B for arithmetic on such numbers ('le "$x * 2" "$y"').
now() { date +%s.%N; }
since() { awk -v t="$1" -v n="$(now)" 'BEGIN { printf "%.2f\n", n - t }'; }
le() { awk "BEGIN { exit !(($1) <= ($2)) }"; }

# ---- 1, 2: a sample exits 3; a sample sleeps past its timeout ----

cat >"$TRASH/t0200-samples.ini" <<EOF
[run]
name = t0200-samples
order = cells
repeat = 3
boot_timeout = 120
[guest]
vcpus = 1
memory = 1G
[matrix]
where = bare-metal, guest
host_thp = always
guest_thp = always
[workload]
dir = $TRASH/wl
name = samples
EOF

test_expect_success 'run: sample 0 exits 3, sample 1 times out, sample 2 runs (bare metal and guest)' '
	vmtax_bg t0200-samples.ini t0200-samples &&
	vmtax_wait $VPID t0200-samples 300 &&
	test -f t0200-samples/results.json
'
timing t0200-samples

test_expect_success 'the sample that exits 3 is failed, exit_status 3, reason names it' '
	res t0200-samples "[.cells[].samples[] | select(.index == 0) |
		.status == \"failed\" and .exit_status == 3 and
		(.reason | test(\"status 3\"))] | length == 2 and all"
'

test_expect_success 'the sample past its timeout has status timeout: killed at its 3 s, not after its 60 s sleep' '
	res t0200-samples "[.cells[].samples[] | select(.index == 1) |
		.status == \"timeout\" and (.reason | test(\"timed out\")) and
		.elapsed_s >= 3 * 0.9 and .elapsed_s < 60 / 4] | length == 2 and all"
'

test_expect_success 'the run went on: sample 2 ran and is ok (the process group was killed)' '
	res t0200-samples "[.cells[] | .samples | length == 3] | length == 2 and all" &&
	res t0200-samples "[.cells[].samples[] | select(.index == 2) |
		.status == \"ok\" and .metric != null] | length == 2 and all" &&
	res t0200-samples ".run.status == \"complete\""
'

test_expect_success 'samples: host THP as before, no domain left' '
	host_clean t0200-samples
'

# ---- 3: the agent hangs ----

# The silence limit is 4 heartbeats + 30 s unless set: 6 s here, so that
# the test waits 6 s for the hang, not 34.
conf t0200-hang hang
test_expect_success 'run: the agent is stopped (SIGSTOP) in sample 2 of the first cell' '
	vmtax_bg t0200-hang.ini t0200-hang --set run.silence_timeout=6 &&
	wait_for t0200-hang.stderr "\[1/2\].*booting guest" 120 &&
	t0=$(now) &&
	wait_for t0200-hang.stderr "\[1/2\].*sample 1/2" 180 &&
	since "$t0" >t0200-hang.boot &&
	wait_for t0200-hang.stderr "\[1/2\].*sample 2/2" 180 &&
	t1=$(now) &&
	wait_for t0200-hang.stderr "no answer from the agent|hung" 90 &&
	since "$t1" >t0200-hang.detect &&
	t2=$(now) &&
	wait_for t0200-hang.stderr "\[2/2\]" 120 &&
	since "$t2" >t0200-hang.cleanup &&
	vmtax_wait $VPID t0200-hang 300
'
timing t0200-hang
echo "# t0200-hang: guest booted in $(cat "$TRASH/t0200-hang.boot" 2>/dev/null || echo ?) s;" \
	"hang reported $(cat "$TRASH/t0200-hang.detect" 2>/dev/null || echo ?) s after the sample began," \
	"next cell began $(cat "$TRASH/t0200-hang.cleanup" 2>/dev/null || echo ?) s after that"

# The test sees vmtax's lines 0.2 s apart at worst (wait_for), so the time
# it measures from the sample's line to the report is within 0.2 s of
# vmtax's own: not before the limit is "not before it, less 0.25 s".
test_expect_success 'the hang is found by silence before the 60 s sample timeout, and reported on time' '
	limit=$(jq -r "[.cells[] | select(.env.guest_thp == \"always\") | .reason |
		capture(\"agent to .run. for (?<s>[0-9]+) s\").s][0]" t0200-hang/results.json) &&
	echo "silence limit in the reason: $limit s; reported after $(cat t0200-hang.detect) s" &&
	test "$limit" = 6 &&
	test "$(jq .run.config.run.silence_timeout t0200-hang/results.json)" = 6 &&
	le "$limit - 0.25" "$(cat t0200-hang.detect)"
'

test_expect_success 'the hung cell failed with a reason naming the silent agent' '
	cell t0200-hang always ".status == \"failed\" and
		(.reason | test(\"no answer from the agent|hung\"))" &&
	cell t0200-hang always "$LOST_LISTED" &&
	grep -q "last lines of .*console.log" t0200-hang.stderr
'

test_expect_success 'the next cell ran and is ok; vmtax exits 1 (a cell failed)' '
	cell t0200-hang never "$NEXT_OK" &&
	test "$(cat t0200-hang.rc)" = 1
'

test_expect_success 'the hung guest is given up at once: the next cell begins sooner than a guest boots' '
	le "$(cat t0200-hang.cleanup)" "$(cat t0200-hang.boot)"
'

test_expect_success 'hang: host THP as before, no domain left' '
	host_clean t0200-hang
'

# ---- 4: QEMU killed mid-sample ----

conf t0200-qemu sleep
test_expect_success 'run: QEMU of the first cell is killed with SIGKILL in sample 2' '
	vmtax_bg t0200-qemu.ini t0200-qemu &&
	wait_for t0200-qemu.stderr "\[1/2\].*sample 2/2" 180 &&
	sleep 1 &&
	pid=$(qemu_pid t0200-qemu) &&
	echo "killing QEMU pid $pid" &&
	kill -KILL "$pid" &&
	t1=$(date +%s) &&
	wait_for t0200-qemu.stderr "\[2/2\]" 60 &&
	echo $(($(date +%s) - t1)) >t0200-qemu.detect &&
	vmtax_wait $VPID t0200-qemu 300
'
timing t0200-qemu

test_expect_success 'the cell failed with a reason naming the end of QEMU' '
	cell t0200-qemu always ".status == \"failed\" and
		(.reason | test(\"QEMU\"))" &&
	cell t0200-qemu always "$LOST_LISTED"
'

test_expect_success 'the next cell ran and is ok' '
	cell t0200-qemu never "$NEXT_OK"
'

test_expect_success 'the report counts the lost sample: failed, 1 of 2 samples ok, and why' '
	grep "cell guest/host-thp=always/guest-thp=always: failed, 1 of 2 samples ok\$" t0200-qemu/report.txt &&
	grep "^ sample 1 failed: .*QEMU" t0200-qemu/report.txt &&
	! grep "1 of 1 samples ok" t0200-qemu/report.txt
'

test_expect_success 'QEMU killed: host THP as before, no domain left' '
	host_clean t0200-qemu
'

# ---- 5: the guest panics ----

conf t0200-panic panic
test_expect_success 'run: the first cell panics its guest through sysrq in sample 2' '
	vmtax_bg t0200-panic.ini t0200-panic &&
	wait_for t0200-panic.stderr "\[1/2\].*sample 2/2" 180 &&
	t1=$(now) &&
	wait_for t0200-panic.stderr "\[2/2\]" 120 &&
	since "$t1" >t0200-panic.detect &&
	vmtax_wait $VPID t0200-panic 300
'
timing t0200-panic

test_expect_success 'the cell failed with a reason naming the crash, without waiting it out' '
	cell t0200-panic always ".status == \"failed\" and
		(.reason | test(\"crash|panic\"))" &&
	cell t0200-panic always "$LOST_LISTED" &&
	echo "next cell $(cat t0200-panic.detect) s after the panic; a hang took $(cat t0200-hang.detect) s to find" &&
	le "$(cat t0200-panic.detect) * 2" "$(cat t0200-hang.detect)"
'

test_expect_success 'the next cell ran and is ok' '
	cell t0200-panic never "$NEXT_OK"
'

test_expect_success 'panic: host THP as before, no domain left' '
	host_clean t0200-panic
'

# ---- 5b: with retries, a guest that died is replaced ----

conf t0200-reboot panic
test_expect_success 'run (retries = 1): the panicked sample is retried in a fresh guest' '
	vmtax_bg t0200-reboot.ini t0200-reboot --set run.retries=1 \
		--set matrix.guest_thp=always &&
	vmtax_wait $VPID t0200-reboot 400 &&
	grep "retrying sample 2 in a fresh guest" t0200-reboot.stderr
'
timing t0200-reboot

test_expect_success 'the cell is ok with both samples; the restart and its reason are kept' '
	cell t0200-reboot always "$NEXT_OK" &&
	cell t0200-reboot always ".observed.guest_boots == 2 and
		(.observed.guest_restarts | length == 1) and
		(.observed.guest_restarts[0] | test(\"^sample 1: .*(crash|panic)\"))"
'

test_expect_success 'the dead guest console is kept beside the fresh one' '
	grep -l "sysrq\|Kernel panic" t0200-reboot/logs/*.console.log >crashed &&
	test $(wc -l <crashed) = 1 &&
	ls t0200-reboot/logs/*.boot1.console.log &&
	! grep -q "Kernel panic" t0200-reboot/logs/*.boot1.console.log
'

test_expect_success 'reboot: host THP as before, no domain left' '
	host_clean t0200-reboot
'

# ---- 5c: the guest kernel says a CPU is stuck ----

conf t0200-stuck stuck
test_expect_success 'run (retries = 1): the guest kernel logs a soft lockup in sample 2' '
	vmtax_bg t0200-stuck.ini t0200-stuck --set run.retries=1 \
		--set matrix.guest_thp=always &&
	wait_for t0200-stuck.stderr "\[1/1\].*sample 2/2" 300 &&
	t0=$(now) &&
	wait_for t0200-stuck.stderr "CPU is stuck" 60 &&
	since "$t0" >t0200-stuck.detect &&
	vmtax_wait $VPID t0200-stuck 400 &&
	grep "retrying sample 2 in a fresh guest" t0200-stuck.stderr
'
timing t0200-stuck
echo "# t0200-stuck: the stuck CPU reported $(cat "$TRASH/t0200-stuck.detect" 2>/dev/null || echo ?) s after sample 2 began"

test_expect_success 'the guest is given up on the kernel record, not after the 40 s sleep' '
	le "$(cat t0200-stuck.detect)" 20
'

test_expect_success 'the cell is ok with both samples; the restart names the kernel record' '
	cell t0200-stuck always "$NEXT_OK" &&
	cell t0200-stuck always ".observed.guest_boots == 2 and
		(.observed.guest_restarts | length == 1) and
		(.observed.guest_restarts[0] == \"sample 1: the guest'"'"'s kernel says a CPU is stuck: $STUCK\")"
'

test_expect_success 'stuck: host THP as before, no domain left' '
	host_clean t0200-stuck
'

# ---- 5d: the agent is silent, and the console shows a soft lockup ----

conf t0200-silent silentstuck
test_expect_success 'run: the agent is stopped, then the kernel logs a soft lockup, in sample 2' '
	vmtax_bg t0200-silent.ini t0200-silent --set matrix.guest_thp=always &&
	wait_for t0200-silent.stderr "\[1/1\].*sample 2/2" 300 &&
	t0=$(now) &&
	wait_for t0200-silent.stderr "CPU is stuck" 60 &&
	since "$t0" >t0200-silent.detect &&
	vmtax_wait $VPID t0200-silent 300
'
timing t0200-silent
echo "# t0200-silent: the console's lockup reported $(cat "$TRASH/t0200-silent.detect" 2>/dev/null || echo ?) s after sample 2 began"

# This run keeps the default silence limit (4 heartbeats + 30 s): the
# console must beat it by far.
test_expect_success 'found from the console within seconds, not after the silence limit' '
	limit=$(jq .run.config.run.silence_timeout t0200-silent/results.json) &&
	echo "console: $(cat t0200-silent.detect) s; silence limit of this run: $limit s" &&
	test "$limit" = 34 &&
	cell t0200-silent always "(.reason | test(\"its console; the agent silent for\"))"
'

test_expect_success 'the cell failed naming the kernel line from the console; the sample is listed' '
	cell t0200-silent always ".status == \"failed\" and (.reason | startswith(
		\"sample 1: the guest'"'"'s kernel says a CPU is stuck: $STUCK (its console; the agent silent for \"))" &&
	cell t0200-silent always "$LOST_LISTED"
'

test_expect_success 'silent: host THP as before, no domain left' '
	host_clean t0200-silent
'

# ---- 6: the agent never says hello ----

conf t0200-nohello true
test_expect_success 'run: the guest boots a shell instead of /init (no agent)' '
	vmtax_bg t0200-nohello.ini t0200-nohello \
		--set guest.cmdline=rdinit=/bin/sh --set run.boot_timeout=10 \
		--set matrix.guest_thp=always &&
	vmtax_wait $VPID t0200-nohello 300
'
timing t0200-nohello

test_expect_success 'the cell failed: no hello within 10 s; the console tail was printed' '
	cell t0200-nohello always ".status == \"failed\" and
		(.reason | test(\"no hello from the guest agent within 10 s\")) and
		(.samples | length == 0)" &&
	grep -q "last lines of .*console.log" t0200-nohello.stderr &&
	test "$(cat t0200-nohello.rc)" = 1
'

test_expect_success 'no hello: the cell is given up after its boot_timeout (10 s), not before' '
	test "$(cat t0200-nohello.secs)" -ge 10
'

test_expect_success 'no hello: host THP as before, no domain left' '
	host_clean t0200-nohello
'

# rdinit that does not exist: the kernel panics before /init has loaded
# pvpanic, and panic=-1 reboots it (on_reboot = destroy).  With retries = 1
# a guest that dies before its hello costs a retry, as a lost sample does;
# the second guest dies too.  (One run for both: a run with retries = 0
# would boot the same guest once more to show what the first guest here
# shows.)
conf t0200-noinit true
test_expect_success 'run (retries = 1): the guest kernel finds no init and panics at boot, twice' '
	vmtax_bg t0200-noinit.ini t0200-noinit \
		--set guest.cmdline=rdinit=/nonexistent --set run.boot_timeout=20 \
		--set matrix.guest_thp=always --set run.retries=1 &&
	vmtax_wait $VPID t0200-noinit 180
'
timing t0200-noinit

test_expect_success 'each guest failed at once, naming the reboot; the console shows the panic' '
	cell t0200-noinit always ".status == \"failed\" and
		(.reason | test(\"before its agent said hello\")) and
		(.reason | test(\"reboot|panic|crash\"))" &&
	grep -q "last lines of .*console.log" t0200-noinit.stderr &&
	grep -aq "Kernel panic" t0200-noinit/logs/*.console.log &&
	echo "# vmtax ran $(cat t0200-noinit.secs) s for two guests; waiting out boot_timeout took $(cat t0200-nohello.secs) s for one" &&
	! grep -q "no hello from the guest agent within" t0200-noinit.stderr
'

test_expect_success 'the guest that panicked at boot was started again once, and died too' '
	grep "starting again in a fresh guest (1 of 1 retries)" t0200-noinit.stderr &&
	cell t0200-noinit always "(.observed.guest_restarts | length == 1) and
		(.observed.guest_restarts[0] | startswith(\"start: \"))" &&
	test "$(grep -c "before its agent said hello" t0200-noinit.stderr)" = 2 &&
	test "$(grep -la "Kernel panic" t0200-noinit/logs/*.console.log | wc -l)" = 2 &&
	host_clean t0200-noinit
'

# ---- 8: libvirtd restarts mid-run (a clean restart, then a crash) ----

libvirtd_back() {
	n=0
	until virsh -c qemu:///system version >/dev/null 2>&1; do
		[ $n -lt 100 ] || return 1
		pidof libvirtd >/dev/null || libvirtd -d
		sleep 0.2
		n=$((n + 1))
	done
}

for sig in TERM KILL; do
	name=t0200-libvirtd-$sig
	conf $name sleep
	test_expect_success "run: libvirtd is killed (SIG$sig) mid-sample and started again" "
		vmtax_bg $name.ini $name &&
		wait_for $name.stderr '\[1/2\].*sample 2/2' 180 &&
		sleep 1 &&
		lpid=\$(pidof libvirtd) &&
		echo \"killing libvirtd pid \$lpid\" &&
		kill -$sig \$lpid &&
		n=0 && while kill -0 \$lpid 2>/dev/null && [ \$n -lt 50 ]; do
			sleep 0.2 && n=\$((n + 1)) || exit 1; done &&
		sleep 1 &&
		libvirtd -d &&
		vmtax_wait \$VPID $name 240
	"
	timing $name

	test_expect_success "SIG$sig: libvirtd runs again" '
		libvirtd_back
	'

	test_expect_success "SIG$sig: vmtax finished by itself and failed the cell naming libvirt" "
		test \$(cat $name.rc) -lt 128 &&
		cell $name always '.status == \"failed\" and
			(.reason | test(\"libvirt\"))' &&
		cell $name always \"\$LIBVIRT_KEPT\" &&
		res $name '.run.status != \"running\"'
	"

	test_expect_success "SIG$sig: after libvirtd is back the run went on: the next cell is ok" "
		cell $name never \"\$NEXT_OK\"
	"

	test_expect_success "SIG$sig: host THP as before, no domain left" "
		host_clean $name
	"
done

test_expect_success 'no vmtax-t0200-* domain is left, host THP as found' '
	! run_domains t0200 &&
	test "$(thp_get enabled)" = "$thp_before"
'

test_done
