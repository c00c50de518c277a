#!/bin/sh
# t0500-image-debian: 'vmtax image build --kind debian' builds (or reuses from
# build/images) the Debian image; the image boots under libvirt (TCG or KVM)
# with direct kernel boot, its agent comes up from systemd and answers hello
# on the virtio-serial channel.  Slow: ~6 min from scratch here (2 cores,
# TCG; see docs/guest-image.md), ~50 s with the image cached.  Run by
# 'make check-slow'.  The guest boots from a qcow2 overlay in the scratch
# directory, so the cached image is never written.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "debootstrap and libguestfs need root"
test_need LIBVIRT
command -v debootstrap >/dev/null || skip_all "debootstrap is not installed"

DOM=vmtax-t0500-$$
ACCEL=qemu
test_prereq KVM_HW && ACCEL=kvm
trap 'virsh -q destroy "$DOM" >/dev/null 2>&1' EXIT

test_expect_success 'image build --kind debian builds or reuses the image' '
	(cd "$TOP" && "$VMTAX" image build --kind debian) >paths &&
	test $(wc -l <paths) = 3 &&
	test -s "$(sed -n 1p paths)" && test -s "$(sed -n 2p paths)" &&
	test -s "$(sed -n 3p paths)" &&
	test -L "$TOP/build/images/debian.qcow2"
'

test_expect_success 'a second build is up to date: the same files, none rewritten' '
	for f in $(cat paths); do stat -L -c "%n %Y %s" "$f" || exit 1; done >before &&
	(cd "$TOP" && "$VMTAX" image build --kind debian) >paths2 2>err &&
	grep "up to date" err &&
	cmp paths paths2 &&
	for f in $(cat paths2); do stat -L -c "%n %Y %s" "$f" || exit 1; done >after &&
	cmp before after
'

test_expect_success 'the image boots and its agent answers hello' '
	qcow2=$(sed -n 1p paths) kernel=$(sed -n 2p paths) initrd=$(sed -n 3p paths) &&
	chmod 755 "$TRASH" &&
	qemu-img create -q -f qcow2 -F qcow2 -b "$qcow2" "$TRASH/disk.qcow2" &&
	cat >dom.xml <<XML &&
<domain type="$ACCEL">
  <name>$DOM</name>
  <memory unit="MiB">2048</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch="x86_64" machine="q35">hvm</type>
    <kernel>$kernel</kernel>
    <initrd>$initrd</initrd>
    <cmdline>root=/dev/vda rw console=ttyS0</cmdline>
  </os>
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
	virsh -q create dom.xml &&
	sock=$(virsh dumpxml "$DOM" | grep -o "path=.[^ ]*/org.vmtax.agent.0" |
		sed "s/^path=.//" | head -n 1) &&
	test -n "$sock" &&
	python3 "$TOP/tests/slow/agent-hello.py" "$sock" 300 >hello.json &&
	cat hello.json &&
	grep "\"proto_version\": 1" hello.json &&
	grep "vmtax-agent" "$TRASH/console.log" &&
	virsh -q destroy "$DOM"
'

test_done
