#!/bin/sh
# host: exclusive
# The tiny image 'vmtax image build' makes is the one 'vmtax run' boots: in a
# fresh tree (vmtax, bin/ and the script copied, no images) 'vmtax image path'
# names nothing, 'image build --kind tiny' builds tiny-KVER-HASH.cpio.gz and
# the link tiny-KVER.cpio.gz, 'image path' then names that build, and a
# one-cell guest run boots it.
#
# VMTAX_HOST_LOCK=FILE makes the guest boot wait for flock FILE (for
# developers sharing one host); unset, or with VMTAX_HOST_LOCK_HELD=1 (the
# caller holds it: run-shell-tests.sh), nothing is locked.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root (vmtax run sets host THP)"
test_need LIBVIRT
test_need AGENT
# The guest kernel, as vmtax finds it: its cache (make deps), else /boot.
test_need KERNEL

LOCK=${VMTAX_HOST_LOCK:-}
[ "${VMTAX_HOST_LOCK_HELD:-}" != 1 ] || LOCK=
with_host_lock() {
	if [ -n "$LOCK" ]; then
		flock -o -w 1200 "$LOCK" "$@"
	else
		"$@"
	fi
}

# QEMU (libvirt-qemu) opens the image: the tree must be traversable (0755),
# so it is not under $TRASH (0700).
T=$(mktemp -d /tmp/vmtax-t0180-tree.XXXXXX) && chmod 0755 "$T" ||
	bail_out "cannot make a scratch tree"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/build" "$T/guest-image/build" &&
	cp "$VMTAX" "$T/build/vmtax" &&
	cp -a "$BUILD/bin" "$T/build/bin" &&
	cp "$TOP/guest-image/build/mkinitramfs-tiny.sh" \
		"$TOP/guest-image/build/mkinitramfs-lib.sh" "$T/guest-image/build/" &&
	{ ! test -d "$BUILD/kernel" || ln -s "$BUILD/kernel" "$T/build/kernel"; } ||
	bail_out "cannot copy the build into $T"
V=$T/build/vmtax
thp=$(thp_get enabled)
thp_before=$thp

test_expect_success 'before the build, image path names the missing image' '
	rc=0 &&
	{ "$V" image path initrd >path 2>err || rc=$?; } &&
	test "$rc" = 1 &&
	test ! -s path &&
	grep -q "guest initramfs .$T/build/images/tiny-.*\.cpio\.gz. is missing (run .vmtax image build --kind tiny." err &&
	! ls "$T/build/images"/tiny-* >/dev/null 2>&1
'

test_expect_success 'image build --kind tiny builds tiny-KVER-HASH and links tiny-KVER to it' '
	(cd "$T" && "$V" image build --kind tiny >"$TRASH/built" 2>"$TRASH/build-err") &&
	kver=$("$V" image path vmlinuz | sed "s,.*/vmlinuz-,,") &&
	test -n "$kver" &&
	built=$(cat built) &&
	case "$built" in
	"$T/build/images/tiny-$kver-"????????????????.cpio.gz) ;;
	*) echo "unexpected image name: $built"; false ;;
	esac &&
	test -s "$built" &&
	test "$(readlink -f "$T/build/images/tiny-$kver.cpio.gz")" = "$built" &&
	test -s "${built%.cpio.gz}.recipe"
'

test_expect_success 'image path names what the build made' '
	test "$("$V" image path initrd)" = "$(cat built)" &&
	"$V" image path >all &&
	grep -qx "initrd $(cat built)" all &&
	grep -Eqx "vmlinuz ($T/build/kernel|$(cd "$BUILD" && pwd -P)/kernel|)/boot/vmlinuz-.*" all &&
	! grep -q "^disk " all
'

test_expect_success 'the kernel QEMU boots is the ELF of the vmlinuz, through PVH' '
	grep -Eqx "kernel $T/build/images/pvh-[0-9a-f]{16}\.vmlinux" all &&
	pvh=$(sed -n "s/^kernel //p" all) &&
	test "$(head -c 4 "$pvh" | od -An -c | tr -d " ")" = "177ELF" &&
	test "$("$V" image path kernel)" = "$pvh" &&
	test "$(ls "$T/build/images"/pvh-*.vmlinux | wc -l)" = 1
'

test_expect_success 'a second build is up to date and keeps the link' '
	(cd "$T" && "$V" image build --kind tiny >"$TRASH/built2" 2>"$TRASH/err2") &&
	test "$(cat built2)" = "$(cat built)" &&
	grep -q "up to date" err2 &&
	test "$(ls "$T/build/images"/tiny-*.cpio.gz | wc -l)" = 2
'

cat >"$TRASH/one.ini" <<EOF2
[run]
name = t0180
repeat = 1
boot_timeout = 180
timeout = 300
[guest]
vcpus = 1
memory = 512M
[matrix]
where = guest
host_thp = $thp
guest_thp = never
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 16
READS = 10000
EOF2

test_expect_success 'vmtax run boots the built tiny image: one guest cell, ok' '
	with_host_lock "$V" run one.ini --out out >stdout 2>stderr ||
		{ tail -20 stderr; false; } &&
	jq -e ".cells | length == 1" out/results.json &&
	jq -e ".cells[0].env.where == \"guest\" and .cells[0].status == \"ok\"" out/results.json &&
	jq -e ".cells[0].samples[0].metric > 0" out/results.json &&
	kver=$("$V" image path vmlinuz | sed "s,.*/vmlinuz-,,") &&
	test "$(jq -r ".cells[0].observed.guest_kernel" out/results.json)" = "$kver" &&
	grep -q "vmtax-init: start" out/logs/*.console.log
'

test_expect_success 'host THP is as before and no vmtax domain is left' '
	test "$(thp_get enabled)" = "$thp_before" &&
	no_vmtax_domains
'

test_done
