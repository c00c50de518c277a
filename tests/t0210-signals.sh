#!/bin/sh
# host: exclusive, waits
# Signals to 'vmtax run' on bare metal (a 1.5 s sample, repeat 5, host THP
# always): SIGINT and SIGTERM stop after the current sample, exit non-zero,
# leave results.json "interrupted" with the completed samples and put host
# THP back; a second SIGINT stops at once and still puts THP back; SIGKILL
# leaves THP changed with the journal on disk, and 'vmtax host restore' puts
# it back.  The same in a tiny guest (when libvirt is here): SIGINT stops
# after the sample and destroys the domain; SIGKILL leaves no domain either
# (AUTODESTROY), only THP and the journal.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-faults.sh"
test_need ROOT "needs root to set host THP"

wait_host_free 900 || skip_all "another vmtax held the host lock for 15 minutes"
thp_before=$(thp_get enabled)
defrag_before=$(thp_get defrag)
# The run must change THP, or a THP left behind could not be seen.
thp_run=always
[ "$thp_before" != always ] || thp_run=never

mkdir "$TRASH/wl"
cat >"$TRASH/wl/nap.ini" <<EOF
[workload]
description = sleeps 1.5 s; notes its work directory for the clean-up after SIGKILL
run = echo \$VMTAX_WORKDIR >>$TRASH/workdirs;sleep 1.5
metric = elapsed
EOF
cat >"$TRASH/run.ini" <<EOF
[run]
name = t0210
repeat = 5
[matrix]
where = bare-metal
host_thp = $thp_run
[workload]
dir = $TRASH/wl
name = nap
EOF

thp_back() {
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(thp_get defrag)" = "$defrag_before"
}

# stop_run SIG DIR: start a run, send SIG to vmtax while sample 2 runs
stop_run() {
	vmtax_bg run.ini "$2" &&
	wait_for "$2.stderr" "sample 2/5" 30 &&
	sleep 0.5 &&
	kill -"$1" $VPID &&
	vmtax_wait $VPID "$2" 60
}

for sig in INT TERM; do
	test_expect_success "SIG$sig during sample 2: vmtax stops after it and exits non-zero" "
		stop_run $sig $sig &&
		rc=\$(cat $sig.rc) && echo \"exit status \$rc\" &&
		test \$rc != 0 && test \$rc -lt 128 &&
		grep -q 'stop requested' $sig.stderr
	"
	test_expect_success "SIG$sig: results.json is interrupted with samples 1 and 2, both ok" "
		res $sig '.run.status == \"interrupted\" and .run.finished != null' &&
		res $sig '[.cells[0].samples[] | .status == \"ok\" and .metric != null] |
			length == 2 and all' &&
		res $sig '[.cells[0].samples[].index] == [0, 1]'
	"
	test_expect_success "SIG$sig: host THP restored, journal gone" "
		thp_back &&
		! test -e $STATE_DIR/host-journal && ! test -e $sig/host-journal
	"
done

test_expect_success 'SIGINT twice: vmtax stops at once (sample 2 abandoned), exit 130, THP restored' '
	vmtax_bg run.ini INT2 &&
	wait_for INT2.stderr "sample 2/5" 30 &&
	sleep 0.5 &&
	kill -INT $VPID && sleep 0.2 && kill -INT $VPID &&
	vmtax_wait $VPID INT2 30 &&
	test "$(cat INT2.rc)" = 130 &&
	res INT2 "[.cells[0].samples[].index] == [0]" &&
	grep -q "second signal" INT2.stderr &&
	thp_back
'

test_expect_success 'SIGKILL during sample 2: THP is left changed, the journal stays' '
	vmtax_bg run.ini KILL &&
	wait_for KILL.stderr "sample 2/5" 30 &&
	sleep 0.5 &&
	kill -KILL $VPID &&
	vmtax_wait $VPID KILL 30 &&
	test "$(cat KILL.rc)" = 137 &&
	test "$(thp_get enabled)" = "$thp_run" &&
	test -s $STATE_DIR/host-journal &&
	test "$(stat -c %a.%u $STATE_DIR/host-journal)" = 600.0 &&
	! test -e KILL/host-journal &&
	res KILL ".run.status == \"running\" and (.cells[0].samples | length == 1)"
'

test_expect_success 'vmtax host restore puts THP back and removes the journal' '
	"$VMTAX" host restore >restore.out 2>&1 &&
	cat restore.out &&
	thp_back &&
	! test -e $STATE_DIR/host-journal && ! test -e KILL/host-journal
'

test_expect_success 'a second vmtax host restore finds nothing to do' '
	"$VMTAX" host restore &&
	thp_back
'

# ---- in a guest ----

# One guest for the three samples (boots = 1): the signal comes in sample 2,
# and a second boot (the default spreads interleaved samples over two)
# would only cost a TCG boot.
cat >"$TRASH/guest.ini" <<EOF
[run]
name = t0210-guest
repeat = 3
boots = 1
boot_timeout = 120
[guest]
vcpus = 1
memory = 1G
[matrix]
where = guest
host_thp = $thp_run
guest_thp = always
[workload]
dir = $TRASH/wl
name = nap
EOF

if ! test_prereq LIBVIRT || ! test_prereq TINY; then
	test_skip LIBVIRT,TINY 'SIGINT during a guest sample'
	test_skip LIBVIRT,TINY 'SIGKILL during a guest sample'
else
	test_expect_success 'SIGINT during guest sample 2: stops after it, domain gone, THP restored' '
		vmtax_bg guest.ini gINT &&
		wait_for gINT.stderr "sample 2/3" 180 &&
		sleep 0.5 &&
		kill -INT $VPID &&
		vmtax_wait $VPID gINT 90 &&
		test "$(cat gINT.rc)" = 1 &&
		res gINT ".run.status == \"interrupted\" and
			([.cells[0].samples[] | .status == \"ok\"] | length == 2 and all)" &&
		! run_domains t0210-guest &&
		thp_back
	'

	test_expect_success 'SIGKILL during guest sample 2: no domain left, THP and journal stay' '
		vmtax_bg guest.ini gKILL &&
		wait_for gKILL.stderr "sample 2/3" 180 &&
		sleep 0.5 &&
		kill -KILL $VPID &&
		vmtax_wait $VPID gKILL 30 &&
		n=0 && while run_domains t0210-guest && [ $n -lt 50 ]; do
			sleep 0.2 && n=$((n + 1)) || exit 1; done &&
		! run_domains t0210-guest &&
		test "$(thp_get enabled)" = "$thp_run" &&
		test -e $STATE_DIR/host-journal &&
		res gKILL "(.cells[0].samples | length == 1)" &&
		"$VMTAX" host restore &&
		thp_back
	'
fi

# SIGKILL leaves the bare-metal work directory behind; remove it.
sleep 2
[ ! -f "$TRASH/workdirs" ] || while read -r d; do
	case $d in /tmp/vmtax-work-*) rm -rf "$d" ;; esac
done <"$TRASH/workdirs"

test_done
