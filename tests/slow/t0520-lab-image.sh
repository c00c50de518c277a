#!/bin/sh
# t0520-lab-image: 'vmtax image build --kind lab' builds (or reuses from
# build/images) the lab host image; booted through libvirt as a TCG guest
# whose CPU offers svm and npt (EPYC, fallback forbidden), 4 GiB, 2 vCPUs,
# it is a KVM host: its agent answers hello and, through 'run', shows svm
# in /proc/cpuinfo, /dev/kvm of group kvm and mode 0660, kvm_amd with
# npt=Y, libvirtd answering 'virsh version', and no vmtax of its own ('vmtax
# lab run' puts its binary there; t0545 and t0540 run vmtax inside).
# The image comes from this host's packages where it has them (the recipe
# then says "root host-packages", checked), else from debootstrap.
# Slow: ~2 min from scratch from the host's packages, ~8 min through
# debootstrap (2 cores, TCG; see docs/guest-image.md), ~50 s with the image
# cached (the lab answers 45 s after domain start).  Run by 'make check-slow', under the
# host lock (flock -o /tmp/vmtax-host.lock).  The guest boots from a qcow2
# overlay in the scratch directory, so the cached image is never written.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "building the image needs root"
test_need LIBVIRT
# "debootstrap instead" is said whenever the host lacks a lab package
HOSTPKG=yes
(cd "$TOP" && "$VMTAX" image build --kind lab --check) 2>&1 |
	grep -q "debootstrap instead" && HOSTPKG=
[ -n "$HOSTPKG" ] || command -v debootstrap >/dev/null ||
	skip_all "this host lacks the lab's packages, and debootstrap is not installed"
virsh -q domcapabilities --virttype qemu 2>/dev/null | grep -q "<model.*>EPYC<" ||
	skip_all "this libvirt/QEMU offers no EPYC CPU model to TCG guests"

DOM=vmtax-t0520-$$
trap 'virsh -q destroy "$DOM" >/dev/null 2>&1' EXIT

test_expect_success 'image build --kind lab builds or reuses the image' '
	(cd "$TOP" && "$VMTAX" image build --kind lab) >paths &&
	test $(wc -l <paths) = 3 &&
	test -s "$(sed -n 1p paths)" && test -s "$(sed -n 2p paths)" &&
	test -s "$(sed -n 3p paths)" &&
	test -L "$TOP/build/images/lab.qcow2" &&
	test -L "$TOP/build/images/lab.vmlinuz" &&
	test -L "$TOP/build/images/lab.initrd" &&
	test "$(readlink "$TOP/build/images/lab.qcow2")" = "$(sed -n 1p paths)" &&
	grep "^tiny script .* fnv1a64:" "$(sed -n "1s/\.qcow2\$/.recipe/p" paths)" &&
	! grep "^/opt/vmtax/vmtax " "$(sed -n "1s/\.qcow2\$/.recipe/p" paths)" &&
	if test -n "$HOSTPKG"; then
		grep "^root host-packages\$" "$(sed -n "1s/\.qcow2\$/.recipe/p" paths)" &&
		grep "^host-package libvirt-daemon-system " "$(sed -n "1s/\.qcow2\$/.recipe/p" paths)"
	fi
'

test_expect_success 'a second build is up to date: the same files, none rewritten' '
	for f in $(cat paths); do stat -L -c "%n %Y %s" "$f" || exit 1; done >before &&
	(cd "$TOP" && "$VMTAX" image build --kind lab) >paths2 2>err &&
	grep "up to date" err &&
	cmp paths paths2 &&
	for f in $(cat paths2); do stat -L -c "%n %Y %s" "$f" || exit 1; done >after &&
	cmp before after
'

test_expect_success 'image path --kind lab names the same files' '
	"$VMTAX" image path --kind lab disk >disk &&
	test "$(cat disk)" = "$(sed -n 1p paths)"
'

# The commands run in the lab through the agent, in order; answer N is line N.
READY='n=0; until virsh -c qemu:///system version; do sleep 1; n=$((n+1)); [ $n -lt 600 ] || exit 1; done; echo uptime $(cut -d" " -f1 /proc/uptime)'
SVM='grep -c -w svm /proc/cpuinfo; grep -c -w npt /proc/cpuinfo'
KVM='stat -c "%G %a" /dev/kvm'
NPT='cat /sys/module/kvm_amd/parameters/npt'
PROBE='test ! -e /opt/vmtax/vmtax && echo "no vmtax (vmtax lab run puts it there)"'
TINY='test -r /opt/vmtax/images/tiny-$(uname -r).cpio.gz && echo tiny-$(uname -r)'
HUGE='grep hugetlbfs /proc/mounts'
# libvirt gives QEMU the user's passwd group and its other groups (id -G)
KVMQ='setpriv --reuid=libvirt-qemu --regid=libvirt-qemu --groups=$(id -G libvirt-qemu | tr " " ,) sh -c "test -r /dev/kvm && test -w /dev/kvm && id"'

test_expect_success 'the lab boots (TCG, EPYC+svm+npt, 4 GiB, 2 vCPUs) and its agent answers' '
	qcow2=$(sed -n 1p paths) kernel=$(sed -n 2p paths) initrd=$(sed -n 3p paths) &&
	chmod 755 "$TRASH" &&
	qemu-img create -q -f qcow2 -F qcow2 -b "$qcow2" "$TRASH/disk.qcow2" &&
	cat >dom.xml <<XML &&
<domain type="qemu">
  <name>$DOM</name>
  <memory unit="MiB">4096</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch="x86_64" machine="q35">hvm</type>
    <kernel>$kernel</kernel>
    <initrd>$initrd</initrd>
    <cmdline>root=/dev/vda rw console=ttyS0</cmdline>
  </os>
  <cpu mode="custom" match="exact">
    <model fallback="forbid">EPYC</model>
    <feature policy="require" name="svm"/>
    <feature policy="require" name="npt"/>
  </cpu>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <disk type="file" device="disk">
      <driver name="qemu" type="qcow2"/>
      <source file="$TRASH/disk.qcow2"/>
      <target dev="vda" bus="virtio"/>
    </disk>
    <serial type="file"><source path="$TRASH/console.log"/><target port="0"/></serial>
    <channel type="unix"><target type="virtio" name="org.vmtax.agent.0"/></channel>
    <memballoon model="none"/>
  </devices>
</domain>
XML
	t0=$(date +%s) &&
	virsh -q create dom.xml &&
	sock=$(virsh dumpxml "$DOM" | grep -o "path=.[^ ]*/org.vmtax.agent.0" |
		sed "s/^path=.//" | head -n 1) &&
	test -n "$sock" &&
	python3 "$TOP/tests/slow/agent-hello.py" "$sock" 600 "$READY" >out &&
	t1=$(date +%s) &&
	python3 "$TOP/tests/slow/agent-hello.py" "$sock" 60 \
		"$SVM" "$KVM" "$NPT" "$PROBE" "$TINY" "$HUGE" "$KVMQ" >>out &&
	grep "^{\"" out >answers &&
	sed -n "1,/^}$/p" out >hello.json &&
	echo $((t1 - t0)) >ready_s &&
	grep "\"proto_version\": 1" hello.json &&
	test $(wc -l <answers) = 8
'
[ -s "$TRASH/ready_s" ] &&
	echo "# domain start to libvirtd answering inside: $(cat "$TRASH/ready_s") s" \
		"(lab uptime then: $(sed -n 1p "$TRASH/answers" | jq -r .result.output |
			sed -n "s/^uptime //p") s)"

# ans N: the output of answer N, which must have exited 0
ans() {
	sed -n "${1}p" answers | jq -e ".ok and .result.status == \"ok\"" >/dev/null ||
		{ sed -n "${1}p" answers; return 1; }
	sed -n "${1}p" answers | jq -r .result.output
}

test_expect_success 'libvirtd answers inside (QEMU driver)' '
	ans 1 >o && cat o && grep "Running hypervisor: QEMU" o
'

test_expect_success 'the lab CPU offers svm and npt on both vCPUs' '
	ans 2 >o && test "$(cat o)" = "$(printf "2\n2")"
'

test_expect_success '/dev/kvm: group kvm, mode 0660' '
	ans 3 >o && test "$(cat o)" = "kvm 660"
'

test_expect_success 'kvm_amd is loaded with nested paging on' '
	ans 4 >o && test "$(cat o)" = "Y"
'

test_expect_success 'no vmtax inside the image: vmtax lab run puts its own there' '
	ans 5 >o && grep "^no vmtax" o
'

test_expect_success 'the tiny image of the lab kernel is inside' '
	ans 6 >o && grep "^tiny-" o
'

test_expect_success 'hugetlbfs is mounted' '
	ans 7 >o && grep -w hugetlbfs o
'

test_expect_success 'libvirt-qemu (QEMU under libvirt) can open /dev/kvm' '
	ans 8 >o && grep "(kvm)" o
'

test_expect_success 'the lab shuts down' '
	virsh -q destroy "$DOM"
'

test_done
