# tests/lib-test.sh - a small shell test library in the manner of git's t/.
#
#   . "$(dirname "$0")/lib-test.sh"
#   test_prereq LIBVIRT || skip_all "libvirtd is not reachable"
#   test_expect_success 'name' '
#           cmd1 &&
#           cmd2
#   '
#   test_done
#
# Environment: VMTAX (the vmtax binary), TINY (the tiny guest initramfs
# vmtax run boots: 'vmtax image path initrd'),
# TOP (the source tree), BUILD (build/ with bin/ for agent and workloads).
# Each test file runs in its own scratch directory $TRASH, removed at the end
# unless the test failed.  A body runs in a subshell under set -e, so any
# failing line fails the test; chain its lines with && all the same
# (tests/chainlint.py checks), since set -e is off inside if, while, && and ||.
# TEST_TIMES=1 prints each test's seconds after it ("# 12 s").
#
# Prerequisites.  A test names what it needs of the host, and every skip
# names the prerequisite it is for, with the reason:
#   test_need PREREQS [REASON]   the file needs them: where one is missing
#                                it is skipped ("1..0 # SKIP"), or, after
#                                tests ran, the rest of it is
#   test_expect_success PREREQS NAME BODY, test_expect_failure_code
#   PREREQS NAME CODE BODY       a test skipped where one is missing
#   test_skip PREREQS NAME [REASON]  a test the file chose to skip
#   test_lazy_prereq NAME REASON CHECK  a prerequisite of the file's own:
#                                CHECK (eval'd in a subshell) succeeds
#                                where the host has it
#   test_prereq NAME             the host has NAME (status 0)
#   skip_all REASON              a skip for no prerequisite: passes here,
#                                fails under CI=true
#   bail_out REASON              the file cannot set up: it fails
# PREREQS is NAME[,NAME...]; !NAME is met where the host lacks NAME.  The
# names (test_prereq_ below): ROOT, LIBVIRT, KVM_HW (vmx or svm), CHROMIUM,
# TINY, KERNEL (a guest kernel, as 'vmtax image path vmlinuz' finds it),
# VMTAX, AGENT, AGENT_TEST, THP, JQ, PYTHON3, BASH, FLOCK, BUSYBOX, GIT.
# A skip prints its reason and "(missing NAME)", or "(no prerequisite)";
# tests/run-shell-tests.sh lists each in its summary.  Under CI=true a skip
# is accounted for only when it names prerequisites the host lacks: one
# for no prerequisite, or for ones the host has, fails its file.

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
VMTAX=${VMTAX:-$BUILD/vmtax}
# The tiny image 'vmtax run' boots (guest-image/build/guest-files.h), if built.
TINY=${TINY:-$("$VMTAX" image path initrd 2>/dev/null)}
export TOP BUILD VMTAX TINY
test_name=$(basename "$0" .sh)
TRASH=$(mktemp -d "/tmp/vmtax-$test_name.XXXXXX")
# A run keeps its figures for the next estimate (docs/estimate.md): a
# test's runs keep theirs in its scratch directory, never in the host's
# cache, where a test's small workloads would stand for real ones.
VMTAX_TIMINGS_DIR=$TRASH/timings
export VMTAX_TIMINGS_DIR
test_count=0 test_fail=0 test_skip=0

# test_prereq_ NAME: the host has NAME (status 0); the reason a test
# needing it is skipped where it does not, in $prereq_why_.  One row each.
test_prereq_() {
	case "$1" in
	ROOT) prereq_why_="needs root"
		[ "$(id -u)" = 0 ] ;;
	LIBVIRT) prereq_why_="libvirtd is not reachable (make deps starts it)"
		virsh -c qemu:///system version >/dev/null 2>&1 ;;
	KVM_HW) prereq_why_="no VT-x/AMD-V (no vmx or svm in /proc/cpuinfo, or /dev/kvm is not writable)"
		grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ] ;;
	CHROMIUM) prereq_why_="chromium is not installed (make deps-check)"
		command -v chromium >/dev/null 2>&1 ;;
	TINY) prereq_why_="no tiny image (make image-tiny)"
		[ -n "$TINY" ] && [ -f "$TINY" ] ;;
	KERNEL) prereq_why_="no guest kernel: '$VMTAX image path vmlinuz' names none (make deps)"
		test_kernel_=$("$VMTAX" image path vmlinuz 2>/dev/null) &&
			[ -r "$test_kernel_" ] ;;
	VMTAX) prereq_why_="no vmtax binary at $VMTAX (make)"
		[ -x "$VMTAX" ] ;;
	AGENT) prereq_why_="no $BUILD/bin/vmtax-agent (make tools)"
		[ -x "$BUILD/bin/vmtax-agent" ] ;;
	AGENT_TEST) prereq_why_="no $BUILD/bin/vmtax-agent-test (make build/bin/vmtax-agent-test)"
		[ -x "$BUILD/bin/vmtax-agent-test" ] ;;
	THP) prereq_why_="this kernel has no THP"
		grep -q always /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ;;
	JQ) prereq_why_="no jq (make deps-check)"
		command -v jq >/dev/null 2>&1 ;;
	PYTHON3) prereq_why_="no python3 (make deps-check)"
		command -v python3 >/dev/null 2>&1 ;;
	BASH) prereq_why_="no bash"
		command -v bash >/dev/null 2>&1 ;;
	FLOCK) prereq_why_="no flock"
		command -v flock >/dev/null 2>&1 ;;
	BUSYBOX) prereq_why_="no /bin/busybox (make deps)"
		[ -x /bin/busybox ] ;;
	GIT) prereq_why_="git is not installed, or $TOP is not a git tree"
		git -C "$TOP" rev-parse HEAD >/dev/null 2>&1 ;;
	*[!A-Z0-9_]* | '') bail_out "bad prerequisite name '$1'" ;;
	*) eval "test_lazy_=\${prereq_check_$1-}; prereq_why_=\${prereq_why_$1-}"
		[ -n "$test_lazy_" ] || bail_out "unknown prerequisite $1"
		(cd "$TRASH" && eval "$test_lazy_") >/dev/null 2>&1 ;;
	esac
}

# test_prereq NAME: the host has NAME (!NAME: it lacks it).  An unknown
# name fails the file (a misspelt one would otherwise skip for ever).
test_prereq() {
	case "$1" in
	!*) if test_prereq_ "${1#!}"; then
			prereq_why_="this host has ${1#!}"
			return 1
		fi
		return 0 ;;
	*) test_prereq_ "$1" ;;
	esac
}

# test_lazy_prereq NAME REASON CHECK: NAME is met where CHECK succeeds.
test_lazy_prereq() {
	case "$1" in
	*[!A-Z0-9_]* | '') bail_out "bad prerequisite name '$1'" ;;
	esac
	eval "prereq_check_$1=\$3 prereq_why_$1=\$2"
}

# test_missing_ PREREQS: status 0 when the host has each; else the missing
# ones in $missing_ ("A,B") and their reasons in $missing_why_.
test_missing_() {
	missing_= missing_why_=
	test_ifs_=$IFS
	IFS=,
	set -- $1
	IFS=$test_ifs_
	for test_p_; do
		test_prereq "$test_p_" && continue
		missing_=${missing_:+$missing_,}$test_p_
		missing_why_=${missing_why_:+$missing_why_; }$prereq_why_
	done
	[ -z "$missing_" ]
}

# test_unaccounted_ PREREQS: under CI=true, the reason a skip for PREREQS
# must fail, in $unaccounted_ (status 0); status 1 when it may pass.
test_unaccounted_() {
	[ "${CI:-}" = true ] || return 1
	if [ -z "$1" ]; then
		unaccounted_="it names no prerequisite"
	elif ! test_missing_ "$1"; then
		return 1
	else
		unaccounted_="the host meets $1"
	fi
	unaccounted_="$unaccounted_: under CI=true a skip must be for a prerequisite the host lacks"
}

# "(missing A,B)" or "(no prerequisite)"
test_for_() { if [ -n "$1" ]; then echo "(missing $1)"; else echo "(no prerequisite)"; fi; }

# test_skip_file_ PREREQS REASON: skip the file, or the rest of it after
# tests ran; under CI=true a skip not accounted for fails instead.
test_skip_file_() {
	if test_unaccounted_ "$1"; then
		echo "Bail out! $test_name skipped: $2 $(test_for_ "$1"), but $unaccounted_"
		rm -rf "$TRASH"
		exit 1
	fi
	if [ "$test_count" = 0 ]; then
		echo "1..0 # SKIP $test_name: $2 $(test_for_ "$1")"
		rm -rf "$TRASH"
		exit 0
	fi
	test_skip "$1" "the rest of $test_name" "$2"
	test_done
}

# test_need PREREQS [REASON]: the file, from here on, needs PREREQS.
test_need() {
	test_missing_ "$1" && return 0
	test_skip_file_ "$missing_" "${2:-$missing_why_}"
}

# skip_all REASON: skip the file for no prerequisite (fails under CI=true).
skip_all() {
	test_skip_file_ "" "$*"
}

# bail_out REASON: the file cannot set itself up: it fails.
bail_out() {
	echo "Bail out! $test_name: $*"
	rm -rf "$TRASH"
	exit 1
}

# test_run_ N BODY: run BODY in a subshell in $TRASH under 'set -e', its
# output in $TRASH/.out.N; set test_rc.  The shell ignores set -e in an if,
# while or until condition, after !, and in any but the last command of an
# && or || list, and in everything called from there, subshells included: so
# the subshell's status is taken here, outside all of those, and a test called
# from such a place is refused rather than run with set -e silently off.
test_run_() {
	(set -e; false; true) 2>/dev/null
	if [ $? = 0 ]; then
		echo "test called inside if, while, ! or a non-final && or ||: set -e would be ignored" \
			>"$TRASH/.out.$1"
		test_rc=125
		return
	fi
	test_t0_=$(date +%s)
	(
		cd "$TRASH" || exit 125
		set -e
		eval "$2"
	) >"$TRASH/.out.$1" 2>&1
	test_rc=$?
	test_secs_=$(($(date +%s) - test_t0_))
}

# TEST_TIMES=1: each test's seconds on a line of its own after it.
test_ok_() {
	echo "ok $test_count - $1"
	[ -z "${TEST_TIMES:-}" ] || echo "# ${test_secs_:-0} s"
}
test_not_ok_() {
	test_fail=$((test_fail + 1))
	echo "not ok $test_count - $1"
	sed 's/^/#	/' "$TRASH/.out.$test_count"
}

# test_runs_ PREREQS NAME: the host has PREREQS; else NAME is skipped.
test_runs_() {
	test_missing_ "$1" && return 0
	test_skip "$missing_" "$2" "$missing_why_"
	return 1
}

test_expect_success() {
	# test_expect_success [PREREQS] NAME BODY  (every line of BODY must
	# succeed; skipped where the host lacks one of PREREQS)
	if [ $# = 3 ]; then
		test_runs_ "$1" "$2" || return 0
		shift
	fi
	test_count=$((test_count + 1))
	test_run_ $test_count "$2"
	if [ "$test_rc" = 0 ]; then
		test_ok_ "$1"
	else
		test_not_ok_ "$1 (exit $test_rc)"
	fi
}

test_expect_failure_code() {
	# test_expect_failure_code NAME CODE BODY  (BODY's last line is the
	# command whose exit code must be CODE; every line before it must
	# succeed: an earlier line that fails, even with CODE, fails the test)
	# With PREREQS first, skipped where the host lacks one.
	if [ $# = 4 ]; then
		test_runs_ "$1" "$2" || return 0
		shift
	fi
	test_count=$((test_count + 1))
	_tefc_body=$(printf '%s\n' "$3" | sed -e :a -e '/^[[:space:]]*$/{$d;N;ba' -e '}')
	_tefc_last=$(printf '%s\n' "$_tefc_body" | tail -n 1)
	_tefc_first=$(printf '%s\n' "$_tefc_body" | sed '$d' |
		sed '$s/[[:space:]]*&&[[:space:]]*$//')
	case $_tefc_first in
	*\\) test_run_ $test_count "echo 'the last line continues the line before it' >&2; exit 125" ;;
	*) test_run_ $test_count "
		$_tefc_first
		set +e
		$_tefc_last
		echo \$? >\"\$TRASH/.code.$test_count\"
	" ;;
	esac
	if [ ! -f "$TRASH/.code.$test_count" ]; then
		test_not_ok_ "$1 (an earlier line failed: exit $test_rc)"
	elif [ "$(cat "$TRASH/.code.$test_count")" = "$2" ]; then
		test_ok_ "$1"
	else
		test_not_ok_ "$1 (exit $(cat "$TRASH/.code.$test_count"), wanted $2)"
	fi
}

test_expect_code() {
	# test_expect_code CODE CMD ARG...  (inside a body: CMD must exit with
	# CODE; works whether or not set -e is in force)
	_tec_want=$1
	shift
	_tec_got=0
	"$@" || _tec_got=$?
	[ "$_tec_got" = "$_tec_want" ] && return 0
	echo "test_expect_code: '$*' exited $_tec_got, wanted $_tec_want" >&2
	return 1
}

# test_cmp WANT GOT: the files are the same, or the diff is shown.
test_cmp() {
	diff -u "$1" "$2"
}

test_skip() {
	# test_skip PREREQS NAME [REASON]  (PREREQS '' for none: fails under
	# CI=true, as does a skip for PREREQS the host has)
	test_count=$((test_count + 1))
	test_skip_why_=${3:-}
	if [ -z "$test_skip_why_" ] && ! test_missing_ "$1"; then
		test_skip_why_=$missing_why_
	fi
	if test_unaccounted_ "$1"; then
		test_fail=$((test_fail + 1))
		echo "not ok $test_count - $2 # skipped: ${test_skip_why_:-no reason} $(test_for_ "$1"), but $unaccounted_"
		return 0
	fi
	test_skip=$((test_skip + 1))
	echo "ok $test_count - $2 # SKIP ${test_skip_why_:-no reason} $(test_for_ "$1")"
}

test_done() {
	echo "# $test_name: $test_count tests, $test_fail failed, $test_skip skipped"
	if [ "$test_fail" = 0 ]; then
		rm -rf "$TRASH"
		exit 0
	fi
	echo "# scratch left in $TRASH"
	exit 1
}

# Host hygiene helpers used by many tests.
thp_get() { sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/"${1:-enabled}"; }
no_vmtax_domains() { ! virsh -c qemu:///system list --name 2>/dev/null | grep -q '^vmtax-'; }
# fake_ssh_on_path TOOL: tests/tools/TOOL as ssh and scp, first on PATH
fake_ssh_on_path() {
	mkdir -p "$TRASH/bin" &&
	ln -s "$TOP/tests/tools/$1" "$TRASH/bin/ssh" &&
	ln -s "$TOP/tests/tools/$1" "$TRASH/bin/scp" &&
	PATH=$TRASH/bin:$PATH &&
	export PATH
}
# debian_layout DIR: DIR/vmtax, a copy of $VMTAX, with its bin directory
# (links to $BUILD/bin's files), its kernel cache (a link to $BUILD's), the
# tree's guest-image/ and configs/ (links: lib/layout.h's T is DIR) and,
# in DIR/images, a stand-in for a built debian image: a small qcow2, a
# kernel and an initrd, named as 'vmtax image build --kind debian' names
# them (DEBIAN_STANDIN).  For checks that find the image and boot nothing.
DEBIAN_STANDIN=debian-0123456789abcdef
debian_layout() {
	mkdir -p "$1/bin" "$1/images" &&
	cp "$VMTAX" "$1/vmtax" &&
	for f in "$BUILD"/bin/*; do ln -s "$f" "$1/bin/" || return 1; done &&
	{ ! test -d "$BUILD/kernel" || ln -s "$BUILD/kernel" "$1/kernel"; } &&
	ln -s "$TOP/guest-image" "$1/guest-image" && ln -s "$TOP/configs" "$1/configs" &&
	qemu-img create -q -f qcow2 "$1/images/$DEBIAN_STANDIN.qcow2" 64M &&
	echo kernel >"$1/images/$DEBIAN_STANDIN.vmlinuz" &&
	echo initrd >"$1/images/$DEBIAN_STANDIN.initrd" &&
	for e in qcow2 vmlinuz initrd; do
		ln -s "$DEBIAN_STANDIN.$e" "$1/images/debian.$e" || return 1
	done
}
