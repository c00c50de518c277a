#!/bin/sh
# host: exclusive, waits
# Bad input is refused with file:line:, exit status 2, and no host change.
. "$(dirname "$0")/lib-test.sh"

thp_before=$(thp_get enabled)
w="[workload]
dir = $TOP/configs/workloads
name = randwalk"

bad() {
	# bad NAME 'expected message (grep -E)' CONFIG-TEXT
	printf '%s\n' "$3" >"$TRASH/$1.ini"
	test_expect_success "refused: $1" "
		test_expect_code 2 \"\$VMTAX\" run $1.ini --out out-$1 2>err-$1 &&
		grep -E '$2' err-$1 &&
		test ! -e out-$1/results.json
	"
}

bad unknown-key '^unknown-key.ini:2: unknown key .repat. in \[run\] \(did you mean .repeat.\?\)' "[run]
repat = 3
$w"
bad bad-int '^bad-int.ini:2: bad value for .repeat.: .lots. is not an integer$' "[run]
repeat = lots
$w"
bad vcpus-range '^vcpus-range.ini:2: bad value for .vcpus.: 100000 is out of range' "[guest]
vcpus = 100000
$w"
bad memory-range '^memory-range.ini:2: bad value for .memory.: 64M is out of range' "[guest]
memory = 64M
$w"
bad empty-axis '^empty-axis.ini:2: bad value for .host_thp.: empty value \(give at least one\)$' "[matrix]
host_thp =
$w"
bad unknown-workload '^unknown-workload.ini:3: unknown workload .nosuch. \(no .*/nosuch.ini.\)' "[workload]
dir = $TOP/configs/workloads
name = nosuch"
bad dup-section '^dup-section.ini:3: section \[run\] appears twice' "[run]
name = a
[run]
$w"
bad bad-name '^bad-name.ini:2: bad run name' "[run]
name = x\"<&y
$w"
bad list-element '^list-element.ini:2: bad value for .vcpus.: 0 is out of range' "[guest]
vcpus = 1, 0
$w"
bad list-quote '^list-quote.ini:2: bad value for .cmdline.: unterminated quote' "[guest]
cmdline = nogbpages, \"mem=4G
$w"
bad host-knob '^host-knob.ini:2: unknown host knob .thp.defarg. in \[host\] \(did you mean .thp.defrag.\?\)' "[host]
thp.defarg = always, never
$w"
bad dup-ids '^dup-ids.ini: two cells have the id .guest/host-thp=always/guest-thp=always/kernel=vmlinuz.' "[guest]
kernel = /a/vmlinuz, /b/vmlinuz
$w"
bad missing-kernel '^  - guest image: guest kernel ./nonexistent. is missing: give \[guest\] kernel a file that is there$' "[guest]
kernel = /nonexistent
$w"
bad uri-ext '^uri-ext.ini:2: refusing libvirt URI .qemu\+ext:///system\?command=/tmp/x.: transport .ext. makes libvirt run an external command \(as root, here\)$' "[guest]
uri = qemu+ext:///system?command=/tmp/x
$w"
bad uri-socket '^uri-socket.ini:2: refusing libvirt URI .qemu\+unix:///system\?socket=/tmp/s.: parameter .socket=. points libvirt at another socket' "[guest]
uri = qemu+unix:///system?socket=/tmp/s
$w"
bad unknown-param '^unknown-param.ini:4: workload .randwalk. has no parameter .NOPE.' "$w
NOPE = 1"

# A workload of one's own: a package name that is not one is refused at
# file:line; a package this host lacks stops bare-metal cells before anything
# runs (not minutes into a setup), and says how to go on.
mkdir -p "$TRASH/wl"
printf '[workload]\nrun = true\npackages = bash, Not_A_Package\n' >"$TRASH/wl/badpkg.ini"
printf '[workload]\nrun = true\npackages = bash, vmtax-no-such-package coreutils\n' >"$TRASH/wl/lackpkg.ini"
bad bad-package '/badpkg.ini:3: packages: .Not_A_Package. is not a Debian package name' "[workload]
dir = $TRASH/wl
name = badpkg"
command -v dpkg-query >/dev/null && bad lacking-package "^  - workload packages: bare-metal cells run workload .lackpkg. on this host, which lacks packages it needs: vmtax-no-such-package: " "[workload]
dir = $TRASH/wl
name = lackpkg"
command -v dpkg-query >/dev/null && test_expect_success 'the lacking package is named with its way out, in the preflight list' '
	grep -x "vmtax: preflight: 1 requirement missing for lacking-package.ini:" err-lacking-package &&
	grep "apt-get install vmtax-no-such-package), or run guest cells only (--set matrix.where=guest --set run.baseline=)" err-lacking-package
'

printf '[run]\nname = \377\376\n' >"$TRASH/not-utf8.ini"
test_expect_success 'refused: a file that is not UTF-8' '
	test_expect_code 2 "$VMTAX" run not-utf8.ini 2>err &&
	grep "not UTF-8" err
'
test_expect_success 'refused: a 100 MB file' '
	head -c 100000000 /dev/zero | tr "\0" ";" >big.ini &&
	test_expect_code 2 "$VMTAX" run big.ini 2>err &&
	grep "too large" err
'
test_expect_success 'unknown command and missing argument are usage errors' '
	test_expect_code 2 "$VMTAX" frobnicate 2>/dev/null &&
	test_expect_code 2 "$VMTAX" run 2>/dev/null
'
test_expect_success 'every command has --help' '
	for c in run report compare host workloads; do
		"$VMTAX" $c --help >help-$c || exit 1
		grep -qi usage help-$c || exit 1
	done
'
test_expect_success 'run --help names the knob forms and that lists make axes' '
	"$VMTAX" run --help >help-keys &&
	grep -q "^  \[host\]" help-keys &&
	grep -q "^    thp.defrag  *string,\.\." help-keys &&
	grep -q "^    sysctl.A.B  *string,\.\." help-keys &&
	grep -q "^    vcpus  *integer,\.\." help-keys &&
	grep -q "makes that setting an axis" help-keys
'
test_expect_success 'host THP untouched by refused runs' '
	test "$(thp_get enabled)" = "$thp_before"
'
bad bad-order '^bad-order.ini:2: bad value for .order.: .random.' "[run]
order = random
$w"
bad boots-range '^boots-range.ini:2: bad value for .boots.: -1 is out of range' "[run]
boots = -1
$w"
bad boots-repeat '^boots-repeat.ini:[0-9]+: boots = 5 needs at least as many samples \(repeat = 3\)' "[run]
boots = 5
$w"
bad replicas-cells '^replicas-cells.ini:[0-9]+: replicas = 2 needs order = interleaved' "[run]
order = cells
replicas = 2
$w"
bad replicas-range '^replicas-range.ini:2: bad value for .replicas.: 3 is out of range' "[run]
replicas = 3
$w"
bad fleet-allow-unlike '^fleet-allow-unlike.ini:4: bad value for .allow_unlike.: .maybe. is not a boolean \(yes/no\)$' "[fleet]
hosts = alpha, beta
mode = split
allow_unlike = maybe
$w"
test_done
