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

test_done
