#!/bin/sh
# host: exclusive
# A build in a directory QEMU (libvirt-qemu) cannot traverse -- a checkout
# in root's 0700 home -- still boots: the guest files are staged in
# /var/lib/libvirt/images/vmtax (orchestrator/guest/guest-reach.h); where staging
# cannot help, the run is refused before booting, with the path and the fix.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root (QEMU runs as another user)"
test_need LIBVIRT
test_need TINY
test_lazy_prereq LIBVIRT_QEMU "no libvirt-qemu user" 'id libvirt-qemu'
test_need LIBVIRT_QEMU

thp=$(thp_get enabled)
# A copy of the build, as a newcomer's clone would have it, in a 0700 dir
# (its guest kernel cache, build/kernel, a link to ours: not the subject).
P=$TRASH/home/newcomer/vmtax
mkdir -p "$P/build/bin" "$P/build/images" "$P/guest-image/build" &&
	chmod 0700 "$TRASH/home" &&
	cp "$VMTAX" "$P/build/vmtax" &&
	cp -a "$BUILD/bin/." "$P/build/bin/" &&
	cp "$TOP"/guest-image/build/mkinitramfs-*.sh "$P/guest-image/build/" &&
	cp -a "$BUILD"/images/tiny-*.cpio.gz "$BUILD"/images/tiny-*.recipe \
		"$P/build/images/" &&
	{ ! test -d "$BUILD/kernel" || ln -s "$BUILD/kernel" "$P/build/kernel"; } ||
	bail_out "cannot copy the build"
# The image links are absolute (into $BUILD): point them into the copy.
for l in "$P"/build/images/*; do
	[ -L "$l" ] || continue
	ln -sfn "$(basename "$(readlink "$l")")" "$l" || bail_out "cannot relink '$l'"
done

cat >"$TRASH/one.ini" <<EOF2
[run]
name = t0270
repeat = 1
boot_timeout = 180
[guest]
vcpus = 1
memory = 1G
[matrix]
where = guest
host_thp = $thp
guest_thp = never
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 16
READS = 1000
EOF2

test_expect_success 'the copy is out of reach of libvirt-qemu' '
	! setpriv --reuid=libvirt-qemu --regid=kvm --init-groups \
		test -r "$P/build/images/$(basename "$(readlink -f "$TINY")")"
'

# The tiny image's recipe names its inputs by content and name, never by
# path: the copy's image is the build of its inputs, not to be built again.
test_expect_success 'the copy finds its tiny image current' '
	(cd "$P" && build/vmtax image build --kind tiny --check) 2>check &&
	cat check &&
	grep "image: tiny: up to date: .$P/build/images/$(basename "$(readlink -f "$TINY")")." check &&
	! grep -E "stale|missing" check
'

test_expect_success 'a one-cell guest run from the private copy succeeds' '
	"$P/build/vmtax" run one.ini --out out 2>err &&
	! grep -E "is stale|first use" err &&
	test "$(jq -r ".cells[0].status" out/results.json)" = ok &&
	test "$(jq ".cells[0].samples[0].status == \"ok\"" out/results.json)" = true
'

# A hard link, or (a run before this one staged it) the same bytes, of the
# image the copy's link names after the run (the one copied: it is current).
test_expect_success 'it booted a hard link in /var/lib/libvirt/images/vmtax' '
	link=$(find "$P/build/images" -maxdepth 1 -type l -name "tiny-*.cpio.gz") &&
	test -n "$link" &&
	img=$(readlink -f "$link") &&
	staged=/var/lib/libvirt/images/vmtax/$(basename "$img") &&
	{ test "$(stat -c %i "$img")" = "$(stat -c %i "$staged")" || cmp "$img" "$staged"; } &&
	setpriv --reuid=libvirt-qemu --regid=kvm --init-groups test -x "$(dirname "$staged")"
'

test_expect_success 'unreachable even when staged: refused before booting, with the fix' '
	test_expect_code 2 env VMTAX_STAGE_DIR="$TRASH/home/stage" \
		"$P/build/vmtax" run one.ini --out out2 2>err2 &&
	grep -E "^vmtax: error: QEMU \(user .libvirt-qemu.\) cannot reach .$TRASH/home/stage/pvh-[0-9a-f]{16}\.vmlinux.: .$TRASH(/home)?. is mode 0700, owner root; move the checkout out of it or chmod o\+x .$TRASH(/home)?.$" err2 &&
	test ! -e out2/results.json &&
	! grep -q "booting" err2
'

test_expect_success 'no domain left, host as found' '
	! virsh -c qemu:///system list --name | grep -q "^vmtax-t0270-" &&
	test "$(thp_get enabled)" = "$thp"
'
test_done
