#!/bin/sh
# The JSON documents of 'vmtax report' (vmtax-report/1) and 'vmtax compare'
# (vmtax-compare/1) follow docs/report.schema.json and
# docs/compare.schema.json: each fixture's report, the comparisons of the
# fixtures, and a table of planted wrong documents that must each fail for
# their own reason (tests/check-report.py names the path and the rule).
. "$(dirname "$0")/lib-test.sh"

test_lazy_prereq JSONSCHEMA "no python3 jsonschema (make deps-check)" \
	'python3 -c "import jsonschema"'
test_need VMTAX,JQ,PYTHON3,JSONSCHEMA

CHECK="$TOP/tests/check-report.py"
FIX="$TOP/tests/fixtures"
export CHECK FIX

test_expect_success 'the schemas are draft 2020-12 schemas, compare refers to report' '
	python3 -c "
import json, jsonschema
for n in (\"report\", \"compare\"):
    jsonschema.Draft202012Validator.check_schema(json.load(open(\"$TOP/docs/\" + n + \".schema.json\")))
" &&
	grep -q "\"urn:vmtax:report:1#/\$defs/delta\"" "$TOP/docs/compare.schema.json"
'

# results-hostile.json is not a results file (t0415: its strings carry
# escapes, its status is not one of the three), so neither is its report.
for f in "$FIX"/results-*.json; do
	b=$(basename "$f" .json)
	b=${b#results-}
	[ "$b" = hostile ] && continue
	test_expect_success "report of $b follows vmtax-report/1" "
		{ \"\$VMTAX\" report --format json \"\$FIX/results-$b.json\" >rep.$b.json || test \$? = 1; } &&
		python3 \"\$CHECK\" rep.$b.json >out &&
		grep -qx \"rep.$b.json: valid vmtax-report/1\" out
	"
done

while read -r name args; do
	test_expect_success "compare $name follows vmtax-compare/1" "
		{ \"\$VMTAX\" compare --format json $args >cmp.$name.json || test \$? = 1; } &&
		python3 \"\$CHECK\" cmp.$name.json >out &&
		grep -qx \"cmp.$name.json: valid vmtax-compare/1\" out
	"
done <<\EOF_CMP
two "$FIX/results-demo.json" "$FIX/results-demo-b.json"
by-thp "$FIX/results-hw.json" --by host_thp
by-vcpus "$FIX/results-vcpus.json" --by vcpus
kvm "$FIX/results-kvm.json" "$FIX/results-kvm-b.json"
effect --effect "$FIX/results-demo.json" "$FIX/results-demo-b.json"
EOF_CMP

# Planted wrong documents: NAME SOURCE JQ-EDIT EXPECTED-ERROR (a regex
# matched against check-report.py's line: the path, then the rule).
while IFS='|' read -r name src edit want; do
	test_expect_success "planted: $name is refused" "
		jq '$edit' $src >bad.$name.json &&
		test_expect_code 1 python3 \"\$CHECK\" bad.$name.json 2>err &&
		cat err &&
		grep -q '^bad.$name.json: $want' err
	"
done <<\EOF_BAD
id-number|rep.demo.json|.cells[0].id = 5|/cells/0/id: 5 is not of type .string.
no-baseline|rep.demo.json|del(.baseline)|/: .baseline. is a required property
counter-zero|rep.demo.json|.cells[0].counters.cycles = {"state": "not supported", "mean": 0}|/cells/0/counters/cycles: Additional properties are not allowed (.mean. was unexpected)
counter-missing|rep.demo.json|del(.cells[1].counters["task-clock"])|/cells/1/counters: .task-clock. is a required property
slowdown-string|rep.demo.json|.cells[1].slowdown.value = "4%"|/cells/1/slowdown/value: .4%. is not of type .number., .null.
unknown-key|rep.demo.json|.cells[0].colour = "red"|/cells/0: Additional properties are not allowed (.colour. was unexpected)
wrong-schema|rep.demo.json|.schema = "vmtax-compare/1"|/: .* is a required property
cmp-delta-missing|cmp.two.json|del(.rows[0].delta)|/rows/0: .delta. is a required property
cmp-run-letter|cmp.two.json|.runs[1].letter = 2|/runs/1/letter: 2 is not of type .string.
effect-points|cmp.effect.json|.rows[0].points = "1.5"|/rows/0/points: .1.5. is not of type .number., .null.
EOF_BAD

test_done
