#!/bin/sh
# t0510-kbuild-guest: the kernel build in the full Debian guest.  Builds or
# reuses the debian image, boots it through libvirt (vmtax run, image =
# debian) and runs the kbuild workload with tinyconfig there: setup extracts
# linux-source on the guest's tmpfs and runs 'make tinyconfig', the sample
# is 'make clean; make -j2 $TARGET'.  One bare-metal and one guest cell,
# sized as configs/kbuild-small.ini ('make deps-workloads' installs the
# host's linux-source and toolchain).  Slow: see docs/guest-image.md for the figures
# (minutes under TCG).  Run by 'make check-slow'.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "debootstrap, libguestfs and vmtax run need root"
test_need LIBVIRT
command -v debootstrap >/dev/null || skip_all "debootstrap is not installed"

thp=$(thp_get enabled)

test_expect_success 'the debian image is built or reused' '
	(cd "$TOP" && "$VMTAX" image build --kind debian) >paths
'

test_expect_success 'kbuild with tinyconfig runs on bare metal and in the debian guest' '
	"$VMTAX" run "$TOP/configs/kbuild-small.ini" --out run \
		--set matrix.paging=tcg --set run.baseline=bare-metal/host-thp=$thp \
		--set matrix.host_thp=$thp --set matrix.guest_thp=always \
		>out 2>err || { tail -30 err; false; }
'

test_expect_success 'both cells are ok, each with a build time' '
	jq -e ".cells | length == 2" run/results.json &&
	jq -e "[.cells[] | .status == \"ok\" and .samples[0].metric > 1] | all" run/results.json &&
	jq -e "[.cells[].env.where] == [\"bare-metal\", \"guest\"]" run/results.json &&
	jq -r ".cells[] | \"\(.id): \(.samples[0].metric) s\"" run/results.json
'

test_expect_success 'the guest cell ran the Debian kernel under the requested guest THP' '
	jq -e ".cells[1].observed.guest_thp == \"always\"" run/results.json &&
	jq -r ".cells[1].observed.guest_image" run/results.json >image &&
	grep -q "^debian-[0-9a-f]\{16\}\.qcow2$" image &&
	test "$(basename "$(sed -n 1p paths)")" = "$(cat image)" &&
	jq -r ".cells[1].observed.guest_kernel" run/results.json | grep -q "amd64"
'

test_expect_success 'host THP is as it was' '
	test "$(thp_get enabled)" = "$thp"
'

test_done
