#!/bin/sh
# The command line's conventions (issue 37): 'vmtax help CMD', -V, the
# global --quiet and --verbose, and what they print.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

test_expect_success "'vmtax help CMD' prints what 'vmtax CMD --help' prints" '
	for c in $("$VMTAX" --complete commands); do
		"$VMTAX" help "$c" >help-$c &&
		"$VMTAX" "$c" --help >dash-$c &&
		test_cmp dash-$c help-$c &&
		grep -q "usage: vmtax $c" help-$c || exit 1
	done
'

test_expect_success "'vmtax help CMD SUB' is 'vmtax CMD SUB --help'" '
	"$VMTAX" help lab up >help &&
	"$VMTAX" lab up --help >dash &&
	test_cmp dash help &&
	grep -q "usage: vmtax lab up" help
'

test_expect_success "'vmtax help' alone is 'vmtax --help'" '
	"$VMTAX" help >help &&
	"$VMTAX" --help >dash &&
	test_cmp dash help &&
	grep -q "^commands:" help
'

test_expect_success "'vmtax help NOSUCH' is refused (exit 2)" '
	test_expect_code 2 "$VMTAX" help nosuch >out 2>err &&
	grep -q "'"'"'nosuch'"'"' is not a vmtax command" err &&
	test ! -s out
'

test_expect_success "-V is --version" '
	"$VMTAX" -V >short &&
	"$VMTAX" --version >long &&
	test_cmp long short &&
	grep -Eq "^vmtax [0-9]+\.[0-9]+" short
'

# A dry run that warns: the figures file of the estimate is a symbolic link
# (run-timing.c), which is refused with a warning, not an error.
test_expect_success TINY 'setup: a dry run that warns' '
	mkdir links &&
	ln -s /nonexistent links/timings.json &&
	VMTAX_TIMINGS_DIR=$PWD/links "$VMTAX" run "$TOP/configs/demo.ini" \
		--dry-run >plain.out 2>plain.err &&
	grep -q "warning: the run.s estimate" plain.err
'

test_expect_success TINY '--quiet: no warnings, no progress, the same output' '
	VMTAX_TIMINGS_DIR=$PWD/links "$VMTAX" --quiet run \
		"$TOP/configs/demo.ini" --dry-run >quiet.out 2>quiet.err &&
	test_cmp plain.out quiet.out &&
	test ! -s quiet.err &&
	VMTAX_TIMINGS_DIR=$PWD/links "$VMTAX" -q run \
		"$TOP/configs/demo.ini" --dry-run >q.out 2>q.err &&
	test_cmp plain.out q.out &&
	test ! -s q.err
'

test_expect_success '--quiet still prints errors' '
	test_expect_code 2 "$VMTAX" -q run nosuch.ini 2>err &&
	grep -q "error: cannot read .nosuch.ini." err
'

test_expect_success TINY '--verbose: the details too (the workload file)' '
	"$VMTAX" --verbose run "$TOP/configs/demo.ini" --dry-run \
		>v.out 2>v.err &&
	grep -q "workload .randwalk. from .*configs/workloads/randwalk.ini" v.err &&
	"$VMTAX" -v run "$TOP/configs/demo.ini" --dry-run >v.out 2>v.err &&
	grep -q "the run.s estimate: figures of earlier runs from" v.err &&
	"$VMTAX" run "$TOP/configs/demo.ini" --dry-run >n.out 2>n.err &&
	! grep -q "workload .randwalk. from" n.err
'

test_expect_success '--quiet with --verbose, or an unknown option, is refused (exit 2)' '
	test_expect_code 2 "$VMTAX" -q -v workloads >out 2>err &&
	grep -q "contradict" err &&
	test ! -s out &&
	test_expect_code 2 "$VMTAX" --nosuch workloads >out 2>err &&
	grep -q "^usage: vmtax" err
'

test_expect_success '--help lists the global options' '
	"$VMTAX" --help >help &&
	grep -q -- "-q, --quiet" help &&
	grep -q -- "-v, --verbose" help &&
	grep -q -- "-V, --version" help
'

test_expect_success TINY 'calibrate --dry-run: the A/A run'"'"'s cells, exit 0, no directory' '
	"$VMTAX" run "$TOP/configs/demo.ini" --dry-run >run.out &&
	"$VMTAX" calibrate "$TOP/configs/demo.ini" --out cal --dry-run \
		>cal.out 2>cal.err &&
	test ! -e cal &&
	n=$(grep -c "^  bare-metal/\|^  guest/" run.out) &&
	test "$(grep -c "/replica=a$" cal.out)" = "$n" &&
	test "$(grep -c "/replica=b$" cal.out)" = "$n" &&
	grep -q "^estimate: " cal.out &&
	"$VMTAX" calibrate "$TOP/configs/demo.ini" --dry-run >cal2.out &&
	test_cmp cal.out cal2.out
'

test_expect_success 'calibrate --dry-run: a missing requirement is listed, exit 2' '
	test_expect_code 2 "$VMTAX" calibrate "$TOP/configs/demo.ini" --dry-run \
		--set guest.kernel=/nonexistent/vmlinuz >out 2>err &&
	grep -q "^  - guest image: guest kernel ./nonexistent/vmlinuz. is missing" err
'

test_expect_success 'calibrate without --out or --dry-run is refused (exit 2)' '
	test_expect_code 2 "$VMTAX" calibrate "$TOP/configs/demo.ini" 2>err &&
	grep -q "^       vmtax calibrate CONFIG --dry-run" err
'

test_done
