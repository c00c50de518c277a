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
# Prerequisites: ROOT, LIBVIRT, KVM_HW (vmx or svm),
# CHROMIUM.  A skipped test prints why.

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
VMTAX=${VMTAX:-$BUILD/vmtax}
# The tiny image 'vmtax run' boots (image/guest-files.h), if built.
TINY=${TINY:-$("$VMTAX" image path initrd 2>/dev/null)}
export TOP BUILD VMTAX TINY
test_name=$(basename "$0" .sh)
TRASH=$(mktemp -d "/tmp/vmtax-$test_name.XXXXXX")
test_count=0 test_fail=0 test_skip=0

test_prereq() {
	case "$1" in
	ROOT) [ "$(id -u)" = 0 ] ;;
	LIBVIRT) virsh -c qemu:///system version >/dev/null 2>&1 ;;
	KVM_HW) grep -qwE 'vmx|svm' /proc/cpuinfo && [ -w /dev/kvm ] ;;
	CHROMIUM) command -v chromium >/dev/null 2>&1 ;;
	TINY) [ -n "$TINY" ] && [ -f "$TINY" ] ;;
	*) echo "unknown prerequisite $1" >&2; return 1 ;;
	esac
}

skip_all() {
	echo "1..0 # SKIP $test_name: $*"
	rm -rf "$TRASH"
	exit 0
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

test_expect_success() {
	# test_expect_success NAME BODY  (every line of BODY must succeed)
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
	# test_skip NAME REASON
	test_count=$((test_count + 1))
	test_skip=$((test_skip + 1))
	echo "ok $test_count - $1 # SKIP $2"
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
