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
# unless the test failed.  Prerequisites: ROOT, LIBVIRT, KVM_HW (vmx or svm),
# CHROMIUM.  A skipped test prints why.

TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
VMTAX=${VMTAX:-$BUILD/vmtax}
# The tiny image 'vmtax run' boots (guest-image/guest-files.h), if built.
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

test_expect_success() {
	test_count=$((test_count + 1))
	if (cd "$TRASH" && eval "set -e; $2") >"$TRASH/.out.$test_count" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_fail=$((test_fail + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#	/' "$TRASH/.out.$test_count"
	fi
}

test_expect_failure_code() {
	# test_expect_failure_code NAME CODE 'cmd'  (cmd must exit with CODE)
	test_count=$((test_count + 1))
	(cd "$TRASH" && eval "$3") >"$TRASH/.out.$test_count" 2>&1
	rc=$?
	if [ "$rc" = "$2" ]; then
		echo "ok $test_count - $1"
	else
		test_fail=$((test_fail + 1))
		echo "not ok $test_count - $1 (exit $rc, wanted $2)"
		sed 's/^/#	/' "$TRASH/.out.$test_count"
	fi
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
