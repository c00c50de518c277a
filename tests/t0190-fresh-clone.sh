#!/bin/sh
# Every command works after a plain 'make' (issue 21): a fresh 'git clone'
# of this tree, 'make' and nothing else, then each command's first step:
# 'vmtax lab run --help', the lab's image step ('vmtax lab run CONFIG
# --dry-run', which is 'vmtax run CONFIG --set run.executor=lab --dry-run':
# the config, its refusals and the lab image's inputs, nothing booted), the
# tiny image built on first use, and every shipped config's
# first step through 'vmtax run CONFIG --dry-run' (it starts, or it is
# refused with the reason and what to do).  Nothing boots and the host is
# not changed; the clone is of the committed HEAD.
. "$(dirname "$0")/lib-test.sh"
test_need GIT
# The guest kernel: this tree's kernel cache ('make deps' unpacks Debian's
# package into build/kernel, per tree), else a /boot kernel of the host's.
test_need KERNEL
test_need BUSYBOX

# A user's clone: readable by libvirt's QEMU (0755), not under $TRASH.
C=$(mktemp -d /tmp/vmtax-t0190-clone.XXXXXX) && chmod 0755 "$C" ||
	bail_out "cannot make a scratch directory"
trap 'rm -rf "$C"' EXIT
V=$C/vmtax/build/vmtax

test_expect_success 'git clone, then make: no other target' '
	git clone -q "$TOP" "$C/vmtax" &&
	test ! -e "$C/vmtax/build" &&
	(cd "$C/vmtax" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS -u B -u SAN \
		-u OPT make -j2 >"$TRASH/make.log" 2>&1) &&
	test -x "$V" &&
	test -x "$C/vmtax/build/bin/vmtax-agent" &&
	test -x "$C/vmtax/build/bin/vmtax-agent-test" &&
	test -x "$C/vmtax/build/bin/randwalk" &&
	test ! -e "$C/vmtax/build/images"
'

test_expect_success 'vmtax lab run --help' '
	"$V" lab run --help >out &&
	grep "^usage: vmtax lab run CONFIG" out &&
	grep -- "--dry-run" out
'

test_expect_success 'the lab image step: inputs there, image up to date or to build' '
	(cd "$C/vmtax" && "$V" lab run configs/lab-npt.ini --dry-run) >out 2>err &&
	cat out err &&
	grep "^run .lab-npt.: 10 cells x 5 samples of .forktouch., inside a lab host (executor = lab: TCG-emulated EPYC +svm +npt" out &&
	grep "^lab host: EPYC +svm +npt, 2 vCPUs, 3.0 GiB" out &&
	grep -E "image: lab: (up to date|would be built: recipe [0-9a-f]{16})" err &&
	test ! -e "$C/vmtax/runs"
'

test_expect_success 'without the agent test build the lab image step says so at once' '
	mv "$C/vmtax/build/bin/vmtax-agent-test" "$C/agent-test" &&
	rc=0 &&
	(cd "$C/vmtax" && "$V" image build --kind lab --check) 2>err || rc=$? &&
	mv "$C/agent-test" "$C/vmtax/build/bin/vmtax-agent-test" &&
	cat err &&
	test "$rc" = 1 &&
	grep "image: lab: no .*/build/bin/vmtax-agent-test. (run .make.)" err
'

# A plain make fetches no kernel: 'make deps' unpacks it into each tree's
# build/kernel.  Where this host has no /boot kernel, the clone borrows this
# tree's cache, as 'make deps' in the clone would fill it.
if ! ls /boot/vmlinuz-* 2>/dev/null | grep -q .; then
	mkdir -p "$C/vmtax/build" && ln -s "$TOP/build/kernel" "$C/vmtax/build/kernel"
fi

test_expect_success 'the first run builds the tiny image on first use' '
	(cd "$C/vmtax" && "$V" run configs/demo.ini --dry-run) >out 2>err &&
	cat out err &&
	grep "first use: building the tiny guest image" err &&
	grep "^run .demo.: 6 cells x 4 samples of .randwalk." out &&
	grep -E "^guest files: kernel $C/vmtax/build/images/pvh-[0-9a-f]{16}\.vmlinux \(the ELF of (/boot|/.*/build/kernel/boot)/vmlinuz-.*, booted through PVH\), initrd $C/vmtax/build/images/tiny-" out &&
	(cd "$C/vmtax" && "$V" image build --kind tiny) >paths 2>err &&
	grep "image: tiny: up to date" err &&
	test -s "$(cat paths)" &&
	test ! -e "$C/vmtax/runs"
'

# CONFIG STATUS 'expected output (grep -E)': the first step of each shipped
# config.  A fresh clone never has a debian image: the preflight names it
# (beside whatever else this machine lacks, t0125).  Where the outcome
# depends on this machine (a 4-vCPU guest needs 4 CPUs), either is
# accepted, each with its own line.
cat >"$TRASH/table" <<'EOF'
calib-small 0 ^run 'calib-small': 2 cells x 4 samples of 'randwalk'
demo 0 ^run 'demo': 6 cells x 4 samples of 'randwalk'
directmap-sparse 0 ^run 'directmap-sparse': 3 cells x 3 samples of 'sparse-touch'
directmap 2 ^  - guest image: image = debian, but there is no built image .*: run 'vmtax image build --kind debian' first$
hint-sweep 0 ^run 'hint-sweep': 4 cells x 3 samples of 'wss-sweep'
kbuild-ept-thp 2 ^  - guest image: image = debian, but there is no built image .*: run 'vmtax image build --kind debian' first$
kbuild-small 2 ^  - guest image: image = debian, but there is no built image .*: run 'vmtax image build --kind debian' first$
lab-ccbuild 2 ^configs/lab-ccbuild.ini: image = debian, but there is no built image .*; run 'vmtax image build --kind debian' first$
lab-npt 0 ^run 'lab-npt': 10 cells x 5 samples of .forktouch., inside a lab host
stream-thp 0 ^run 'stream-thp': 8 cells x 3 samples of 'stream'
thp-pathology 0 ^run 'thp-pathology': 4 cells x 3 samples of 'sparse-touch'
vcpus-scaling 0,2 ^run 'vcpus-scaling': 4 cells x 3 samples of 'randwalk-par'|^  - CPUs: cell '.*/vcpus=4' asks for 4 vCPUs, and this host has [123] CPUs online
EOF

test_expect_success 'the table names every shipped config' '
	(cd "$C/vmtax/configs" && ls *.ini) | sed "s/\.ini\$//" | sort >shipped &&
	cut -d" " -f1 "$TRASH/table" | sort >listed &&
	test_cmp shipped listed
'

while read -r name status want <&3; do
	cmd="run configs/$name.ini --dry-run"
	test_expect_success "first step of configs/$name.ini: $cmd" "
		rc=0 &&
		(cd \"\$C/vmtax\" && \"\$V\" $cmd) >out-$name 2>&1 || rc=\$? &&
		cat out-$name &&
		case ,$status, in *,\$rc,*) ;; *) false ;; esac &&
		grep -E \"\$(sed -n 's/^$name [^ ]* //p' \"\$TRASH/table\")\" out-$name
	"
done 3<"$TRASH/table"

test_expect_success 'the debian image step of directmap: the image would be built' '
	(cd "$C/vmtax" && "$V" image build --kind debian --check) 2>err &&
	cat err &&
	grep -E "image: debian: (up to date|would be built: recipe [0-9a-f]{16})" err
'

test_expect_success 'no run directory' '
	test ! -e "$C/vmtax/runs"
'

test_done
