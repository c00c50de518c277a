#!/bin/sh
# vmtax report: every format of the fixture runs, byte for byte against
# tests/golden/.  VMTAX_REGEN_GOLDEN=1 rewrites the golden files instead
# (review the diff before committing it).
. "$(dirname "$0")/lib-test.sh"

[ -x "$VMTAX" ] || skip_all "no vmtax binary at $VMTAX"

for fixture in demo hw series; do
	for fmt in text md csv json html; do
		ext=$fmt
		[ "$fmt" = text ] && ext=txt
		golden="$TOP/tests/golden/$fixture.$ext"
		if [ -n "$VMTAX_REGEN_GOLDEN" ]; then
			"$VMTAX" report --format "$fmt" \
				"$TOP/tests/fixtures/results-$fixture.json" \
				>"$golden"
			echo "# regenerated $golden"
		fi
		test_expect_success "$fixture: $fmt matches golden" "
			\"\$VMTAX\" report --format $fmt \
				\"\$TOP/tests/fixtures/results-$fixture.json\" >out.$fixture.$ext &&
			cmp \"$golden\" out.$fixture.$ext ||
			{ diff -u \"$golden\" out.$fixture.$ext | head -40; false; }
		"
	done
done

test_expect_success 'text is the default format' '
	"$VMTAX" report "$TOP/tests/fixtures/results-demo.json" >default.txt &&
	cmp "$TOP/tests/golden/demo.txt" default.txt
'

test_expect_success 'a run directory is read as RUNDIR/results.json' '
	mkdir -p run &&
	cp "$TOP/tests/fixtures/results-demo.json" run/results.json &&
	"$VMTAX" report --format csv run >dir.csv &&
	cmp "$TOP/tests/golden/demo.csv" dir.csv
'

test_expect_success '-o writes the file and nothing to stdout' '
	"$VMTAX" report -f md -o out.md "$TOP/tests/fixtures/results-demo.json" >stdout &&
	test ! -s stdout &&
	cmp "$TOP/tests/golden/demo.md" out.md
'

test_expect_success 'skipped cells keep their reason in every format' '
	for f in txt md csv json html; do
		grep -q "paging cannot be changed" "$TOP/tests/golden/demo.$f" ||
			{ echo "no reason in demo.$f"; exit 1; }
	done
'

test_expect_success 'unsupported counters are never printed as 0' '
	grep -q "<not supported>  cycles" "$TOP/tests/golden/demo.txt" &&
	grep -q "not supported" "$TOP/tests/golden/demo.csv" &&
	! grep -q "\"cycles\": 0" "$TOP/tests/golden/demo.json"
'

test_expect_success 'IPC and dTLB miss rate from PMU counters' '
	grep -q "0.609 IPC" "$TOP/tests/golden/hw.txt" &&
	grep -q "0.43% of dTLB-loads" "$TOP/tests/golden/hw.txt"
'

test_expect_success 'the slowdowns agree between text, csv and json' '
	# THP never host: slowdown in text, csv (fraction) and json (fraction).
	grep -q "^THP never host (slowdown 4.01% " "$TOP/tests/golden/hw.txt" &&
	grep "^cell,bare-metal/host-thp=never," "$TOP/tests/golden/hw.csv" |
		cut -d, -f19 | grep -q "^0.04009722" &&
	grep -A3 "\"slowdown\": {" "$TOP/tests/golden/hw.json" |
		grep -q "\"value\": 0.04009722"
'

test_expect_success 'report --help' '
	"$VMTAX" report --help >help &&
	grep -q "text|md|csv|json|html" help
'

test_done
