#!/bin/sh
# [run] events (perf event names, as 'perf stat -e', and raw PMU events,
# rNNNN): declared once in the key table, so --help, completion and
# vmtax-config(5) have it (the unit test test-man-config checks the man
# page has every key); a bad list is refused at its line (FILE:LINE: or
# --set '...':), each for its own reason, exit 2; a good one passes the
# dry run.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

# config EVENTS-LINE: a bare-metal config with that [run] line
config() {
	printf '%s\n' "[run]" "name = ev" "repeat = 1" "$1" "" \
		"[matrix]" "where = bare-metal" "host_thp = always" "" \
		"[workload]" "dir = $TOP/configs/workloads" "name = randwalk"
}

test_expect_success 'run --help says what events takes' '
	"$VMTAX" run --help >help &&
	grep -q "^    events  *string  *perf events to count beyond task-clock, page-faults, context-switches, cycles, instructions, dTLB-loads and dTLB-load-misses, as .perf stat -e. names them" help &&
	grep -q "or raw PMU events as perf takes them, .r. and 1-16 hex digits (r003c: umask 00, event 3c on x86; at most 4)" help &&
	grep -q "one the CPU or kernel lacks is <not supported>, never 0" help
'

test_expect_success 'completion offers run.events and the events it may add' '
	"$VMTAX" --complete keys >keys 2>/dev/null || true &&
	grep -qx "run.events" keys &&
	"$VMTAX" --complete values run.events >names &&
	grep -qx "major-faults" names && grep -qx "dTLB-store-misses" names &&
	grep -qx "LLC-load-misses" names &&
	! grep -qx "task-clock" names &&
	test "$(wc -l <names)" = 54
'

# Bad lists: NAME|EVENTS-LINE|MESSAGE (after "ev.NAME.ini:4: ").
while IFS='|' read -r name line msg; do
	test_expect_success "refused at its line: $name (exit 2)" "
		config '$line' >ev.$name.ini &&
		test_expect_code 2 \"\$VMTAX\" run ev.$name.ini --dry-run >out 2>err &&
		cat err &&
		grep -qxF \"ev.$name.ini:4: $msg\" err
	"
done <<\EOF_BAD
unknown|events = major-faults, dtlb-misses|unknown perf event 'dtlb-misses' (one of perf's generic hardware, software or cache events, as 'perf list' names them, or a raw one: 'r' and 1-16 hex digits)
empty|events = major-faults,,r003c|an empty perf event (a comma with no name on one side)
raw-no-digits|events = r|raw PMU event 'r' has no hex digits ('r' and 1-16 of them, as perf takes it: r003c)
raw-not-hex|events = r00zz|raw PMU event 'r00zz': 'z' is not a hex digit
raw-too-long|events = r01234567890abcdef|raw PMU event 'r01234567890abcdef' has 17 hex digits: at most 16 (a 64-bit config)
raw-twice|events = r003c, cycles, r003c|perf event 'r003c' is listed twice
raw-same-config|events = r3c r003C|raw PMU event 'r003C' is 'r3c' again (config 0x3c)
raw-too-many|events = r1 r2 r3 r4 r5|more than 4 raw PMU events: at most 4
raw-too-many-in-all|events = r1 r2 r3 r4 cpu-clock cpu-migrations minor-faults major-faults alignment-faults emulation-faults|10 perf events beyond the 7 counted always: at most 9
case|events = Major-faults|unknown perf event 'Major-faults' (one of perf's generic hardware, software or cache events, as 'perf list' names them, or a raw one: 'r' and 1-16 hex digits)
twice|events = major-faults major-faults|perf event 'major-faults' is listed twice
alias|events = cs, context-switches|perf event 'context-switches' is listed twice
too-many|events = cpu-clock cpu-migrations minor-faults major-faults alignment-faults emulation-faults branches branch-misses bus-cycles ref-cycles|10 perf events beyond the 7 counted always: at most 9
EOF_BAD

test_expect_success 'refused in --set, naming it (exit 2)' '
	config "" >plain.ini &&
	test_expect_code 2 "$VMTAX" run plain.ini --dry-run --set run.events=cycles,bogus >out 2>err &&
	grep -qxF -e "--set '"'"'run.events=cycles,bogus'"'"': unknown perf event '"'"'bogus'"'"' (one of perf'"'"'s generic hardware, software or cache events, as '"'"'perf list'"'"' names them, or a raw one: '"'"'r'"'"' and 1-16 hex digits)" err &&
	test_expect_code 2 "$VMTAX" run plain.ini --dry-run --set run.events=r00zz >out 2>err &&
	grep -qxF -e "--set '"'"'run.events=r00zz'"'"': raw PMU event '"'"'r00zz'"'"': '"'"'z'"'"' is not a hex digit" err
'

test_expect_success 'a good list passes the dry run (the seven listed again add nothing)' '
	config "events = major-faults, dTLB-store-misses,cpu-migrations task-clock" >good.ini &&
	"$VMTAX" run good.ini --dry-run >out 2>err &&
	grep -q "^  bare-metal/host-thp=always$" out &&
	"$VMTAX" run plain.ini --dry-run --set "run.events=LLC-load-misses faults" >out 2>err &&
	"$VMTAX" run plain.ini --dry-run --set "run.events=r003c,r01A2 cycles" >out 2>err &&
	config "events = r003c, dTLB-store-misses, rffffffffffffffff" >raw.ini &&
	"$VMTAX" run raw.ini --dry-run >out 2>err &&
	grep -q "^  bare-metal/host-thp=always$" out
'

test_done
