#!/bin/sh
# vmtax report --format csv: every numeric column holds a number or is
# empty, never a word, and an empty value that is not "not applicable"
# says why in the row's why_empty column (COLUMN:REASON), or the row's
# status does (docs/reports.md, "Formats").
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

# the checker: numbers or empty; each why_empty entry names an empty
# numeric column; prints "KIND ID COLUMN:REASON" per entry for the asserts
cat >"$TRASH/check.py" <<\PY
import csv, math, sys
text = {"kind", "id", "label", "status", "reason", "significant", "why_empty"}
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = rows[0]
assert head[-1] == "why_empty", head
num = [i for i, h in enumerate(head) if h not in text]
assert len(num) == len(head) - len(text), head
for r in rows[1:]:
    assert len(r) == len(head), (len(r), r)
    for i in num:
        if r[i] != "":
            x = float(r[i])  # raises on a word
            assert math.isfinite(x), (head[i], r)
    why = r[-1].split()
    for w in why:
        col, reason = w.split(":")
        assert col in head and head.index(col) in num, w
        assert r[head.index(col)] == "", (w, r)
        assert reason.replace("_", "").isalpha(), w
        print(r[0], r[1], w)
PY

for fixture in demo hw series vcpus kernels kvm lab profile interleaved; do
	test_expect_success "$fixture: numbers or empty, every empty one said" "
		python3 check.py \"\$TOP/tests/golden/$fixture.csv\" >why.$fixture
	"
done

test_expect_success 'a counter the PMU lacks is empty and says not_supported' '
	# demo: the PMU had no cycles or dTLB counters, the software ones ran
	grep -q "^cell bare-metal/host-thp=never cycles:not_supported$" why.demo &&
	grep -q "^cell bare-metal/host-thp=never ipc:not_supported$" why.demo &&
	grep -q "^sample bare-metal/host-thp=never dTLB-load-misses:not_supported$" why.demo &&
	! grep -q " task-clock:" why.demo &&
	python3 -c "
import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline=\"\")):
    if r[\"kind\"] == \"cell\" and r[\"status\"] == \"ok\":
        assert r[\"cycles\"] == \"\" and r[\"ipc\"] == \"\", r
        assert float(r[\"task-clock\"]) > 0, r
" "$TOP/tests/golden/demo.csv" &&
	! grep -q "not supported" "$TOP/tests/golden/demo.csv"
'

test_expect_success 'the baseline has no slowdown, said; a skipped cell says why in status' '
	grep -q "^cell bare-metal/host-thp=always slowdown:baseline$" why.demo &&
	grep -q "^cell bare-metal/host-thp=always welch_df:baseline$" why.demo &&
	grep -q "^cell bare-metal/host-thp=always paired_df:baseline$" why.demo &&
	grep -q "^cell,guest/paging=ept/host-thp=always/guest-thp=always,.*,skipped,paging cannot be changed" \
		"$TOP/tests/golden/demo.csv" &&
	! grep -q "^cell guest/paging=ept/" why.demo &&
	# hw: bare metal counted everything, the guests had no dTLB counters
	! grep -q "^[a-z]* bare-metal/.*:not_supported" why.hw &&
	grep -q "^cell guest/paging=shadow/host-thp=always/guest-thp=always dTLB-loads:not_supported$" why.hw
'

test_expect_success 'a cell with one ok sample: too_few_samples for its spread and interval' '
	jq ".cells[1].samples |= .[:1]" "$TOP/tests/fixtures/results-demo.json" >one.json &&
	"$VMTAX" report -f csv one.json >one.csv &&
	python3 check.py one.csv >why.one &&
	grep -q "^cell bare-metal/host-thp=never stddev:too_few_samples$" why.one &&
	grep -q "^cell bare-metal/host-thp=never slowdown_lo:too_few_samples$" why.one &&
	grep -q "^cell bare-metal/host-thp=never p_value:too_few_samples$" why.one &&
	! grep -q "^cell bare-metal/host-thp=never slowdown:" why.one &&
	grep "^cell,bare-metal/host-thp=never," one.csv | cut -d, -f19 | grep -q "^0\\.2"
'

# One name per quantity (issue 35 part 4): welch_df held a paired
# interval's units - 1.  Each cell's df is in the column the JSON report
# names it by, and only there; dfcheck.py prints the columns used.
cat >"$TRASH/dfcheck.py" <<\PY
import csv, json, sys
js = {c["id"]: c["slowdown"] for c in json.load(open(sys.argv[2]))["cells"]}
used = set()
for r in csv.DictReader(open(sys.argv[1], newline="")):
    s = js.get(r["id"]) if r["kind"] == "cell" else None
    for col in ("welch_df", "paired_df"):
        if s and s.get(col) is not None:
            assert abs(float(r[col]) - s[col]) <= 1e-8 * abs(s[col]), (col, r, s)
            used.add(col)
        elif r["kind"] == "cell":
            assert r[col] == "", (col, r, s)
print(" ".join(sorted(used)))
PY

test_expect_success 'a df is in welch_df (Fieller) or paired_df (paired), as json has it' '
	python3 dfcheck.py "$TOP/tests/golden/interleaved.csv" \
		"$TOP/tests/golden/interleaved.json" >interleaved.df &&
	echo paired_df >want &&
	test_cmp want interleaved.df &&
	python3 dfcheck.py "$TOP/tests/golden/demo.csv" \
		"$TOP/tests/golden/demo.json" >demo.df &&
	echo welch_df >want &&
	test_cmp want demo.df &&
	grep -q "^cell,guest/host-thp=always/guest-thp=never,\"[^\"]*\",ok,,,2,.*,0\.00842322892,,1,yes," \
		"$TOP/tests/golden/interleaved.csv" &&
	grep -q "^cell,bare-metal/host-thp=never,THP never host,ok,,,3,.*,0\.000358927739,2\.07817641,,yes," \
		"$TOP/tests/golden/demo.csv"
'

test_done
