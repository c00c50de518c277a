#!/bin/sh
# The lab image is shared by checkouts (guest-image/build/guest-files.h,
# guest_image_cache_new()): its recipe names contents, not paths, so two
# trees with the same agent, workloads, scripts and kernel in different
# directories have the same key, and a changed agent makes a new one; the
# second tree's 'image build --kind lab' finds the first one's image (no
# build, under 2 s) and links its build/images/lab.* to it.  And where the
# lab's root file system comes from: 'image build --from' and [lab]
# image_from, its bad values refused, the source named by the dry run.
#
# Nothing boots.  The build (about 15 s, 0.7 GB, removed at the end) needs
# root and the lab's packages on this host; else only the keys are checked.
. "$(dirname "$0")/lib-test.sh"
test_need AGENT

# Two scratch trees, A and B: vmtax, bin/, the scripts, the workloads and
# the kernel cache (linked), as a fresh clone has them after make.
tree() {
	mkdir -p "$1/build" "$1/guest-image/build" "$1/configs" &&
		cp "$VMTAX" "$1/build/vmtax" &&
		cp -a "$BUILD/bin" "$1/build/bin" &&
		cp "$TOP"/guest-image/build/*.sh "$1/guest-image/build/" &&
		cp -a "$TOP/configs/workloads" "$1/configs/workloads" &&
		{ ! test -d "$BUILD/kernel" || ln -s "$BUILD/kernel" "$1/build/kernel"; }
}
VMTAX_IMAGE_CACHE=$TRASH/cache
export VMTAX_IMAGE_CACHE
tree "$TRASH/a" && tree "$TRASH/b" || bail_out "cannot copy the build into $TRASH"
# The recipe key of 'image build --kind lab --check' in tree $1, ARGS after.
key() {
	d=$1
	shift
	(cd "$d" && build/vmtax image build --kind lab --check "$@") 2>&1 |
		sed -n 's/.*image: lab: .*recipe \([0-9a-f]\{16\}\).*/\1/p'
}

test_expect_success 'the same contents in two trees: the same lab key' '
	ka=$(key "$TRASH/a") &&
	kb=$(key "$TRASH/b") &&
	test -n "$ka" &&
	test "$ka" = "$kb"
'

test_expect_success 'a changed agent: a new lab key' '
	ka=$(key "$TRASH/a") &&
	mkdir c &&
	tree "$TRASH/c" &&
	printf x >>c/build/bin/vmtax-agent &&
	kc=$(key "$TRASH/c") &&
	test -n "$kc" &&
	test "$ka" != "$kc" &&
	rm -rf c
'

test_expect_success '--from debootstrap: another key, the dry run says debootstrap' '
	(cd a && build/vmtax image build --kind lab --check --from debootstrap) 2>err &&
	grep "image: lab: would be built: .*(debootstrap" err &&
	test "$(key "$TRASH/a" --from debootstrap)" != "$(key "$TRASH/a")"
'

test_expect_success 'bad --from values are refused' '
	test_expect_code 2 "$VMTAX" image build --kind lab --check --from apt 2>err &&
	grep "unknown image source .apt. (auto, packages or debootstrap)" err &&
	test_expect_code 1 "$VMTAX" image build --kind tiny --check --from packages 2>err &&
	grep "image: tiny: --from packages is for the lab image" err
'

w="[workload]
dir = $TOP/configs/workloads
name = forktouch"
test_expect_success '[lab] image_from: a bad value is file:line:, exit 2' '
	printf "[run]\nexecutor = lab\n[lab]\nimage_from = apt\n%s\n" "$w" >bad.ini &&
	test_expect_code 2 "$VMTAX" run bad.ini --dry-run 2>err &&
	grep "^bad.ini:4: bad value for .image_from.: .apt. is not one of: auto, packages, debootstrap" err
'

test_expect_success '[lab] image_from = debootstrap: the dry run names it' '
	printf "[run]\nexecutor = lab\n[lab]\nimage_from = debootstrap\n%s\n" "$w" >deb.ini &&
	(cd a && build/vmtax run ../deb.ini --dry-run) >out 2>err &&
	grep "image: lab: would be built: .*(debootstrap" err
'

test_lazy_prereq LAB_FROM_HOST \
	"this host cannot build the lab from its packages ('vmtax image build --kind lab --check' says so)" \
	'(cd "$TRASH/a" && build/vmtax image build --kind lab --check) 2>&1 | grep -q "the host.s packages"'
test_expect_success ROOT,LAB_FROM_HOST 'the second tree reuses the first one'"'"'s lab image' '
	(cd a && build/vmtax image build --kind lab) >built-a 2>err-a &&
	q=$(cat built-a | head -n 1) &&
	case "$q" in "$VMTAX_IMAGE_CACHE"/lab-????????????????.qcow2) ;; *) false ;; esac &&
	test "$(readlink a/build/images/lab.qcow2)" = "$q" &&
	t0=$(date +%s%N) &&
	(cd b && build/vmtax image build --kind lab) >built-b 2>err-b &&
	ms=$(( ($(date +%s%N) - t0) / 1000000 )) &&
	echo "# the second tree: $ms ms (a figure, not asserted: make check runs on busy hosts)" &&
	grep "image: lab: up to date: .$q. (recipe .*, from this host.s packages)" err-b &&
	! grep "host disk" err-b &&
	test_cmp built-a built-b &&
	test "$(readlink b/build/images/lab.qcow2)" = "$q" &&
	test "$(stat -c %a "$VMTAX_IMAGE_CACHE")" = 755
'
rm -rf "$VMTAX_IMAGE_CACHE"
test_done
