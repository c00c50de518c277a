#!/bin/sh
# vmtax report on bad input: a clear error naming the file, exit status 2,
# nothing on stdout.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

demo="$TOP/tests/fixtures/results-demo.json"

# expect_bad NAME FILE PATTERN: exit 2, PATTERN on stderr, stdout empty.
expect_bad() {
	test_expect_failure_code "$1 (exit 2)" 2 "\"\$VMTAX\" report \"$2\" >/dev/null"
	test_expect_success "$1 (message)" "
		! \"\$VMTAX\" report \"$2\" >stdout 2>stderr &&
		test ! -s stdout &&
		cat stderr &&
		grep -q \"$3\" stderr
	"
}

cd "$TRASH" || exit 1
printf '{"schema": "vmtax-results/1", "run": {' >corrupt.json
sed 's,"vmtax-results/1","vmtax-results/9",' "$demo" >schema.json
sed '/"schema"/d' "$demo" >noschema.json
cat >empty.json <<'JSON'
{"schema": "vmtax-results/1", "run": {"name": "e", "status": "complete"},
 "workload": {"name": "randwalk", "metric": "elapsed", "unit": "s",
	      "better": "lower"},
 "baseline": "bare-metal/host-thp=always", "cells": []}
JSON
cat >pending.json <<'JSON'
{"schema": "vmtax-results/1", "run": {"name": "p", "status": "running"},
 "workload": {"name": "randwalk", "metric": "elapsed", "unit": "s",
	      "better": "lower"},
 "baseline": "bare-metal/host-thp=always",
 "cells": [{"id": "bare-metal/host-thp=always", "status": "pending",
	    "env": {"where": "bare-metal", "host_thp": "always"},
	    "reason": null, "observed": {}, "samples": []}]}
JSON
cat >failed.json <<'JSON'
{"schema": "vmtax-results/1", "run": {"name": "f", "status": "complete"},
 "workload": {"name": "randwalk", "metric": "elapsed", "unit": "s",
	      "better": "lower"},
 "baseline": "bare-metal/host-thp=always",
 "cells": [{"id": "bare-metal/host-thp=always", "status": "failed",
	    "env": {"where": "bare-metal", "host_thp": "always"},
	    "reason": "workload exited with status 1", "observed": {},
	    "samples": [{"index": 0, "status": "failed",
			 "reason": "exit status 1", "exit_status": 1,
			 "elapsed_s": 0.01, "metric": null, "counters": {}}]},
	   {"id": "bare-metal/host-thp=never", "status": "skipped",
	    "env": {"where": "bare-metal", "host_thp": "never"},
	    "reason": "host THP cannot be set", "observed": {},
	    "samples": []}]}
JSON
sed '/"baseline": "bare-metal/d' "$demo" >nobase.json
sed 's,"baseline": "bare-metal/host-thp=always","baseline": "bare-metal/host-thp=sometimes",' \
	"$demo" >badbase.json

expect_bad 'corrupt JSON' corrupt.json "corrupt.json': corrupt JSON at line"
expect_bad 'unknown schema' schema.json "schema.json': unknown schema 'vmtax-results/9'"
expect_bad 'no schema' noschema.json "noschema.json': no 'schema'"
expect_bad 'empty run' empty.json "empty.json': empty run: no cells"
expect_bad 'nothing measured yet' pending.json "pending.json': empty run: no cell has an ok sample"
expect_bad 'only failed cells' failed.json "failed.json': every measured cell failed"
expect_bad 'missing baseline' nobase.json "nobase.json': no baseline cell id"
expect_bad 'baseline not a cell' badbase.json "baseline 'bare-metal/host-thp=sometimes' is not a cell"
expect_bad 'missing file' nosuch.json "cannot read '.*nosuch.json'"
# A fleet run's host results are read only from hosts/NAME/results.json.
for rel in ../../etc/passwd /etc/passwd hosts/../../x/results.json \
	hosts/a/b/results.json hosts/../results.json hosts//results.json; do
	jq --arg r "$rel" '. + {fleet: {mode: "each", hosts: [{name: "a", results: $r}]}}' \
		"$demo" >"fleet-$(echo "$rel" | tr / _).json"
done
expect_bad 'fleet: results outside hosts/' fleet-.._.._etc_passwd.json "fleet host results at '../../etc/passwd': not hosts/NAME/results.json"
expect_bad 'fleet: an absolute path' fleet-_etc_passwd.json "fleet host results at '/etc/passwd': not hosts/NAME/results.json"
expect_bad 'fleet: a .. inside' fleet-hosts_.._.._x_results.json.json "not hosts/NAME/results.json"
expect_bad 'fleet: two names deep' fleet-hosts_a_b_results.json.json "not hosts/NAME/results.json"
expect_bad 'fleet: NAME ..' fleet-hosts_.._results.json.json "not hosts/NAME/results.json"
expect_bad 'fleet: NAME empty' fleet-hosts__results.json.json "not hosts/NAME/results.json"
jq '. + {fleet: {mode: "each", hosts: [{name: "a", results: null}]}}' "$demo" >fleet-none.json
expect_bad 'fleet: no host came back' fleet-none.json "a fleet run none of whose hosts' results came back"

test_expect_failure_code 'unknown format (exit 2)' 2 \
	'"$VMTAX" report --format pdf "$TOP/tests/fixtures/results-demo.json"'
test_expect_success 'unknown format names the formats' '
	! "$VMTAX" report --format pdf "$TOP/tests/fixtures/results-demo.json" 2>err &&
	grep -q "unknown format .pdf. (formats: text|md|csv|json|html)" err
'
test_expect_failure_code 'no argument (exit 2)' 2 '"$VMTAX" report'
test_expect_failure_code 'unknown option (exit 2)' 2 \
	'"$VMTAX" report --bogus "$TOP/tests/fixtures/results-demo.json"'
test_expect_success 'a bad input leaves no -o file behind' '
	! "$VMTAX" report -o out.txt corrupt.json 2>/dev/null &&
	test ! -e out.txt
'

# The axes (docs/axes.md): each broken file says what is wrong with which
# axis or cell.
vcpus="$TOP/tests/fixtures/results-vcpus.json"
# mutate OUT PYTHON: the vcpus fixture as d, changed by PYTHON, into OUT.
mutate() {
	python3 - "$vcpus" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["cells"][3]  # guest/host-thp=always/guest-thp=always/vcpus=2
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}
if command -v python3 >/dev/null 2>&1; then
	mutate axdup.json 'd["axes"].append(dict(d["axes"][1]))' &&
	mutate axname.json 'd["axes"][3]["name"] = "colour"' &&
	mutate axvaldup.json 'd["axes"][3]["values"] = ["1", "2", "4", "1"]; d["axes"][3]["numbers"].append(1)' &&
	mutate axnonum.json 'del d["axes"][3]["numbers"]' &&
	mutate axapplies.json 'd["axes"][3]["applies"] = "host"' &&
	mutate axnowhere.json 'del d["axes"][0]; [c["axes"].pop("where") for c in d["cells"]]' &&
	mutate cellval.json 'g["axes"]["vcpus"] = "8"' &&
	mutate cellname.json 'g["axes"]["colour"] = "red"' &&
	mutate cellmiss.json 'del g["axes"]["vcpus"]' &&
	mutate cellguest.json 'd["cells"][0]["axes"]["vcpus"] = "1"' &&
	mutate cellwhere.json 'g["axes"]["where"] = "bare-metal"' &&
	mutate cellnoaxes.json 'del g["axes"]' &&
	mutate runnoaxes.json 'del d["axes"]' ||
		echo "# could not build the broken axes files"

	expect_bad 'an axis named twice' axdup.json "axdup.json': axis 'host-thp' appears twice"
	expect_bad 'an unknown axis' axname.json "axname.json': unknown axis 'colour' (axes are where, paging"
	expect_bad 'a value listed twice' axvaldup.json "axvaldup.json': axis 'vcpus' lists value '1' twice"
	expect_bad 'a numeric axis without numbers' axnonum.json "axnonum.json': axis 'vcpus' is numeric but has not one number per value"
	expect_bad 'a bad applies' axapplies.json "axapplies.json': axis 'vcpus': applies is 'host', not 'all' or 'guest'"
	expect_bad 'no where axis' axnowhere.json "axnowhere.json': the axes have no 'where' axis"
	expect_bad 'a cell value not among the values' cellval.json \
		"cellval.json': cell 'guest/host-thp=always/guest-thp=always/vcpus=2': axis 'vcpus' is '8', not one of its values"
	expect_bad 'a cell naming an unknown axis' cellname.json \
		"cellname.json': cell 'guest/host-thp=always/guest-thp=always/vcpus=2': unknown axis 'colour' (the run's axes: where, host-thp, guest-thp, vcpus)"
	expect_bad 'a cell missing an axis' cellmiss.json \
		"cellmiss.json': cell 'guest/host-thp=always/guest-thp=always/vcpus=2' has no value for axis 'vcpus'"
	expect_bad 'a guest axis on bare metal' cellguest.json \
		"cellguest.json': cell 'bare-metal/host-thp=always': axis 'vcpus' applies to guests only"
	expect_bad 'axes.where against env.where' cellwhere.json \
		"cellwhere.json': cell 'guest/host-thp=always/guest-thp=always/vcpus=2': axis where is 'bare-metal' but env.where is 'guest'"
	expect_bad 'a cell without axes in a run with axes' cellnoaxes.json \
		"cellnoaxes.json': cell 'guest/host-thp=always/guest-thp=always/vcpus=2' has no axes object"
	expect_bad 'cells with axes in a run without' runnoaxes.json \
		"runnoaxes.json': cell 'bare-metal/host-thp=always' has axes but the run has none"
else
	echo "# skipping the axes checks: no python3"
fi

# KVM evidence (docs/results-format.md, sample key kvm): each broken file
# names the cell, the sample and what is wrong.
kvm="$TOP/tests/fixtures/results-kvm.json"
# kvmmutate OUT PYTHON: the kvm fixture as d, its NPT-on guest's first
# sample as s, changed by PYTHON, into OUT.
kvmmutate() {
	python3 - "$kvm" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["cells"][2]["samples"][0]  # guest/paging=hw/host-thp=always/...
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}
if command -v python3 >/dev/null 2>&1; then
	kvmmutate kvmstr.json 's["kvm"] = "yes"' &&
	kvmmutate kvmnocount.json 'del s["kvm"]["exits_by_reason"][1]["count"]' &&
	kvmmutate kvmnoreason.json 'del s["kvm"]["exits_by_reason"][0]["reason"]' ||
		echo "# could not build the broken kvm files"

	expect_bad 'kvm neither an object nor null' kvmstr.json \
		"kvmstr.json': cell 'guest/paging=hw/host-thp=always/guest-thp=always': sample 0: kvm is not an object or null"
	expect_bad 'an exit reason without a count' kvmnocount.json \
		"kvmnocount.json': cell 'guest/paging=hw/host-thp=always/guest-thp=always': sample 0: kvm.exits_by_reason.1. needs a reason and a count"
	expect_bad 'a count without an exit reason' kvmnoreason.json \
		"kvmnoreason.json': cell 'guest/paging=hw/host-thp=always/guest-thp=always': sample 0: kvm.exits_by_reason.0. needs a reason and a count"
else
	echo "# skipping the kvm checks: no python3"
fi

test_expect_failure_code 'report --rows with an unknown axis (exit 2)' 2 \
	'"$VMTAX" report --rows colour "$vcpus"'
test_expect_success 'report --rows with an unknown axis lists the axes' '
	! "$VMTAX" report --rows colour "$vcpus" >stdout 2>err &&
	test ! -s stdout &&
	grep -q "unknown axis .colour. (axes of .*results-vcpus.json.: where, host-thp, guest-thp, vcpus)" err
'
test_expect_failure_code 'report --cols with an unknown axis (exit 2)' 2 \
	'"$VMTAX" report --cols vcpu "$vcpus"'
test_expect_success 'report: an axis in both --rows and --cols' '
	! "$VMTAX" report --rows vcpus --cols vcpus "$vcpus" 2>err &&
	grep -q "axis .vcpus. is named twice in --rows/--cols" err
'
test_expect_success 'report: an old file has the derived axes only' '
	! "$VMTAX" report --rows vcpus "$demo" 2>err &&
	grep -q "unknown axis .vcpus. (axes of .*results-demo.json.: where, paging, host-thp, guest-thp)" err
'


# The exit status says whether the run failed (as a test runner's): a
# failed cell, or a fleet host that failed, is 1 (--exit-zero: 0), with
# one line on stderr naming them; skipped cells are not failures.
jq '(.cells[] | select(.id == "guest/paging=tcg/host-thp=always/guest-thp=never" or .id == "guest/paging=tcg/host-thp=never/guest-thp=never")) |= (.status = "failed" | .reason = "the guest did not boot")' \
	"$demo" >twofailed.json
jq '(.cells[] | select(.status == "ok")) |= (.status = "failed" | .reason = "x")' \
	"$demo" >allfailed.json
mkdir -p fleet/hosts/alpha && cp "$demo" fleet/hosts/alpha/results.json &&
jq '.fleet = {"mode": "each", "hosts": [{"name": "alpha", "status": "ok", "reason": null, "results": "hosts/alpha/results.json", "cells": {"ok": 6, "failed": 0}}, {"name": "beta", "status": "failed", "reason": "ssh: connection lost", "results": null}]}' \
	"$demo" >fleet/results.json || exit 1
# ARGS<TAB>STATUS<TAB>what stderr must be (grep -E; empty: nothing)
cat >verdicts <<'EOF'
$demo	0	
$vcpus	1	^vmtax: report: 1 of 14 cells failed: 'guest/host-thp=never/guest-thp=never/vcpus=4' \(3 of 3 samples failed: the guest agent did not answer within 600 s\) \(exit 1; --exit-zero: 0\)$
$vcpus --exit-zero	0	
$vcpus -f json	1	^vmtax: report: 1 of 14 cells failed
twofailed.json	1	^vmtax: report: 2 of 10 cells failed: 'guest/paging=tcg/host-thp=always/guest-thp=never' \(the guest did not boot\), 'guest/paging=tcg/host-thp=never/guest-thp=never' \(the guest did not boot\) \(exit 1
allfailed.json	1	^vmtax: report: 6 of 10 cells failed: 'bare-metal/host-thp=always' \(x\), .*, 'guest/paging=tcg/host-thp=never/guest-thp=always' \(x\), \.\.\. \(exit 1
fleet	1	^vmtax: report: 1 of 2 fleet hosts with failures: host 'beta' \(ssh: connection lost\) \(exit 1; --exit-zero: 0\)$
fleet --exit-zero	0	
EOF
test_expect_success 'the exit status says whether the run failed: each case its status and line' '
	n=0 &&
	while IFS="	" read -r args code want; do
		n=$((n + 1)) &&
		eval "set -- $args" &&
		echo "$n: vmtax report $* (want $code)" &&
		test_expect_code $code "$VMTAX" report "$@" >out 2>err &&
		cat err &&
		if test -z "$want"
		then
			test ! -s err && test -s out
		else
			test "$(wc -l <err)" = 1 && grep -Eq "$want" err
		fi || { echo "case $n: want: $want"; exit 1; }
	done <verdicts &&
	test "$n" = 8
'
test_expect_success 'report --help says what the exit status means' '
	"$VMTAX" report --help >help &&
	grep -q -- "--exit-zero  " help &&
	grep -q "^exit status: 0 every cell ended ok or skipped, 1 a cell" help
'

test_done
