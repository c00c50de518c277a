#!/bin/sh
# Config lines longer than inih's buffer (Debian's libinih: 200 bytes): a
# 'key = value' line or a comment of any length is read whole; any other
# line too long is refused as FILE:LINE:, never cut short.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

# config VALUES [EXTRA-LINE]: a bare-metal config whose READS is VALUES
config() {
	printf '%s\n' "[run]" "name = long" "repeat = 1" "" \
		"[matrix]" "where = bare-metal" "host_thp = always" "" \
		"[workload]" "dir = $TOP/configs/workloads" "name = randwalk" \
		"SIZE_MIB = 1" "READS = $1" ${2:+"$2"}
}

test_expect_success 'setup: a list of 100 values on a line of 500+ characters' '
	vals=$(seq -s ", " 1000 1099) &&
	config "$vals ; an inline comment after the list" >long.ini &&
	n=$(sed -n "s/^READS = //p" long.ini | wc -c) &&
	test "$n" -gt 500
'

test_expect_success TINY 'the long line is read whole: 100 cells, the comment cut' '
	"$VMTAX" run long.ini --dry-run >out 2>err &&
	test "$(grep -c "^  bare-metal/.*/READS=" out)" = 100 &&
	grep -q "^  bare-metal/host-thp=always/READS=1000$" out &&
	grep -q "^  bare-metal/host-thp=always/READS=1099$" out &&
	! grep -q comment out
'

test_expect_success TINY 'a long comment line is a comment' '
	config 1000 "; $(printf "%0600d" 0)" >comment.ini &&
	"$VMTAX" run comment.ini --dry-run >out 2>err &&
	test "$(grep -c "^  bare-metal/" out)" = 1
'

test_expect_success 'a long line that is not a key line is refused with FILE:LINE:' '
	config 1000 "[$(printf "%0300d" 0)]" >section.ini &&
	test_expect_code 2 "$VMTAX" run section.ini --dry-run >out 2>err &&
	grep -q "^section.ini:14: line longer than 198 characters (302)" err &&
	config 1000 "$(printf "x%0300d" 0)" >noeq.ini &&
	test_expect_code 2 "$VMTAX" run noeq.ini --dry-run >out 2>err &&
	grep -q "^noeq.ini:14: line longer than 198 characters (301)" err
'

test_expect_success 'a key too long for the buffer is refused, not cut' '
	config 1000 "$(printf "K%0300d" 0) = 1" >key.ini &&
	test_expect_code 2 "$VMTAX" run key.ini --dry-run >out 2>err &&
	grep -q "^key.ini:14: line longer than 198 characters (305)" err
'

test_expect_success 'a long value is checked as a short one (its own message)' '
	config "$(seq -s ", " 1000 1099), 1000" >bad.ini &&
	test_expect_code 2 "$VMTAX" run bad.ini --dry-run >out 2>err &&
	grep -q "^bad.ini:13: bad value for .READS.: .1000. is listed twice" err
'

test_done
