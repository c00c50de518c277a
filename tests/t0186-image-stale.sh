#!/bin/sh
# A tiny image is current by its recipe's key, not by being there (issue
# 37): after a workload binary is added or changed, 'vmtax image build
# --check' and 'vmtax run --dry-run' (and the run, which shares the dry
# run's set-up) say the image is stale and name what changed, and the run
# builds it again as on first use, so it never boots the old one.  In a
# scratch tree (vmtax, bin/ and the scripts copied); nothing boots.
. "$(dirname "$0")/lib-test.sh"
test_need KERNEL
test_need BUSYBOX
test_need AGENT

T=$(mktemp -d /tmp/vmtax-t0186-tree.XXXXXX) && chmod 0755 "$T" ||
	bail_out "cannot make a scratch tree"
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/build" "$T/guest-image/build" &&
	cp "$VMTAX" "$T/build/vmtax" &&
	cp -a "$BUILD/bin" "$T/build/bin" &&
	cp "$TOP/guest-image/build/mkinitramfs-tiny.sh" "$TOP/guest-image/build/mkinitramfs-lib.sh" "$T/guest-image/build/" &&
	{ ! test -d "$BUILD/kernel" || ln -s "$BUILD/kernel" "$T/build/kernel"; } ||
	bail_out "cannot copy the build into $T"
V=$T/build/vmtax

cat >"$TRASH/one.ini" <<EOF2
[run]
name = t0186
repeat = 1
[guest]
vcpus = 1
memory = 512M
accel = tcg
[matrix]
where = guest
host_thp = never
guest_thp = never
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 16
READS = 10000
EOF2

test_expect_success 'the first build: up to date by --check, the dry run builds nothing' '
	(cd "$T" && "$V" image build --kind tiny >"$TRASH/built" 2>"$TRASH/err") &&
	test -s "$(cat built)" &&
	(cd "$T" && "$V" image build --kind tiny --check) 2>err &&
	grep "image: tiny: up to date: .$(cat built)." err &&
	"$V" run one.ini --dry-run >out 2>err &&
	! grep -E "stale|first use" err &&
	grep "initrd $(cat built)" out
'

test_expect_success 'a changed workload binary: --check says stale, naming it' '
	printf "\n" >>"$T/build/bin/randwalk" &&
	(cd "$T" && "$V" image build --kind tiny --check) 2>err &&
	cat err &&
	grep "image: tiny: .$T/build/images/tiny-.*\.cpio\.gz. is stale: built from other inputs than now (changed: binary randwalk)" err &&
	grep "image: tiny: would be built: " err &&
	test "$(readlink -f "$(ls "$T"/build/images/tiny-*.cpio.gz | grep -v -- "-[0-9a-f]\{16\}\.cpio\.gz$")")" = "$(cat built)"
'

test_expect_success 'the dry run says so and builds it again; --check is then up to date' '
	"$V" run one.ini --dry-run >out 2>err &&
	cat err &&
	grep "the tiny guest image .$T/build/images/tiny-.*\.cpio\.gz. is stale (changed since it was built: binary randwalk): building it again" err &&
	! grep "initrd $(cat built)" out &&
	new=$(sed -n "s/.*, initrd \([^ ,]*\).*/\1/p" out) &&
	test -s "$new" &&
	test "$new" != "$(cat built)" &&
	(cd "$T" && "$V" image build --kind tiny --check) 2>err &&
	grep "image: tiny: up to date: .$new." err
'

test_expect_success 'a binary added and one removed: both named' '
	cp "$T/build/bin/randwalk" "$T/build/bin/zz-new" &&
	mv "$T/build/bin/randwalk" "$TRASH/randwalk" &&
	(cd "$T" && "$V" image build --kind tiny --check) 2>err &&
	mv "$TRASH/randwalk" "$T/build/bin/randwalk" &&
	grep "is stale: .*(changed: binary zz-new, binary randwalk (gone))" err
'

test_done
