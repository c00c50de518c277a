#!/bin/sh
# host: exclusive
# A real tiny-guest cell through a remote libvirt URI,
# qemu+ssh://root@fakebox/system, where "fakebox" is this machine behind a
# fake ssh and scp (tests/tools/fake-ssh-here.sh): libvirt's own ssh
# transport (virt-ssh-helper on the far side) reaches this machine's
# libvirtd, the agent channel runs over that connection
# (virDomainOpenChannel), and vmtax's own ssh asks the host its THP and
# copies the kernel and initrd into the remote stage directory
# ($VMTAX_REMOTE_STAGE_DIR) named by content hash, reused by a second run.
# Nothing of this host's settings is changed.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root (qemu:///system)"
test_need LIBVIRT
test_need TINY
test_need JQ
test_lazy_prereq VIRT_SSH_HELPER "no virt-ssh-helper" 'command -v virt-ssh-helper'
test_need VIRT_SSH_HELPER

thp_before=$(thp_get enabled)
FAKE_SSH_LOG=$TRASH/ssh.log
VMTAX_REMOTE_STAGE_DIR=$TRASH/remote-stage
export FAKE_SSH_LOG VMTAX_REMOTE_STAGE_DIR
chmod 755 "$TRASH"
fake_ssh_on_path fake-ssh-here.sh || exit 1

cat >"$TRASH/run.ini" <<EOF
[run]
name = t0625
repeat = 2
boot_timeout = 180
[guest]
vcpus = 1
memory = 512M
uri = qemu+ssh://root@fakebox/system
[matrix]
where = guest
host_thp = $thp_before
guest_thp = always
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 16
READS = 100000
EOF

test_expect_success 'a guest cell runs through qemu+ssh://root@fakebox/system' '
	"$VMTAX" run run.ini --out out >stdout 2>stderr &&
	jq -e ".cells | length == 1 and .[0].status == \"ok\"" out/results.json &&
	jq -e "[.cells[0].samples[] | select(.metric > 0)] | length == 2" out/results.json
'

test_expect_success 'results.json names the remote libvirt and its host' '
	python3 "$TOP/tests/check-results.py" out/results.json &&
	jq -e ".run.remote_libvirt.uri == \"qemu+ssh://root@fakebox/system\"" out/results.json &&
	jq -e ".run.remote_libvirt.host == \"fakebox\"" out/results.json &&
	jq -e ".run.remote_libvirt.hostname == \"$(uname -n)\"" out/results.json &&
	jq -e ".run.remote_libvirt.files_copied == 2" out/results.json &&
	jq -e ".cells[0].observed.host_thp == \"$thp_before\"" out/results.json &&
	jq -e ".cells[0].samples[0].kvm == null" out/results.json &&
	jq -e ".cells[0].samples[0].kvm_why | test(\"fakebox\")" out/results.json
'

test_expect_success 'the report says the guests ran on the remote host, in every format' '
	grep -q "^remote libvirt: guest cells ran on $(uname -n) ('\''fakebox'\'', qemu+ssh://root@fakebox/system); the host above is the machine that drove them" out/report.txt &&
	grep -q "^- \*\*remote libvirt\*\*: guest cells ran on $(uname -n) " out/report.md &&
	grep -q "<tr><th>remote libvirt</th><td>guest cells ran on $(uname -n) (&#39;fakebox&#39;, " out/report.html &&
	grep -q "^remote_libvirt,,\"guest cells ran on $(uname -n) ('\''fakebox'\'', " out/report.csv
'

if grep -qwE 'vmx|svm' /proc/cpuinfo; then virt=yes; else virt=no; fi
test_expect_success "the accelerator follows fakebox's vmx/svm flag ($virt), not /dev/kvm alone" '
	if [ $virt = yes ] && [ -c /dev/kvm ]; then
		grep -F "guests under kvm" stderr &&
		grep -F "has /dev/kvm and vmx or svm" stderr
	else
		grep -F "guests under tcg" stderr &&
		grep -F "has no /dev/kvm, or no vmx or svm flag" stderr
	fi
'

test_expect_success 'libvirt went through ssh: BatchMode, virt-ssh-helper' '
	grep "^ssh .*-l root .*-o BatchMode=yes .*-- fakebox sh -c .*virt-ssh-helper" "$FAKE_SSH_LOG"
'

test_expect_success 'the kernel and initrd were copied there by content hash' '
	ls "$VMTAX_REMOTE_STAGE_DIR" >staged &&
	grep -q "^[0-9a-f]\{16\}-pvh-[0-9a-f]\{16\}\.vmlinux$" staged &&
	grep -q "^[0-9a-f]\{16\}-tiny-.*\.cpio\.gz$" staged &&
	grep -q "^ssh .*-- root@fakebox umask 022 && cat >" "$FAKE_SSH_LOG" &&
	grep -q "copied .* on '\''root@fakebox'\''" stderr
'

test_expect_success 'the console came back into the run directory' '
	ls out/logs/*.console.log >consoles &&
	test -s "$(head -n 1 consoles)" &&
	grep -q "^scp .*-- root@fakebox:.*/console/vmtax-t0625-" "$FAKE_SSH_LOG" &&
	test -z "$(ls "$VMTAX_REMOTE_STAGE_DIR/console")"
'

test_expect_success 'a second run copies nothing' '
	: >"$FAKE_SSH_LOG" &&
	"$VMTAX" run run.ini --out out2 >stdout2 2>stderr2 &&
	jq -e ".cells[0].status == \"ok\"" out2/results.json &&
	jq -e ".run.remote_libvirt.files_copied == 0 and .run.remote_libvirt.files_reused == 2" out2/results.json &&
	! grep -q "cat >" "$FAKE_SSH_LOG"
'

test_expect_success 'host THP is as before and no vmtax domain is left' '
	test "$(thp_get enabled)" = "$thp_before" &&
	no_vmtax_domains
'

test_done
