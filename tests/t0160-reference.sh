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

# A complete run of configs/kbuild-small.ini from the development host,
# rendered: each slowdown the renderer prints is worked out here from the
# raw samples (median over the baseline's median, minus one), and each
# skipped cell's reason is carried through, in text, csv, json and md.
SMALL=$TOP/configs/reference/kbuild-small-tcg-2026-12-02.json
BASE=bare-metal/host-thp=always
# expected.slowdowns: "ID PERCENT" for each measured cell but the baseline
jq -r --arg b "$BASE" '
	def med: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def m: [.samples[] | select(.status == "ok") | .metric] | med;
	([.cells[] | select(.id == $b) | m][0]) as $bm |
	.cells[] | select(.status == "ok" and .id != $b) | "\(.id) \(m / $bm)"' \
	"$SMALL" | awk '{ printf "%s %.2f\n", $1, ($2 - 1) * 100 }' >"$TRASH/expected.slowdowns"
jq -r '.cells[] | select(.status == "skipped") | "\(.id): skipped: \(.reason)"' \
	"$SMALL" >"$TRASH/expected.skipped"

test_expect_success 'the kbuild-small run follows the schema: 5 cells measured, 6 skipped' '
	python3 "$TOP/tests/check-results.py" "$SMALL" &&
	jq -e ".run.status == \"complete\"" "$SMALL" &&
	test "$(wc -l <expected.slowdowns)" = 4 &&
	test "$(wc -l <expected.skipped)" = 6 &&
	test "$(grep -c "^guest/paging=\(hw\|shadow\)/.*: skipped: paging=\(hw\|shadow\) needs KVM" expected.skipped)" = 6 &&
	cat expected.slowdowns
'
test_expect_success 'text: each cell reads the slowdown worked out from its samples' '
	"$VMTAX" report "$SMALL" --format text >small.txt &&
	grep -F "baseline: THP always host ($BASE)" small.txt &&
	while read -r id pct; do
		got=$(awk -v c=" cell $id: ok," "
			index(\$0, c) == 1 { on = 1; next }
			on && /^ slowdown / { print \$2; exit }" small.txt) &&
		echo "$id: $got (expected +$pct%)" &&
		test "$got" = "+$pct%," || exit 1
	done <expected.slowdowns
'
test_expect_success 'text: the matrix has those slowdowns, the NPT columns skipped' '
	grep -E "^ never +never +$(grep "^bare-metal/host-thp=never " expected.slowdowns | cut -d" " -f2)% +$(grep "^guest/paging=tcg/host-thp=never/guest-thp=never " expected.slowdowns | cut -d" " -f2)% +skipped +skipped$" small.txt &&
	test "$(grep -cE "^ (always|never) +(always|never) +.* skipped +skipped$" small.txt)" = 3
'
test_expect_success 'text: each skipped cell is listed with its own reason' '
	while read -r line; do
		grep -qxF " $line" small.txt || { echo "missing: $line"; exit 1; }
	done <expected.skipped
'
test_expect_success 'csv, json and md: the same slowdowns and reasons' '
	"$VMTAX" report "$SMALL" --format csv >small.csv &&
	"$VMTAX" report "$SMALL" --format json >small.json &&
	"$VMTAX" report "$SMALL" --format md >small.md &&
	python3 -c "
import csv, sys
rows = {r[\"id\"]: r for r in csv.DictReader(open(\"small.csv\")) if r[\"kind\"] == \"cell\"}
for line in open(\"expected.slowdowns\"):
    cid, pct = line.split()
    got = \"%.2f\" % (float(rows[cid][\"slowdown\"]) * 100)
    assert got == pct, (cid, got, pct)
for line in open(\"expected.skipped\"):
    cid, reason = line.rstrip(\"\\n\").split(\": skipped: \", 1)
    assert rows[cid][\"status\"] == \"skipped\" and rows[cid][\"reason\"] == reason, cid
print(\"csv: %d cells checked\" % len(rows))
" &&
	while read -r id pct; do
		jq -e --arg id "$id" --argjson p "$pct" \
			".cells[] | select(.id == \$id) | .slowdown.value * 100 - \$p | fabs < 0.005" \
			small.json >/dev/null || { echo "json: $id is not $pct%"; exit 1; }
	done <expected.slowdowns &&
	jq -r ".cells[] | select(.status == \"skipped\") | \"\(.id): skipped: \(.reason)\"" \
		small.json | cmp - expected.skipped &&
	grep -E "^\| never \| never \| [0-9.]+% \| [0-9.]+% \| skipped \| skipped \|$" small.md &&
	while read -r line; do
		id=${line%%: skipped: *} reason=${line#*: skipped: } &&
		grep -qxF -e "- \`$id\` skipped: $reason" small.md ||
			{ echo "md: missing $id"; exit 1; }
	done <expected.skipped
'
test_done
