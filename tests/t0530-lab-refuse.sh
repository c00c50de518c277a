#!/bin/sh
# host: exclusive, waits
# 'vmtax lab run' refuses a config that asks for what the lab host cannot
# do, before anything boots: file:line:, exit status 2, no run directory,
# no domain, this host untouched.  (The lab itself boots in
# tests/slow/t0540-lab-npt.sh.)
. "$(dirname "$0")/lib-test.sh"

thp_before=$(thp_get enabled)
virsh -q list --name 2>/dev/null | sort >"$TRASH/domains.before"
w="[workload]
dir = $TOP/configs/workloads
name = randwalk"

bad() {
	# bad NAME 'expected message (grep -E)' CONFIG-TEXT
	printf '%s\n' "$3" >"$TRASH/$1.ini"
	test_expect_success "refused: $1" "
		test_expect_code 2 \"\$VMTAX\" lab run $1.ini --out out-$1 2>err-$1 &&
		cat err-$1 &&
		grep -E '$2' err-$1 &&
		test ! -e out-$1 &&
		test_expect_code 2 \"\$VMTAX\" run $1.ini --set run.executor=lab --out out-$1 2>err2-$1 &&
		grep -E '$2' err2-$1 &&
		test ! -e out-$1
	"
}

bad ept-on-amd '^ept-on-amd.ini:2: ept is Intel.s kvm_intel parameter, and a lab host is AMD \(EPYC with svm\): use .npt = on, off.' "[matrix]
ept = on, off
$w"
bad no-pdpe1gb '^no-pdpe1gb.ini:4: cell .guest/.*backing=hugetlb-1G.* asks for 1G hugetlb backing, but the lab CPU \(EPYC \+svm \+npt -pdpe1gb\) has no pdpe1gb' "[lab]
cpu_features = +svm +npt -pdpe1gb
[matrix]
backing = hugetlb-1G
$w"
bad guest-too-big '^guest-too-big.ini:4: cell .guest/.* asks for a 4.0 GiB guest, which does not fit in a 4.0 GiB lab host' "[lab]
memory = 4G
[guest]
memory = 2G, 4G
$w"
bad guest-vcpus '^guest-vcpus.ini:4: cell .guest/.* asks for 4 vCPUs, more than the lab host.s 2' "[lab]
vcpus = 2
[guest]
vcpus = 4
$w"
bad lab-too-big '^lab-too-big.ini:2: a 1024.0 GiB lab host does not fit in this host.s [0-9.]+ GiB of available memory' "[lab]
memory = 1T
$w"
bad lab-vcpus '^lab-vcpus.ini:2: 64 lab vCPUs, but this host has [0-9]+ CPUs online' "[lab]
vcpus = 64
$w"
bad no-svm '^no-svm.ini:2: a lab host needs .\+svm \+npt. \(AMD-V with nested paging\) to be a KVM host; got .\+svm.' "[lab]
cpu_features = +svm
$w"
bad no-such-cpu '^no-such-cpu.ini:2: bad value for .cpu.: .Skylake. is not one of: EPYC' "[lab]
cpu = Skylake
$w"

bad debian-kernel '^debian-kernel.ini:3: cell .guest/.* boots the kernel ./boot/vmlinuz-x., but a lab.s debian guests boot the kernel and initrd of the image it carries: set kernel = auto' "[guest]
image = debian
kernel = /boot/vmlinuz-x
$w"
bad debian-initrd '^debian-initrd.ini:3: cell .guest/.* boots the initrd ./boot/initrd-x., but a lab.s debian guests boot the kernel and initrd of the image it carries: set initrd = auto' "[guest]
image = debian
initrd = /boot/initrd-x
$w"

bad no-such-executor '^no-such-executor.ini:2: bad value for .executor.: .cloud. is not one of: local, lab, fleet' "[run]
executor = cloud
$w"

test_expect_success 'executor = lab in the config: vmtax run checks the lab, and runs nothing with --dry-run' '
	printf "[run]\nexecutor = lab\nrepeat = 1\n[lab]\nmemory = 2G\n[matrix]\nwhere = bare-metal\n%s\n" "$w" >ok.ini &&
	"$VMTAX" run ok.ini --dry-run >out 2>err &&
	grep "^run .run.: 2 cells x 1 samples of .randwalk., inside a lab host (executor = lab: TCG-emulated EPYC +svm +npt" out &&
	grep -E "^lab host: EPYC \+svm \+npt, 2 vCPUs, 2.0 GiB" out &&
	grep -E "image: lab: (up to date|would be built)" err &&
	test ! -d runs
'

# A debian image for the lab's guests: this host's, found before anything
# boots (a stand-in here: debian_layout), and carried in (docs/lab.md,
# "Debian inner guests"; it boots in tests/slow/t0548-lab-debian.sh).
printf "[run]\nexecutor = lab\nrepeat = 1\n[lab]\nmemory = 2G\n[guest]\nimage = debian\nmemory = 768M\n[matrix]\nwhere = guest\nguest_thp = never\n%s\n" "$w" >"$TRASH/deb.ini"

test_expect_success 'image = debian: the dry run names the debian image the lab carries' '
	debian_layout dl &&
	dl/vmtax run deb.ini --dry-run >out 2>err &&
	grep -F "lab carries: '\''$TRASH/dl/images/$DEBIAN_STANDIN.qcow2'\'', read-only: the debian image its guests boot" out &&
	grep "^run .run.: 2 cells x 1 samples of .randwalk., inside a lab host" out &&
	test ! -d runs &&
	"$VMTAX" run ok.ini --dry-run >out2 &&
	! grep "lab carries" out2
'

test_expect_success 'image = debian with no debian image built: refused, naming the build' '
	debian_layout nodeb &&
	rm nodeb/images/debian* &&
	test_expect_code 2 nodeb/vmtax run deb.ini --out out-nodeb 2>err &&
	grep -F "deb.ini: image = debian, but there is no built image ('\''$TRASH/nodeb/images/debian.qcow2'\''); run '\''vmtax image build --kind debian'\'' first" err &&
	test ! -e out-nodeb
'

test_expect_success 'the [lab] keys are in run --help' '
	"$VMTAX" run --help >help &&
	sed -n "/^  \[lab\]/,/^  \[/p" help >lab &&
	grep -E "^ +cpu +choice .*\(EPYC\)" lab &&
	grep -E "^ +cpu_features .*default: \+svm \+npt" lab &&
	grep -E "^ +vcpus +integer" lab && grep -E "^ +memory +size" lab
'

test_expect_success 'lab --help and lab run --help describe it; a bad call is usage' '
	"$VMTAX" lab --help >h1 && grep "vmtax lab run CONFIG" h1 &&
	"$VMTAX" lab run --help >h2 && grep "emulated hardware" h2 &&
	test_expect_code 2 "$VMTAX" lab 2>e1 && grep "usage: vmtax lab run" e1 &&
	test_expect_code 2 "$VMTAX" lab run 2>e2 && grep "usage:" e2
'

test_expect_success '--resume of a directory that holds no run' '
	mkdir notalab &&
	test_expect_code 2 "$VMTAX" lab run --resume notalab 2>err &&
	grep "cannot open .*notalab/results.json" err
'

test_expect_success 'no domain started, host THP as before' '
	test "$(thp_get enabled)" = "$thp_before" &&
	virsh -q list --name 2>/dev/null | sort >domains.after &&
	! comm -13 domains.before domains.after | grep "^vmtax-lab"
'

test_done
