#!/bin/sh
# host: exclusive
# The preflight (orchestrator/engine/run-preflight.h) on this host: 'vmtax run
# configs/kbuild-ept-thp.ini --dry-run' (the seed's table: accel = kvm,
# 24 vCPUs, 15 GiB, the debian image, kbuild's packages on bare metal)
# names every requirement this host lacks in one run, each with its remedy,
# and exits 2; a run without --dry-run is refused the same way before it
# changes anything.  What is missing is found here independently of vmtax
# (cpuinfo, the online CPUs, meminfo, the images directory, dpkg-query), so
# the test holds on any host: on one with everything it expects exit 0.
. "$(dirname "$0")/lib-test.sh"

CONFIG=$TOP/configs/kbuild-ept-thp.ini
thp_before=$(thp_get enabled)
defrag_before=$(thp_get defrag)
journal_before=$(ls /var/lib/vmtax/host-journal 2>/dev/null || true)

# What this host lacks for the config, one line per requirement as the
# preflight words it (grep -E), in its table's order.
: >"$TRASH/expect"
grep -qwE 'vmx|svm' /proc/cpuinfo ||
	echo '^  - VT-x/AMD-V: no vmx or svm flag in /proc/cpuinfo.*, and \[guest\] accel = kvm: run on a host with hardware virtualization' >>"$TRASH/expect"
ncpus=$(getconf _NPROCESSORS_ONLN)
[ "$ncpus" -ge 24 ] ||
	echo "^  - CPUs: cell 'guest/paging=hw/host-thp=always/guest-thp=always' asks for 24 vCPUs, and this host has $ncpus CPUs online .*: run on a host with 24 CPUs or more, or give \\[guest\\] vcpus $ncpus or fewer\$" >>"$TRASH/expect"
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
[ "$avail_kb" -ge $((15 * 1024 * 1024)) ] ||
	echo "^  - memory: cell '.*' asks for a 15.0 GiB guest" >>"$TRASH/expect"
lacks() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
			printf '%s ' "$p"
	done
}
# vmtax's own answer to where the image is (a sanitized build in build/san
# shares build/images with the plain one)
if ! "$VMTAX" image path --kind debian disk >/dev/null 2>&1; then
	echo "^  - guest image: image = debian, but there is no built image \\('/.*/debian.qcow2'\\): run 'vmtax image build --kind debian' first\$" >>"$TRASH/expect"
	build_lacks=$(lacks debootstrap supermin qemu-utils)
	[ -z "$build_lacks" ] ||
		echo "^  - image build: building the debian image runs ${build_lacks% }, which this host lacks" >>"$TRASH/expect"
fi
wl_lacks=$(lacks $(sed -n 's/^packages = //p' "$TOP/configs/workloads/kbuild.ini"))
[ -z "$wl_lacks" ] ||
	echo "^  - workload packages: bare-metal cells run workload 'kbuild' on this host, which lacks packages it needs: ${wl_lacks% }: install them \\(apt-get install ${wl_lacks% }\\), or run guest cells only" >>"$TRASH/expect"
nmissing=$(wc -l <"$TRASH/expect")

test_expect_success 'what this host lacks for kbuild-ept-thp.ini, found without vmtax' '
	cat expect &&
	echo "$nmissing requirements missing" &&
	{ command -v dpkg-query >/dev/null || test "$nmissing" -ge 1; }
'

if [ "$nmissing" -gt 0 ]; then
	test_expect_success '--dry-run names every missing requirement at once, exit 2' '
		test_expect_code 2 "$VMTAX" run "$CONFIG" --dry-run >out 2>err &&
		cat err &&
		grep -c "^  - " err >count &&
		test "$(cat count)" = "$nmissing" &&
		grep -x "vmtax: preflight: $nmissing requirements\{0,1\} missing for $CONFIG:" err &&
		while read -r line; do
			grep -E "$line" err || exit 1
		done <expect &&
		test ! -s out
	'
	test_expect_success 'the missing lines are in the table order, one each' '
		grep "^  - " err | sed "s/^  - //; s/: .*//" >got-rows &&
		sed "s/^\^  - \([^:]*\):.*/\1/" expect >want-rows &&
		test_cmp want-rows got-rows
	'
	test_expect_success 'a real run is refused with the same list before it changes anything' '
		test_expect_code 2 "$VMTAX" run "$CONFIG" --out run 2>err-run &&
		grep "^  - " err-run >run-lines &&
		grep "^  - " err >dry-lines &&
		test_cmp dry-lines run-lines &&
		test ! -e run
	'
else
	test_expect_success 'this host has all kbuild-ept-thp.ini needs: --dry-run passes' '
		"$VMTAX" run "$CONFIG" --dry-run >out 2>err &&
		! grep "preflight:" err &&
		grep "^run .kbuild-ept-thp.: " out
	'
fi

# accel = auto where KVM is unusable: the paging cells are skipped, not
# refused, and the preflight says so before the run.
cat >"$TRASH/skips.ini" <<EOF
[run]
name = t0125-skips
[guest]
vcpus = 1
memory = 1G
[matrix]
where = guest
paging = hw, shadow
host_thp = always
[workload]
dir = $TOP/configs/workloads
name = randwalk
EOF
test_expect_success '!KVM_HW,TINY' 'paging cells that cannot run are listed as skipped' '
	"$VMTAX" run skips.ini --dry-run >out-skips 2>err-skips &&
	cat err-skips &&
	grep -x "vmtax: preflight: 1 requirement of some cells missing for skips.ini (the run skips them):" err-skips &&
	grep "^  - EPT/NPT paging: 4 cells (.guest/paging=hw/host-thp=always/guest-thp=always., ...) skipped: paging=hw needs KVM; this host runs guests under TCG" err-skips &&
	! grep "requirements* missing for" err-skips &&
	grep "^run .t0125-skips.: 4 cells" out-skips
'

# Guests larger than this host (issue 37): each row a dry run of the demo
# with a guest one CPU or 1 GiB past this host's, refused (exit 2) with
# both figures, the hugetlb-backed one with the pages its pool would grow
# by.  NAME CONFIG-SETS 'expected line (grep -E)'
total_gib=$(awk '/^MemTotal:/ { print int($2 / 1048576) + 1 }' /proc/meminfo)
cat >"$TRASH/too-big" <<EOF
vcpus	--set guest.vcpus=$((ncpus + 1))	^  - CPUs: cell 'guest/host-thp=always/guest-thp=always' asks for $((ncpus + 1)) vCPUs, and this host has $ncpus CPUs online .*: run on a host with $((ncpus + 1)) CPUs or more, or give \\[guest\\] vcpus $ncpus or fewer\$
memory	--set guest.memory=${total_gib}G	^  - memory: cell 'guest/host-thp=always/guest-thp=always' asks for a $total_gib.0 GiB guest, and this host has [0-9.]+ GiB of memory \\(MemTotal\\), [0-9.]+ GiB available \\(MemAvailable\\): run on a host with more memory, or lower \\[guest\\] memory\$
both	--set guest.vcpus=64 --set guest.memory=$((total_gib + 200))G	^  - (CPUs|memory): cell
hugetlb	--set matrix.backing=hugetlb-2M --set guest.memory=${total_gib}G	^  - memory: cell 'guest/host-thp=always/guest-thp=always/backing=hugetlb-2M' asks for a $total_gib.0 GiB guest backed by 2M hugepages \\(the run adds $((total_gib * 512)) of them to the pool, from available memory\\), and this host has
EOF
while IFS='	' read -r name sets want; do
	test_expect_success TINY "a guest larger than this host is refused: $name" '
		test_expect_code 2 "$VMTAX" run "$TOP/configs/demo.ini" --dry-run \
			$sets >out-$name 2>err-$name &&
		cat err-$name &&
		grep -E "^vmtax: preflight: [12] requirements? missing for " err-$name &&
		grep -E -- "$want" err-$name &&
		test ! -s out-$name
	'
done <"$TRASH/too-big"
test_expect_success TINY 'both at once: both named, with their figures' '
	grep -E "^  - CPUs: .* asks for 64 vCPUs, and this host has $ncpus CPUs online" err-both &&
	grep -E "^  - memory: .* asks for a $((total_gib + 200)).0 GiB guest" err-both
'

test_expect_success 'nothing changed on the host' '
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(thp_get defrag)" = "$defrag_before" &&
	test "$(ls /var/lib/vmtax/host-journal 2>/dev/null || true)" = "$journal_before" &&
	test ! -e runs &&
	no_vmtax_domains
'
test_done
