#!/bin/sh
# The lab host from a saved state (docs/lab.md, "The saved state"): a lab
# run with no saved state boots the lab, saves its state and restores it; the
# next run restores it in seconds, and the restored lab is the lab it claims
# to be (its image, kvm_amd reloaded as asked, libvirtd answering, inner
# guests booting).  A state that is truncated, corrupt, or for another QEMU is
# refused with its reason, discarded, and the lab boots afresh: the run goes
# on.  [lab] restore = off boots it every time.
# Parts, each timed on the terminal (PART=1 runs only the first, the part
# that could go into make check: two bare-metal lab runs).
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"
. "$TOP/tests/lib-faults.sh"

test_need ROOT "the lab image and libvirt need root"
test_need LIBVIRT
virsh -q domcapabilities --virttype qemu 2>/dev/null | grep -q "<model.*>EPYC<" ||
	skip_all "this libvirt/QEMU offers no EPYC CPU model to TCG guests"
"$VMTAX" image build --kind lab --check 2>&1 | grep -q "up to date" ||
	skip_all "the lab image is not built ('vmtax image build --kind lab')"

thp_before=$(thp_get enabled)
# The saved state lives beside the lab's overlays (guest-files.h): in the
# build's images/overlays, or, from a checkout QEMU cannot reach (a 0700
# home), in the stage directory's (guest-reach.h).  A run says which: its
# lab.disk is one of those overlays.
STATES_BUILD=$(dirname "$(readlink -f "$VMTAX")")/images/overlays
STATES_STAGE=${VMTAX_STAGE_DIR:-/var/lib/libvirt/images/vmtax}/overlays
# (tests run in subshells: each asks again)
states_of() { STATES=$(dirname "$(jq -r .lab.disk "$1/results.json")"); }
# One bare-metal cell, one small sample.
BM="--set matrix.where=bare-metal --set matrix.host_thp=always --set run.repeat=1 --set run.boots=1
 --set run.baseline= --set workload.PROCS=10 --set workload.TOUCH_KIB=1024"
# ... and guests with NPT on and off.
GU="--set matrix.where=bare-metal,guest --set matrix.npt=on,off
 --set matrix.host_thp=always --set matrix.guest_thp=always --set run.repeat=1 --set run.boots=1
 --set run.baseline= --set workload.PROCS=10 --set workload.TOUCH_KIB=1024"

# lab_run NAME SETS...: a lab run into NAME (its terminal in NAME.err),
# timed; fails with the terminal's tail.
lab_run() {
	name=$1 && shift &&
	t0=$(date +%s) &&
	{ (cd "$TOP" && exec "$VMTAX" run configs/lab-npt.ini --out "$TRASH/$name" "$@") \
		2>"$name.err" || { tail -30 "$name.err"; false; }; } &&
	echo "$name: $(($(date +%s) - t0)) s, lab ready after $(jq .lab.ready_s "$name/results.json") s (restored: $(jq .lab.restored "$name/results.json"))" >>"$TRASH/times"
}

clean_host() {
	! virsh -q list --all --name | grep "^vmtax-lab-" &&
	test "$(thp_get enabled)" = "$thp_before"
}

# With PART=1 a state that fits is kept (the run restores it, ~1 minute);
# else every state is removed first and the first run must save one.
test_expect_success 'part 1: a lab run ends restored; with no saved state it boots, saves one and restores it' '
	{ test "${PART:-}" = 1 || rm -f "$STATES_BUILD"/lab-state-* "$STATES_BUILD"/lab-ready-* \
		"$STATES_STAGE"/lab-state-* "$STATES_STAGE"/lab-ready-*; } &&
	lab_run r1 $BM &&
	states_of r1 && echo "# saved states in $STATES" &&
	jq -e ".run.status == \"complete\" and .lab.restored" r1/results.json &&
	{ test "${PART:-}" = 1 || jq -e .lab.state_saved r1/results.json; } &&
	{ jq -e ".lab.state_saved | not" r1/results.json ||
		{ grep "lab: no saved state for this lab (.*): booting it afresh and saving one" r1.err &&
		grep "lab: its state is saved for later runs in" r1.err &&
		grep "^lab host: .*, booted, its state saved and restored (ready in" r1/report.txt; }; } &&
	grep "lab: restored from its saved state" r1.err &&
	test $(ls "$STATES"/lab-state-*.save | wc -l) = 1 &&
	test $(ls "$STATES"/lab-state-*.json | wc -l) = 1 &&
	test $(ls "$STATES"/lab-ready-*.qcow2 | wc -l) = 1
'

# A first run that restored a state saved before it (PART=1 keeps one that
# fits) is already the next run: it is checked as one, and a second lab run
# (the same restore again) is made only after a first that booted.
test_expect_success 'part 1: the next run restores it; nothing left running' '
	if jq -e .lab.state_saved r1/results.json >/dev/null; then
		r=r2 && lab_run r2 $BM
	else
		r=r1 && echo "r1 restored a state saved before it: r1 is the next run" >>"$TRASH/times"
	fi &&
	grep "lab: restoring the lab host from its saved state" $r.err &&
	! grep "lab: booting the lab host" $r.err &&
	jq -e ".lab.restored and (.lab.state_saved | not) and .lab.ready_s > 0" $r/results.json &&
	jq -e ".lab.image == \"$(basename "$(readlink -f "$(dirname "$(readlink -f "$VMTAX")")/images/lab.qcow2")")\"" $r/results.json &&
	jq -e ".lab.kernel != null and .cells[0].status == \"ok\"" $r/results.json &&
	test ! -e "$(jq -r .lab.disk $r/results.json)" &&
	grep "^lab host: .*, restored from a saved state (ready in" $r/report.txt &&
	clean_host
'
show_times() { sed "s/^/# /" "$TRASH/times" 2>/dev/null || :; }
if test "${PART:-}" = 1; then show_times; test_done; fi

# A restored lab has no AUTODESTROY (libvirt 9.0 restores without it): the
# domain of a vmtax killed with SIGKILL outlives it, and the next lab run
# destroys it (vm_sweep_orphans(): its owner's PID is in its metadata).
test_expect_success 'part 1b: a lab left by a vmtax killed with SIGKILL is destroyed by the next run' '
	(cd "$TOP" && exec "$VMTAX" run configs/lab-npt.ini --out "$TRASH/k1" $BM) 2>k1.err &
	pid=$! &&
	wait_for k1.err "lab: restored from its saved state" 300 &&
	kill -KILL $pid && { wait $pid || :; } &&
	dom=$(virsh -q list --name | grep "^vmtax-lab-saved-") &&
	echo "# left running: $dom" &&
	lab_run k2 $BM &&
	grep "destroyed domain .$dom., left by a vmtax that was killed" k2.err &&
	jq -e ".run.status == \"complete\" and .lab.restored" k2/results.json &&
	clean_host
'

# A run inside that is gone without an exit status (here its script is
# killed, so nothing writes run.rc) ends the lab run with that error after
# two checks, LAB_SYNC_S (30 s) apart: it used to be waited for without end.
mkdir -p "$TRASH/gone/workloads"
sed 's/^name = forktouch/name = killscript/; /^PROCS = /d; /^TOUCH_KIB = /d' \
	"$TOP/configs/lab-npt.ini" >"$TRASH/gone/gone.ini"
cat >"$TRASH/gone/workloads/killscript.ini" <<'EOF'
[workload]
description = kills the lab's run script (t0546): the run inside then ends with no exit status
run = read -r pid comm state ppid rest </proc/$(cat /root/vmtax-lab/run.pid)/stat && kill -KILL $ppid; echo elapsed_s=1
metric = regex
metric_regex = elapsed_s=([0-9.]+)
unit = s
better = lower
EOF
test_expect_success 'part 1c: a run inside gone without an exit status is an error, not a wait without end' '
	t0=$(date +%s) &&
	test_expect_code 1 "$VMTAX" run "$TRASH/gone/gone.ini" --out g1 \
		--set matrix.where=bare-metal --set matrix.host_thp=always \
		--set run.repeat=1 --set run.boots=1 --set run.baseline= 2>g1.err &&
	echo "# ended after $(($(date +%s) - t0)) s" &&
	grep "lab: the run inside is gone without an exit status (no process, no /root/vmtax-lab/run.rc)" g1.err &&
	test $(($(date +%s) - t0)) -lt 600 &&
	clean_host
'

test_expect_success 'part 2: a restored lab boots inner guests, kvm_amd npt reloaded as asked' '
	lab_run r3 $GU &&
	jq -e ".lab.restored" r3/results.json &&
	jq -e "[.cells[] | select(.status != \"ok\")] | length == 0" r3/results.json &&
	jq -e "[.cells[] | select(.env.paging == \"npt\") | .observed.paging] == [\"hw\"]" r3/results.json &&
	jq -e "[.cells[] | select(.env.paging == \"shadow\") | .observed.paging] == [\"shadow\"]" r3/results.json &&
	clean_host
'

test_expect_success 'part 3: a truncated state is discarded with its reason; the lab boots afresh' '
	states_of r1 && s=$(ls "$STATES"/lab-state-*.save) &&
	truncate -s 1M "$s" &&
	lab_run r4 $BM &&
	grep "lab: the saved state .* is discarded: its state file is 1048576 bytes, [0-9]* when saved (truncated or overwritten); booting the lab afresh" r4.err &&
	grep "lab: its state is saved for later runs" r4.err &&
	jq -e ".run.status == \"complete\" and .lab.restored and .lab.state_saved" r4/results.json &&
	clean_host
'

test_expect_success 'part 4: a corrupt state (same size) is refused by the restore; the lab boots afresh' '
	states_of r1 && s=$(ls "$STATES"/lab-state-*.save) &&
	dd if=/dev/urandom of="$s" bs=1M seek=1 count=8 conv=notrunc 2>/dev/null &&
	lab_run r5 $BM &&
	grep "lab: the saved state .* is discarded: " r5.err &&
	grep "lab: its state is saved for later runs" r5.err &&
	jq -e ".run.status == \"complete\" and .lab.state_saved" r5/results.json &&
	clean_host
'

test_expect_success 'part 5: a state for another QEMU is refused with its reason; the lab boots afresh' '
	states_of r1 && j=$(ls "$STATES"/lab-state-*.json) &&
	qemu=$(jq -r .parts.qemu "$j") &&
	jq ".parts.qemu = \"6.2.0\"" "$j" >side && cat side >"$j" &&
	lab_run r6 $BM &&
	grep "lab: the saved state .* is discarded: it is for QEMU 6.2.0, this is $qemu; booting the lab afresh" r6.err &&
	jq -e ".run.status == \"complete\" and .lab.restored and .lab.state_saved" r6/results.json &&
	clean_host
'

test_expect_success 'part 6: restore = off boots the lab; the report says booted' '
	lab_run r7 $BM --set lab.restore=off &&
	grep "lab: booting the lab host: TCG" r7.err &&
	! grep "saved state" r7.err &&
	jq -e "(.lab.restored | not) and (.lab.state_saved | not)" r7/results.json &&
	grep "^lab host: .*, booted (ready in" r7/report.txt &&
	clean_host
'

show_times
test_done
