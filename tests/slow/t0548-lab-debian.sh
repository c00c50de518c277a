#!/bin/sh
# Debian guests in the lab (docs/lab.md, "Debian inner guests"): the lab
# carries this host's debian image (vmtax image build --kind debian) as a
# read-only second disk; inside, each inner guest boots a copy-on-write
# overlay of it, with the kernel and initrd from the image's own /boot, its
# agent over virtio-serial, its THP set and read back.  One sample of
# forktouch (small) with NPT on and with NPT off, one lab THP and one guest
# THP; then one sample of ccbuild (the compiler workload: gcc over the
# image's checksummed source set) in each, where the image carries the
# set.  The lab boots (a saved state is of a lab without the disk); this
# host's image is read, never written.  Prints what the inner guests took
# to boot and to run, for docs/lab.md.  Minutes (about 20 here): the lab
# boots under TCG, twice, and each Debian inner guest boots under the
# lab's KVM.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "the lab image and libvirt need root"
test_need LIBVIRT
! (cd "$TOP" && "$VMTAX" image build --kind lab --check) 2>&1 |
	grep -q "debootstrap instead" || command -v debootstrap >/dev/null ||
	skip_all "this host lacks the lab's packages, and debootstrap is not installed"
virsh -q domcapabilities --virttype qemu 2>/dev/null | grep -q "<model.*>EPYC<" ||
	skip_all "this libvirt/QEMU offers no EPYC CPU model to TCG guests"
test_lazy_prereq DEBIAN_IMAGE "no debian image: vmtax image build --kind debian (about 10 minutes)" \
	'cd "$TOP" && "$VMTAX" image path --kind debian disk'
test_need DEBIAN_IMAGE
disk=$(cd "$TOP" && "$VMTAX" image path --kind debian disk)
image=$(basename "$(readlink -f "$disk")")
stamp_before=$(stat -L -c "%s %Y" "$disk")

thp_before=$(thp_get enabled)
huge_before=$(cat /proc/sys/vm/nr_hugepages)
SETS="--set matrix.where=guest --set matrix.host_thp=always --set matrix.guest_thp=always
	--set run.order=cells --set run.boots=1 --set run.repeat=1 --set run.baseline=
	--set guest.image=debian --set workload.PROCS=50"

test_expect_success 'a lab run whose inner guests boot the debian image, NPT on and off' '
	(cd "$TOP" && exec "$VMTAX" run configs/lab-npt.ini --out "$TRASH/lab" $SETS) 2>err &&
	grep "lab: its guests boot the debian image, carried in as a second disk: the lab boots" err &&
	grep "lab: its guests boot .$image. from the carried disk (kernel=.*disk=/dev/vd" err
'

test_expect_success 'both cells ok, each with its one sample' '
	jq -e ".run.status == \"complete\"" lab/results.json &&
	jq -e "(.cells | length) == 2" lab/results.json &&
	jq -e "[.cells[] | select(.status == \"ok\")] | length == 2" lab/results.json &&
	test "$(jq -c "[.cells[] | .samples | length]" lab/results.json)" = "[1,1]"
'

test_expect_success 'the lab carried this host'\''s debian image, and booted with it' '
	jq -e --arg i "$image" ".lab.carries == \$i" lab/results.json &&
	jq -e ".lab.restored == false" lab/results.json
'

test_expect_success 'each inner guest booted that image: a Debian userland, its kernel' '
	jq -e --arg i "$image" "[.cells[].observed.guest_image] == [\$i, \$i]" lab/results.json &&
	jq -e "[.cells[].observed.guest_userland] == [\"gnu\", \"gnu\"]" lab/results.json &&
	kver=$(jq -r ".cells[0].observed.guest_kernel" lab/results.json) &&
	test "$kver" != "$(jq -r .lab.kernel lab/results.json)" &&
	jq -e --arg k "$kver" "[.cells[].observed.guest_kernel] == [\$k, \$k]" lab/results.json
'

test_expect_success 'guest THP set and read back; NPT read back as asked; KVM seen' '
	jq -e "[.cells[].observed.guest_thp] == [\"always\", \"always\"]" lab/results.json &&
	jq -e "[.cells[] | select(.env.paging == \"npt\") | .observed.paging] == [\"hw\"]" lab/results.json &&
	jq -e "[.cells[] | select(.env.paging == \"shadow\") | .observed.paging] == [\"shadow\"]" lab/results.json &&
	jq -r "[.cells[].samples[].kvm.exits_by_reason[]?.reason] | unique | .[]" lab/results.json >reasons &&
	grep -x npf reasons && grep -x "PF excp" reasons
'

test_expect_success 'this host'\''s debian image was not written; nothing left running; this host as it was' '
	test "$(stat -L -c "%s %Y" "$disk")" = "$stamp_before" &&
	! virsh -q list --name | grep "^vmtax-" &&
	test ! -e "$(jq -r .lab.disk lab/results.json)" &&
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(cat /proc/sys/vm/nr_hugepages)" = "$huge_before"
'

# The compiler workload: a config of the test's own (its path and the
# workload's file go into the lab as they are here).  The image must carry
# the source set (its recipe names /opt/vmtax/src/ccbuild.tar).
recipe=$(readlink -f "$disk" | sed 's/\.qcow2$/.recipe/')
test_lazy_prereq CCBUILD_IMAGE "no ccbuild workload, or '$image' carries no source set (vmtax image build --kind debian)" \
	'test -f "$TOP/configs/workloads/ccbuild.ini" && grep -q "^/opt/vmtax/src/ccbuild.tar " "$recipe"'
cat >"$TRASH/ccb.ini" <<EOF
[run]
name = t0548-ccbuild
executor = lab
order = cells
repeat = 1
boots = 1
warmup = 0
timeout = 1800
boot_timeout = 600
retries = 1
[lab]
vcpus = 2
memory = 3G
[guest]
image = debian
vcpus = 1
memory = 1G
accel = kvm
[matrix]
where = guest
host_thp = always
guest_thp = always
npt = on, off
[workload]
dir = $TOP/configs/workloads
name = ccbuild
EOF
test_expect_success CCBUILD_IMAGE 'ccbuild in Debian inner guests, NPT on and off: each compiles the checksummed set' '
	"$VMTAX" run ccb.ini --out "$TRASH/ccb" 2>err-ccb &&
	jq -e ".run.status == \"complete\"" ccb/results.json &&
	jq -e "[.cells[] | select(.status == \"ok\")] | length == 2" ccb/results.json &&
	jq -e "[.cells[] | .samples[0].metric > 0] == [true, true]" ccb/results.json &&
	jq -e --arg i "$image" "[.cells[].observed.guest_image] == [\$i, \$i]" ccb/results.json &&
	jq -e "[.cells[].observed.guest_thp] == [\"always\", \"always\"]" ccb/results.json &&
	jq -e "[.cells[].observed.paging] == [\"hw\", \"shadow\"]" ccb/results.json &&
	test "$(grep -l "^ccbuild: make -j1 FILES=12, set sha256:[0-9a-f]\{64\}$" ccb/lab/logs/*.sample-0.out | wc -l)" = 2 &&
	! virsh -q list --name | grep "^vmtax-" &&
	test "$(stat -L -c "%s %Y" "$disk")" = "$stamp_before"
'

# The figures docs/lab.md quotes: the lab's own start, then each inner
# guest's boot to hello (with its breakdown) and its sample.
for R in "$TRASH/lab/results.json" "$TRASH/ccb/results.json"; do
	[ -f "$R" ] || continue
	echo "# $(jq -r .run.config.workload.name "$R"): lab ready_s $(jq .lab.ready_s "$R"), boot_to_hello_s $(jq .lab.boot_to_hello_s "$R")"
	jq -r '.cells[] | "# \(.id): boot to hello \(.observed.boot_to_hello_s) s (firmware \(.observed.boot_breakdown.firmware_s), kernel to agent \(.observed.boot_breakdown.kernel_to_agent_s)), sample \([.samples[].metric]), KVM exits \([.samples[].kvm.exits_total])"' "$R"
done
grep -h "lab: its guests boot\|lab| vmtax: time:" "$TRASH/err" "$TRASH/err-ccb" 2>/dev/null | sed "s/^/# /"

test_done
