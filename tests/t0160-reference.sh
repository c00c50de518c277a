#!/bin/sh
# The seed's table, kept as reference data, renders with the seed's own
# slowdowns: a check of the report arithmetic against published numbers.
. "$(dirname "$0")/lib-test.sh"
REF=$TOP/configs/reference/seed-000-kbuild.json

test_expect_success 'the reference follows the results schema' '
	python3 "$TOP/tests/check-results.py" "$REF"
'
test_expect_success 'vmtax report gives the seed slowdowns' '
	"$VMTAX" report "$REF" >out &&
	for s in "THP never host (slowdown 4.06%" \
		"THP always guest, EPT on + THP always host (slowdown 5.67%" \
		"THP never guest, EPT on + THP always host (slowdown 12.71%" \
		"THP never guest, EPT on + THP never host (slowdown 24.81%" \
		"THP always guest, EPT off + THP always host (slowdown 198.33%" \
		"THP never guest, EPT off + THP always host (slowdown 254.43%" \
		"THP never guest, EPT off + THP never host (slowdown 260.15%"; do
		grep -qF "$s" out || { echo "missing: $s"; exit 1; }
	done
'
test_expect_success 'IPC from the seed counters (0.609 and 0.597)' '
	"$VMTAX" report "$REF" >out &&
	grep -q "0.609 IPC" out && grep -q "0.597 IPC" out
'

# A complete run of configs/kbuild-small.ini from the development host.
SMALL=$TOP/configs/reference/kbuild-small-tcg-2026-12-02.json
test_expect_success 'the kbuild-small run follows the schema and is complete' '
	python3 "$TOP/tests/check-results.py" "$SMALL" &&
	jq -e ".run.status == \"complete\" and (.cells | length) == 11" "$SMALL" &&
	jq -e "[.cells[] | select(.env.paging == \"tcg\" or .env.where == \"bare-metal\") | .status == \"ok\"] | all and length == 5" "$SMALL" &&
	jq -e "[.cells[] | select(.env.paging == \"npt\" or .env.paging == \"shadow\") | .status == \"skipped\" and (.reason | test(\"needs KVM\"))] | all and length == 6" "$SMALL"
'
test_expect_success 'its table renders, the NPT columns skipped' '
	"$VMTAX" report "$SMALL" >out &&
	grep -E "^ never +never +44\.11% +1036\.48% +skipped +skipped$" out
'
test_done
