#!/bin/sh
# Memory budgets (docs/security.md, "Caps"; lib/caps.h): run directories
# built to make a report take gigabytes render, or are refused with the
# budget named, under 'ulimit -v 2 GiB', and never die of it:
#
# - 30,000 folded stacks of 1,022 frames (61 MB, under PROFILE_FILE_MAX):
#   the flame graph once built 30 million nodes (6.3 GB); now only what it
#   draws, with a note saying how many frames it left out;
# - a 48 MB results.json of empty objects (jansson: about 78 times its
#   size, 3.7 GB): refused before it is parsed, by 'report', 'compare',
#   'run --resume' and as a fleet host's results, the count and the
#   budget named;
# - 8,500 stacks of 1,022 frames all of different names: the comparison
#   with the baseline took 2.7 GB; now refused past
#   PROFILE_DIFF_SYMBOLS_MAX, with the reason;
# - twelve cells naming that 61 MB profile: the profiles and comparisons
#   past PROFILE_REPORT_MEM_MAX are left out, each saying so.
#
# ulimit -v cannot run an ASan build (its shadow memory reserves terabytes
# of address space): the limited runs use the plain build beside it
# ($BUILD/vmtax, which make check builds), and the ASan build runs the
# same directories unlimited.  No duration is asserted.
. "$(dirname "$0")/lib-test.sh"

[ -x "$VMTAX" ] || skip_all "no vmtax binary at $VMTAX"
PLAIN=$VMTAX
if ldd "$VMTAX" 2>/dev/null | grep -q libasan; then
	PLAIN=$BUILD/vmtax
fi
[ -x "$PLAIN" ] && ! ldd "$PLAIN" 2>/dev/null | grep -q libasan ||
	skip_all "no vmtax build without ASan at $PLAIN for ulimit -v"

cd "$TRASH" || exit 1

# limited NAME ARGS...: the plain vmtax under a 2 GiB address space, its
# stdout in NAME, its stderr in NAME.err, its exit status in NAME.rc.
limited() {
	name=$1
	shift
	if (ulimit -v 2097152 && exec "$PLAIN" "$@") >"$name" 2>"$name.err"; then
		echo 0 >"$name.rc"
	else
		echo $? >"$name.rc"
	fi
}

# profiled DIR: a run of the profile fixture with its folded files.
profiled() {
	mkdir -p "$1/profiles" &&
	cp "$TOP/tests/fixtures/results-profile.json" "$1/results.json" &&
	cp "$TOP"/tests/fixtures/profiles/*.folded "$1/profiles/"
}

hot=profiles/guest_host-thp_always_guest-thp_always.folded

test_expect_success 'the hostile directories' '
	profiled flame &&
	python3 -c "
import sys
tail = \";a\" * 1021
sys.stdout.write(\"\".join(\"%x%s 1\n\" % (i, tail) for i in range(30000)))
" >flame/$hot &&
	test "$(wc -l <flame/$hot)" = 30000 &&
	test "$(head -1 flame/$hot | tr ";" "\n" | wc -l)" = 1022 &&
	test "$(stat -c %s flame/$hot)" -lt $((64 << 20)) &&
	mkdir empty &&
	python3 -c "
import sys
sys.stdout.write(\"{\\\"cells\\\":[\" + \",\".join([\"{}\"] * (16 << 20)) + \"]}\")
" >empty/results.json &&
	test "$(stat -c %s empty/results.json)" = 50331659 &&
	profiled names &&
	python3 -c "
import sys
n = 0
for i in range(8500):
    sys.stdout.write(\";\".join(\"%x\" % k for k in range(n, n + 1022)) + \" 1\n\")
    n += 1022
" >names/$hot &&
	test "$(stat -c %s names/$hot)" -lt $((64 << 20)) &&
	mkdir -p many/profiles &&
	ln flame/$hot many/profiles/big.folded &&
	python3 - "$TOP/tests/fixtures/results-profile.json" many/results.json <<-\PY &&
	import copy, json, sys
	d = json.load(open(sys.argv[1]))
	vals = ["always", "never", "v2", "v3"]
	for a in d["axes"]:
	    if a["name"] == "host-thp":
	        a["values"] = vals
	cells = []
	for c in d["cells"]:
	    if c["axes"]["host-thp"] != "always":
	        continue
	    for v in vals:
	        n = copy.deepcopy(c)
	        n["axes"]["host-thp"] = v
	        n["id"] = n["id"].replace("host-thp=always", "host-thp=" + v)
	        n["observed"]["profile"]["folded"] = "profiles/big.folded"
	        cells.append(n)
	d["cells"] = cells
	json.dump(d, open(sys.argv[2], "w"), indent=1)
	PY
	test "$(grep -c "\"folded\": \"profiles/big.folded\"" many/results.json)" = 12 &&
	mkdir -p fleet/hosts/a fleet/hosts/b &&
	ln empty/results.json fleet/hosts/a/results.json &&
	cp "$TOP/tests/fixtures/results-demo.json" fleet/hosts/b/results.json &&
	echo "{\"fleet\": {\"hosts\": [{\"results\": \"hosts/a/results.json\"}, {\"results\": \"hosts/b/results.json\"}]}}" >fleet/results.json
'

test_expect_success 'flame: the HTML renders in 2 GiB, the hostile graph pruned and said so' '
	limited flame.html report -f html flame &&
	cat flame.html.err &&
	test "$(cat flame.html.rc)" = 0 &&
	test "$(grep -c "<svg class=\"flame\"" flame.html)" = 6 &&
	grep -q "<p class=\"na flame-pruned\">30660000 of 30660000 frames are not drawn (each under 0.03% of the samples, or deeper than 64 rows)" flame.html &&
	grep -q "<h3 class=\"profile\" data-id=\"guest/host-thp=always/guest-thp=always\">" flame.html
'

test_expect_success 'flame: text and json render in 2 GiB' '
	for f in text json; do
		limited flame.$f report -f $f flame &&
		test "$(cat flame.$f.rc)" = 0 || exit 1
	done &&
	grep -q "profile:" flame.text
'

test_expect_success 'flame: the ordinary profiles are drawn as before' '
	"$VMTAX" report -f html "$TOP/tests/fixtures/results-profile.json" >fixture.html &&
	cmp fixture.html "$TOP/tests/golden/profile.html" &&
	grep -q "flame-pruned\">226 of 312 frames are not drawn" fixture.html
'

# refused NAME OUT: exit status 2, the budget named for NAME, no output.
refused() {
	test "$(cat "$2.rc")" = 2 &&
	test ! -s "$2" &&
	cat "$2.err" &&
	grep -q "^vmtax: error: .*'$1': not loaded: its 16777219 JSON values would take about 3968.0 MiB of memory, over its budget of 768.0 MiB (RESULTS_DOC_MEM_MAX)\$" "$2.err"
}

test_expect_success 'empty objects: report refuses them in 2 GiB, the budget named' '
	limited empty.out report empty &&
	refused empty/results.json empty.out &&
	limited empty.html report -f html empty &&
	test "$(cat empty.html.rc)" = 2
'

test_expect_success 'empty objects: compare refuses them in 2 GiB' '
	limited cmp.out compare empty "$TOP/tests/fixtures/results-demo.json" &&
	refused empty/results.json cmp.out
'

test_expect_success 'empty objects: run --resume refuses them in 2 GiB' '
	limited resume run --resume "$TRASH/empty" &&
	test "$(cat resume.rc)" = 2 &&
	cat resume.err &&
	grep -q "cannot resume: .*/empty/results.json.: not loaded: its 16777219 JSON values" resume.err
'

test_expect_success 'empty objects: a fleet host'\''s results refused in 2 GiB' '
	limited fleet.out report fleet &&
	refused fleet/hosts/a/results.json fleet.out
'

test_expect_success 'a smaller file of them: refused by the factor, 16 times its size' '
	python3 -c "import sys; sys.stdout.write(\"[\" + \",\".join([\"{}\"] * 500000) + \"]\")" >small.json &&
	limited small report small.json &&
	test "$(cat small.rc)" = 2 &&
	cat small.err &&
	grep -q "small.json.: not loaded: its 500001 JSON values would take about 118.3 MiB of memory, over its budget of 22.9 MiB (RESULTS_DOC_COST_FACTOR: 16 times its 1500001 bytes)" small.err
'

test_expect_success 'names: every format renders in 2 GiB, the comparison refused with the cap' '
	for f in text html json; do
		limited names.$f report -f $f names &&
		test "$(cat names.$f.rc)" = 0 || exit 1
	done &&
	grep -q "no comparison: more than 100000 distinct frames in it and the baseline.s (PROFILE_DIFF_SYMBOLS_MAX)" names.text &&
	grep -q "\"diff_why\": \"no comparison: more than 100000 distinct frames in it and the baseline.s (PROFILE_DIFF_SYMBOLS_MAX)\"" names.json
'

test_expect_success 'many: twelve cells of one 61 MB profile render in 2 GiB, the rest left out' '
	limited many.text report many &&
	test "$(cat many.text.rc)" = 0 &&
	cat many.text.err &&
	# eight profiles of 61.4 MiB and 96 bytes a line fit in 512 MiB
	test "$(grep -c "no profile: .profiles/big.folded. not read: the report.s profiles would take over 512 MiB (PROFILE_REPORT_MEM_MAX)" many.text)" = 4 &&
	test "$(grep -c "vs baseline: no comparison: with it the report.s profiles would take over 512 MiB (PROFILE_REPORT_MEM_MAX)" many.text)" = 2
'

test_expect_success 'the ASan build: the same directories, no leak, no error' '
	"$VMTAX" report -f html flame >san-flame.html &&
	grep -q "30660000 of 30660000 frames are not drawn" san-flame.html &&
	test_expect_code 2 "$VMTAX" report empty 2>san-empty.err &&
	grep -q "not loaded: its 16777219 JSON values" san-empty.err &&
	"$VMTAX" report names >san-names.txt &&
	grep -q "PROFILE_DIFF_SYMBOLS_MAX" san-names.txt
'

test_done
