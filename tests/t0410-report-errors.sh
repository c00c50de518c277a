#!/bin/sh
# vmtax report on bad input: a clear error naming the file, exit status 2,
# nothing on stdout.
. "$(dirname "$0")/lib-test.sh"

[ -x "$VMTAX" ] || skip_all "no vmtax binary at $VMTAX"

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

test_done
