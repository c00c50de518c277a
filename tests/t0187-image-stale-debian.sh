#!/bin/sh
# A debian image is current by its recipe's key, not by being there (issue
# 37): its recipe names every input the build puts in (the package list,
# the agent, the workload binaries, busybox, the source sets, the texts and
# links), by content and name, computed without building.  'vmtax image
# build --check' says missing, up to date or stale (naming each changed
# input), and 'vmtax run --dry-run' (and the run, which shares its set-up)
# refuses a missing image and boots a stale one as it is, saying so on
# stderr and in its output (results.json's run.notes).  The lab image, in
# the shared cache (VMTAX_IMAGE_CACHE, a scratch one here), is checked the
# same way, and a tree moved elsewhere stays current.  In a scratch tree
# with a stand-in image planted under the key 'image build --recipe'
# prints; nothing is built and nothing boots.
. "$(dirname "$0")/lib-test.sh"
test_need KERNEL
test_need BUSYBOX
test_need AGENT
test_lazy_prereq QEMU_IMG "no qemu-img (qemu-utils)" 'command -v qemu-img'
test_need QEMU_IMG

T=$(mktemp -d /tmp/vmtax-t0187-tree.XXXXXX) && chmod 0755 "$T" ||
	bail_out "cannot make a scratch tree"
trap 'rm -rf "$T" "$T.moved"' EXIT
mkdir -p "$T/build/src" "$T/guest-image/build" "$T/configs" &&
	cp "$VMTAX" "$T/build/vmtax" &&
	cp -a "$BUILD/bin" "$T/build/bin" &&
	cp -a "$TOP/configs/workloads" "$T/configs/workloads" &&
	cp "$TOP"/guest-image/build/mkinitramfs-*.sh "$T/guest-image/build/" &&
	{ ! test -d "$BUILD/kernel" || ln -s "$BUILD/kernel" "$T/build/kernel"; } &&
	echo "a source set" >"$T/build/src/ccbuild.tar" &&
	cp -a "$T/build" "$TRASH/pristine" ||
	bail_out "cannot copy the build into $T"
VMTAX_IMAGE_CACHE=$TRASH/cache
export VMTAX_IMAGE_CACHE
I=$T/build/images

cat >"$TRASH/one.ini" <<EOF2
[run]
name = t0187
repeat = 1
[guest]
image = debian
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

# check: 'image build --kind debian --check' from the tree into $TRASH/err
check() { (cd "$T" && build/vmtax image build --kind debian --check) 2>"$TRASH/err" && cat "$TRASH/err"; }
# dry: the dry run of one.ini by the tree's vmtax, into out and err
dry() { "$T/build/vmtax" run "$TRASH/one.ini" --dry-run >"$TRASH/out" 2>"$TRASH/err"; }
# restore: the tree's build as it was (each row changes one input)
restore() { rm -rf "$T/build/bin" "$T/build/src" && cp -a "$TRASH/pristine/bin" "$TRASH/pristine/src" "$T/build/"; }

test_expect_success 'no image: --check says missing, the dry run refuses it (exit 2)' '
	check &&
	grep "image: debian: .$I/debian.qcow2. is missing: never built" err &&
	grep "image: debian: would be built: recipe [0-9a-f]\{16\}" err &&
	test_expect_code 2 "$T/build/vmtax" run one.ini --dry-run >out 2>err &&
	grep "there is no built image (.$I/debian.qcow2.)" err
'

test_expect_success 'planted under the recipe of the inputs now: up to date, the dry run says nothing' '
	(cd "$T" && build/vmtax image build --kind debian --recipe) >recipe 2>err &&
	key=$(sed -n "s/.*would be built: recipe \([0-9a-f]\{16\}\).*/\1/p" err) &&
	test -n "$key" &&
	grep "^/usr/local/sbin/vmtax-agent fnv1a64:" recipe &&
	grep "^/opt/vmtax/src/ccbuild.tar fnv1a64:" recipe &&
	grep "^/bin/busybox fnv1a64:" recipe &&
	! grep "$T" recipe &&
	mkdir -p "$I" &&
	qemu-img create -q -f qcow2 "$I/debian-$key.qcow2" 64M &&
	echo kernel >"$I/debian-$key.vmlinuz" &&
	echo initrd >"$I/debian-$key.initrd" &&
	cp recipe "$I/debian-$key.recipe" &&
	for e in qcow2 vmlinuz initrd; do ln -s "debian-$key.$e" "$I/debian.$e" || return 1; done &&
	check &&
	grep "image: debian: up to date: .$I/debian-$key.qcow2." err &&
	! grep -E "stale|missing" err &&
	dry &&
	grep "disk $I/debian-[0-9a-f]\{16\}\.qcow2$" out &&
	! grep -E "stale|note:" out err
'

# Each kind of input, changed alone, is named as itself: by --check, and by
# the dry run, which boots the stale image as it is (exit 0).
while read row change named; do
	test_expect_success "stale: $row is named '$named'" '
		restore &&
		eval "$change" &&
		check &&
		grep "image: debian: .$I/debian.qcow2. is stale: built from other inputs than now (changed: $named)" err &&
		dry &&
		grep "the debian image .$I/debian.qcow2. is stale (changed since it was built: $named): booted as it is; .vmtax image build --kind debian. builds it again" err &&
		grep "^note: the debian image .$I/debian.qcow2. is stale (changed since it was built: $named): booted as it is" out &&
		grep "disk $I/debian-[0-9a-f]\{16\}\.qcow2$" out
	'
done <<'EOF2'
workload-binary printf\ x\ >>"$T/build/bin/randwalk" /opt/vmtax/bin/randwalk
agent printf\ x\ >>"$T/build/bin/vmtax-agent" /usr/local/sbin/vmtax-agent
binary-gone rm\ "$T/build/bin/stream" /opt/vmtax/bin/stream\ (gone)
source-set printf\ x\ >>"$T/build/src/ccbuild.tar" /opt/vmtax/src/ccbuild.tar
EOF2

test_expect_success 'stale: busybox (BUSYBOX) is named /bin/busybox' '
	restore &&
	cp /bin/busybox "$TRASH/busybox" &&
	printf x >>"$TRASH/busybox" &&
	BUSYBOX=$TRASH/busybox check &&
	grep "is stale: built from other inputs than now (changed: /bin/busybox)" err &&
	BUSYBOX=$TRASH/busybox dry &&
	grep "^note: the debian image .* is stale (changed since it was built: /bin/busybox): booted as it is" out
'

test_expect_success 'stale: a workload asking for a package names the new package list' '
	restore &&
	sed "s/^\[workload\]$/[workload]\npackages = hello/" "$T/configs/workloads/randwalk.ini" >"$T/configs/workloads/zz-hello.ini" &&
	check &&
	grep "is stale: built from other inputs than now (changed: packages .*hello" err &&
	dry &&
	grep "^note: the debian image .* is stale (changed since it was built: packages .*hello" out &&
	rm "$T/configs/workloads/zz-hello.ini"
'

test_expect_success 'back as it was: up to date again' '
	restore &&
	check &&
	grep "image: debian: up to date: " err &&
	! grep stale err
'

# The suite and mirror are choices of a build, not inputs: an image built
# with --mirror stays current for a check (and a run) given none.
test_expect_success 'built with --mirror: current without it, stale with another' '
	(cd "$T" && build/vmtax image build --kind debian --recipe --mirror http://mirror.example/debian) >recipe2 2>err &&
	grep "^mirror http://mirror.example/debian$" recipe2 &&
	key2=$(sed -n "s/.*would be built: recipe \([0-9a-f]\{16\}\).*/\1/p" err) &&
	test -n "$key2" &&
	old=$(readlink "$I/debian.qcow2") &&
	qemu-img create -q -f qcow2 "$I/debian-$key2.qcow2" 64M &&
	cp recipe2 "$I/debian-$key2.recipe" &&
	echo kernel >"$I/debian-$key2.vmlinuz" &&
	echo initrd >"$I/debian-$key2.initrd" &&
	for e in qcow2 vmlinuz initrd; do ln -sfn "debian-$key2.$e" "$I/debian.$e" || return 1; done &&
	check &&
	grep "image: debian: up to date: .$I/debian-$key2.qcow2." err &&
	dry &&
	! grep stale err &&
	(cd "$T" && build/vmtax image build --kind debian --check --mirror http://other.example/debian) 2>err &&
	grep "is stale: built from other inputs than now (changed: mirror http://other.example/debian)" err &&
	for e in qcow2 vmlinuz initrd; do ln -sfn "${old%.qcow2}.$e" "$I/debian.$e" || return 1; done &&
	check &&
	grep "image: debian: up to date: .$I/$old." err
'

# The lab image shares the mechanism: its files in the shared cache
# (VMTAX_IMAGE_CACHE), its link in the tree; --check names what changed.
test_expect_success 'the lab image: missing, current when planted, stale naming a binary' '
	restore &&
	check_lab() { (cd "$T" && build/vmtax image build --kind lab --check) 2>"$TRASH/err" && cat "$TRASH/err"; } &&
	check_lab &&
	grep "image: lab: .$I/lab.qcow2. is missing: never built" err &&
	(cd "$T" && build/vmtax image build --kind lab --recipe) >lab-recipe 2>err &&
	lkey=$(sed -n "s/.*would be built: recipe \([0-9a-f]\{16\}\).*/\1/p" err) &&
	test -n "$lkey" &&
	mkdir -p "$VMTAX_IMAGE_CACHE" &&
	qemu-img create -q -f qcow2 "$VMTAX_IMAGE_CACHE/lab-$lkey.qcow2" 64M &&
	echo kernel >"$VMTAX_IMAGE_CACHE/lab-$lkey.vmlinuz" &&
	echo initrd >"$VMTAX_IMAGE_CACHE/lab-$lkey.initrd" &&
	cp lab-recipe "$VMTAX_IMAGE_CACHE/lab-$lkey.recipe" &&
	for e in qcow2 vmlinuz initrd; do ln -s "$VMTAX_IMAGE_CACHE/lab-$lkey.$e" "$I/lab.$e" || return 1; done &&
	check_lab &&
	grep "image: lab: up to date: .$VMTAX_IMAGE_CACHE/lab-$lkey.qcow2." err &&
	printf x >>"$T/build/bin/randwalk" &&
	check_lab &&
	grep "image: lab: .$I/lab.qcow2. is stale: built from other inputs than now (changed: /opt/vmtax/bin/randwalk)" err &&
	restore
'

# The recipe names contents, not paths: a checkout moved elsewhere keeps
# its image current (its links are relative here, as a copy's would be made).
test_expect_success 'the tree moved: still up to date' '
	mv "$T" "$T.moved" &&
	(cd "$T.moved" && build/vmtax image build --kind debian --check) 2>err &&
	mv "$T.moved" "$T" &&
	cat err &&
	grep "image: debian: up to date: .$T.moved/build/images/debian-" err &&
	! grep stale err
'

test_done
