#!/bin/sh
# The lab host, quickly (make check): configs/lab-npt.ini cut to one THP setting
# and one sample (bare metal, NPT on, NPT off) through 'vmtax run' (the
# config says executor = lab: the lab executor),
# stopped with SIGTERM after its first guest cell and resumed with --resume:
# the run inside is stopped and keeps its samples, the lab's disk is kept,
# this host is left as it was, and the resumed run boots the same disk and
# finishes the cells.  Then what KVM saw: the module parameter read back,
# named exit reasons, pages_2m with NPT on; and a profile per cell, at the
# lab's rate (profile = on: docs/profile.md).  The full table is
# tests/slow/t0540-lab-npt.sh.  The first run builds the lab image (about
# 35 s from this host's packages, 7 minutes through debootstrap where the
# host lacks them; cached afterwards).  The resumed run's lab is
# suspended (virsh suspend) once its run has started: a lab that hangs
# without dying (as one did in stop 10's final CI dry run, its agent silent
# 15 s into waiting for libvirtd) must be destroyed, booted again on the same
# disk and resumed.
# Slow, not in make check: a dry run of CI (stop 27) saw the NPT-off guest
# inside the lab hang in its boot under emulated SVM (a WARNING in
# fpu__init_system_xstate, then silence), and the stopped run inside not end
# for many minutes after; CI had failed on this test before.  Until the lab is
# fast and steady (issue "Fast enough"), it runs in make check-slow.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "the lab image and libvirt need root"
test_need LIBVIRT
! (cd "$TOP" && "$VMTAX" image build --kind lab --check) 2>&1 |
	grep -q "debootstrap instead" || command -v debootstrap >/dev/null ||
	skip_all "this host lacks the lab's packages, and debootstrap is not installed"
virsh -q domcapabilities --virttype qemu 2>/dev/null | grep -q "<model.*>EPYC<" ||
	skip_all "this libvirt/QEMU offers no EPYC CPU model to TCG guests"

thp_before=$(thp_get enabled)
huge_before=$(cat /proc/sys/vm/nr_hugepages)
SETS="--set matrix.host_thp=always --set matrix.guest_thp=always --set run.repeat=1 --set run.boots=1 --set run.profile=on"

test_expect_success 'a lab run stopped with SIGTERM after its first guest cell' '
	(cd "$TOP" && exec "$VMTAX" run configs/lab-npt.ini --out "$TRASH/lab" $SETS) 2>err1 &
	pid=$! &&
	n=0 &&
	until grep -q "^lab| vmtax: \[3/3\]" err1; do
		kill -0 $pid || { tail -30 err1; exit 1; }
		n=$((n + 1)) && test $n -lt 1800 || { tail -30 err1; exit 1; }
		sleep 1 || exit 1
	done &&
	kill -TERM $pid &&
	test_expect_code 1 wait $pid &&
	grep "lab: stopping the run inside" err1 &&
	grep "kept for .vmtax run --resume" err1
'

test_expect_success 'the stopped run came back: interrupted, its first cells kept' '
	jq -e ".run.status == \"interrupted\"" lab/results.json &&
	jq -e "[.cells[] | select(.status == \"ok\")] | length >= 2" lab/results.json &&
	jq -e ".lab.emulated" lab/results.json &&
	jq -e ".run.host.accel == \"kvm\"" lab/results.json &&
	jq -e ".run.config.run.executor == \"lab\"" lab/results.json &&
	test -e "$(jq -r .lab.disk lab/results.json)" &&
	test ! -e lab/lab.json
'

test_expect_success 'nothing left running; this host as it was' '
	! virsh -q list --name | grep "^vmtax-" &&
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(cat /proc/sys/vm/nr_hugepages)" = "$huge_before"
'

test_expect_success '--resume boots the kept disk; a lab that hangs mid-run is destroyed, booted again and resumed' '
	"$VMTAX" run --resume lab 2>err2 &
	pid=$! &&
	n=0 &&
	until grep -q "^lab| vmtax: \[" err2; do
		kill -0 $pid || { tail -30 err2; exit 1; }
		n=$((n + 1)) && test $n -lt 1800 || { tail -30 err2; exit 1; }
		sleep 1 || exit 1
	done &&
	dom=$(virsh -q list --name | grep "^vmtax-lab-$pid-") &&
	virsh -q suspend "$dom" &&
	{ wait $pid || { tail -30 err2; false; }; } &&
	grep "its disk from the interrupted run" err2 &&
	grep "lab: the lab host hung (running, but its agent did not answer" err2 &&
	grep "lab: vmtax run --resume" err2 &&
	! virsh -q list --all --name | grep -x "$dom" &&
	jq -e ".run.status == \"complete\"" lab/results.json &&
	jq -e "[.cells[] | select(.status != \"ok\")] | length == 0" lab/results.json &&
	jq -e "(.cells | length) == 3" lab/results.json &&
	jq -e "(.run.resumed | length) == 1" lab/results.json &&
	test ! -e "$(jq -r .lab.disk lab/results.json)"
'

test_expect_success 'the samples taken before the stop were kept, not repeated' '
	test "$(jq "[.cells[] | .samples | length]" -c lab/results.json)" = "[1,1,1]"
'

test_expect_success 'kvm_amd npt read back as asked; named exit reasons; pages_2m with NPT on' '
	jq -e "[.cells[] | select(.env.paging == \"npt\") | .observed.paging] == [\"hw\"]" lab/results.json &&
	jq -e "[.cells[] | select(.env.paging == \"shadow\") | .observed.paging] == [\"shadow\"]" lab/results.json &&
	jq -r "[.cells[].samples[].kvm.exits_by_reason[]?.reason] | unique | .[]" lab/results.json >reasons &&
	grep -x npf reasons && grep -x "PF excp" reasons &&
	jq -e "[.cells[] | select(.env.paging == \"npt\") | .samples[-1].kvm.pages_2m] | .[0] > 0" lab/results.json
'

test_expect_success 'a profile in every cell, at the lab rate the terminal named; NPT off has a differential one' '
	grep "lab: every cell runs on emulated hardware: the profile samples at 127 Hz" err1 &&
	jq -e "[.cells[].observed.profile | .freq_hz == 127 and .samples > 0] | length == 3 and all" lab/results.json &&
	for f in $(jq -r ".cells[].observed.profile.folded" lab/results.json); do
		test -s "lab/$f" || exit 1
	done &&
	grep -A1 "NPT off" lab/report.txt | grep -q "cell guest/paging=shadow" &&
	sed -n "/NPT off/,\$p" lab/report.txt | grep "vs baseline: [-+][0-9.]*% = "
'

test_expect_success 'the reports say emulated hardware' '
	grep "^lab host: every cell ran inside it: TCG-emulated EPYC +svm +npt" lab/report.txt &&
	grep -c "Emulated hardware" lab/report.html
'

test_expect_success 'nothing left running; this host as it was, after both' '
	! virsh -q list --name | grep "^vmtax-" &&
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(cat /proc/sys/vm/nr_hugepages)" = "$huge_before"
'

test_done
