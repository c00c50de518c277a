#!/bin/sh
# libguestfs's appliance, launched as 'vmtax image build --kind debian' (and
# the lab's debootstrap build) launch it: supermin boots the guest kernel of
# vmtax's cache (build/kernel, SUPERMIN_KERNEL), never a /boot that 'make
# deps' leaves as it was.  On a fresh machine the debian build once failed
# there, 221 s in ("supermin: failed to find a suitable kernel"), and only a
# slow test built it; this launches the appliance on a scratch disk in
# seconds, so that cannot break unseen again.  The full build stays a slow
# test (tests/slow/t0500-image-debian.sh) and a 'make bench' figure.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX
test_need ROOT "needs root (libguestfs's direct backend, the kernel cache)"
test_need KERNEL

# Each row has its own TMPDIR, where libguestfs keeps supermin's appliance
# (.guestfs-UID): built anew, as on a fresh machine, not found cached.
test_expect_success 'the appliance boots the cached guest kernel, makes and mounts an ext4' '
	kernel=$("$VMTAX" image path vmlinuz) &&
	env -u SUPERMIN_KERNEL -u SUPERMIN_MODULES -u SUPERMIN_KERNEL_VERSION \
		TMPDIR="$TRASH" "$VMTAX" image appliance 2>err &&
	cat err &&
	grep -q "appliance boots SUPERMIN_KERNEL=$kernel " err &&
	grep -q "appliance launched, ext4 made and mounted, shut down" err &&
	test -z "$(ls "$TRASH" | grep vmtax-appliance)"
'

test_expect_success 'a SUPERMIN_KERNEL the user set is kept, and its failure named' '
	mkdir t2 &&
	test_expect_code 1 env SUPERMIN_KERNEL="$TRASH/no-such-vmlinuz" \
		TMPDIR="$TRASH/t2" "$VMTAX" image appliance 2>err &&
	cat err &&
	grep -q "SUPERMIN_KERNEL=$TRASH/no-such-vmlinuz" err &&
	grep -q "guestfs: launch" err
'

test_expect_success 'image appliance takes no argument (exit 2)' '
	test_expect_code 2 "$VMTAX" image appliance extra 2>err &&
	grep -q "unexpected argument '"'"'extra'"'"'" err
'

test_done
