#!/bin/sh
# vmtax report at the edges of its statistics (issue 35), on results files
# written here from tests/fixtures/results-interleaved.json with the samples
# of two cells replaced: the units of a paired interval from the coarser
# side, intervals of a time ratio that stay in (-100%, inf), too few samples
# to judge, magnitudes near 1e300, and ok samples whose metric is no number;
# and (part 4) one name per variance, the df's name, intervals printed as
# intervals.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

src="$TOP/tests/fixtures/results-interleaved.json"
cd "$TRASH" || exit 1

# make OUT PYTHON: the fixture as d, the baseline cell as b and the bare
# metal cell at never as c, changed by PYTHON, into OUT.  samples(VALUES,
# BOOTS) makes ok samples, one a round (BOOTS: a boot per round, or None).
make() {
	python3 - "$src" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cells = {x["id"]: x for x in d["cells"]}
b = cells["bare-metal/host-thp=always"]
c = cells["bare-metal/host-thp=never"]
g = cells["guest/host-thp=always/guest-thp=always"]
def samples(values, boots=None, rounds=True):
    out = []
    for i, v in enumerate(values):
        s = {"index": i, "status": "ok", "exit_status": 0,
             "elapsed_s": v, "metric": v}
        if rounds:
            s["round"] = i
        if boots is not None:
            s["boot"] = boots[i]
        out.append(s)
    return out
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

# field FILE CELL EXPR: EXPR of the JSON report's cell CELL (as c).
field() {
	"$VMTAX" report -f json "$1" >"$1.report" &&
	python3 - "$1.report" "$2" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = [x for x in r["cells"] if x["id"] == sys.argv[2]][0]
print(eval(sys.argv[3]))
PY
}

# A guest baseline with 3 boots of 3 rounds each, and a bare-metal cell in
# the same 9 rounds: the cell's units are the baseline's boots (df 2), not
# its rounds (df 8).
test_expect_success 'a bare-metal cell against a guest baseline with boots: the boots are the units' '
	make guestbase.json "
d[\"baseline\"] = g[\"id\"]
g[\"samples\"] = samples([10, 11, 10.5, 14, 13.5, 14.2, 9, 9.4, 9.1],
                         [0, 0, 0, 1, 1, 1, 2, 2, 2])
c[\"samples\"] = samples([15, 16.1, 15.7, 20, 20.4, 21, 13.2, 14, 13.7])
" &&
	field guestbase.json bare-metal/host-thp=never \
		"(c[\"interval\"][\"unit\"], c[\"interval\"][\"units\"], c[\"interval\"][\"df\"], c[\"interval\"][\"rounds\"])" >got &&
	echo "('"'"'boot'"'"', 3, 2.0, 9)" >want &&
	test_cmp want got
'

# Cells order (no rounds), n = 2 each, one side wide: Fieller's lower end
# would be a ratio below 0 (-100%), and the mean's t interval a time below
# 0 s.  Neither is printed.
test_expect_success 'n = 2 in cells order: no interval below -100%, no mean below 0 s' '
	make wide.json "
b[\"samples\"] = samples([10, 10.2], rounds=False)
c[\"samples\"] = samples([5, 100], rounds=False)
" &&
	field wide.json bare-metal/host-thp=never \
		"(c[\"slowdown\"][\"bounded\"], c[\"slowdown\"][\"ci95\"], c[\"slowdown\"][\"why\"], c[\"elapsed_s\"][\"ci95\"][0])" >got &&
	echo "(False, None, '"'"'it would reach a ratio <= 0 (too few samples for their spread)'"'"', 0.0)" >want &&
	test_cmp want got &&
	"$VMTAX" report wide.json >wide.txt &&
	grep -q "^ no interval: it would reach a ratio <= 0 (too few samples for their spread)$" wide.txt &&
	! grep -q "\[-[0-9][0-9][0-9]" wide.txt
'

# 10.0 s against 10.0001 s, two samples each that agree: nothing to judge
# the spread by, so no verdict (it was "significant *").
test_expect_success 'zero variance with n = 2: too few samples to judge, not significant' '
	make flat.json "
b[\"samples\"] = samples([10.0, 10.0], rounds=False)
c[\"samples\"] = samples([10.0001, 10.0001], rounds=False)
" &&
	field flat.json bare-metal/host-thp=never \
		"(c[\"slowdown\"][\"significant\"], c[\"slowdown\"][\"p\"], c[\"slowdown\"][\"why\"])" >got &&
	echo "(False, None, '"'"'too few samples to judge (under 3, no spread)'"'"')" >want &&
	test_cmp want got &&
	"$VMTAX" report flat.json >flat.txt &&
	grep "^THP never host (slowdown" flat.txt >head &&
	echo "THP never host (slowdown +0.00%, interval unbounded)" >want &&
	test_cmp want head &&
	grep -q "^ slowdown +0.00%, 95% interval unbounded (Fieller), Welch p n/a" flat.txt &&
	grep -q "^ no interval: too few samples to judge (under 3, no spread)$" flat.txt
'

# Values near 1e300: the spread and the interval as at 1, and numbers
# printed as numbers (a median was 96 digits long).
test_expect_success 'values near 1e300: finite spread, bounded interval, short numbers' '
	make huge.json "
b[\"samples\"] = samples([1e300, 1.05e300, 0.95e300], rounds=False)
c[\"samples\"] = samples([1.1e300, 1.25e300, 1.3e300], rounds=False)
" &&
	field huge.json bare-metal/host-thp=never \
		"(c[\"metric\"][\"stddev\"] is not None, c[\"slowdown\"][\"bounded\"], round(c[\"slowdown\"][\"value\"], 6))" >got &&
	echo "(True, True, 0.216667)" >want &&
	test_cmp want got &&
	"$VMTAX" report huge.json >huge.txt &&
	grep -q "median 1.25e+300" huge.txt &&
	! grep -q "[0-9]\{20\}" huge.txt
'

# An ok sample whose metric or time is no finite number >= 0 is refused at
# load, with the cell, the sample and why, exit 2 (a metric "NaN" or null
# was dropped while the header said "3 of 3 samples ok"; a negative
# elapsed was averaged in).  Each row its own reason.
refused() {
	test_expect_success "refused at load: $1" "
		make $2.json \"
c[\\\"samples\\\"] = samples([10, 11, 12], rounds=False)
$3
\" &&
		test_expect_code 2 \"\$VMTAX\" report $2.json >out 2>err &&
		test ! -s out &&
		cat err &&
		grep -q \"'$2.json': cell 'bare-metal/host-thp=never': sample 1 is ok but $4 (a finite number >= 0 is wanted\" err
	"
}
refused 'a metric that is the string NaN' nanstr \
	'c[\"samples\"][1][\"metric\"] = \"NaN\"' 'its metric is the string \"NaN\"'
refused 'a metric that is null' null \
	'c[\"samples\"][1][\"metric\"] = None' 'its metric is null'
refused 'a metric that is missing' missing \
	'del c[\"samples\"][1][\"metric\"]' 'its metric is missing'
refused 'a negative metric' negmetric \
	'c[\"samples\"][1][\"metric\"] = -1' 'its metric is negative (-1)'
refused 'a negative elapsed time' negelapsed \
	'c[\"samples\"][1][\"elapsed_s\"] = -35' 'its elapsed_s is negative (-35)'

test_expect_success 'a failed sample is no error: the header counts what was used' '
	make failed.json "
c[\"samples\"] = samples([10, 11, 12], rounds=False)
c[\"samples\"][1].update(status=\"failed\", metric=None, reason=\"the metric nan is not a finite number >= 0\")
" &&
	"$VMTAX" report failed.json >failed.txt &&
	grep -q "cell bare-metal/host-thp=never: ok, 2 of 3 samples ok" failed.txt &&
	grep -q "sample 1 failed: the metric nan is not a finite number >= 0" failed.txt
'

# A round whose metric is 0 on one side is left out of the pairing (no
# log of 0): the header, which counts samples, says how many rounds were
# paired and why the others were not, in text, md and json.
test_expect_success 'a metric of 0 in a round: the header counts the rounds paired' '
	make zround.json "
b[\"samples\"] = samples([10, 10.5, 10.2, 10.1, 10.4])
c[\"samples\"] = samples([12, 0, 12.4, 12.1, 0])
" &&
	"$VMTAX" report zround.json >zround.txt &&
	grep -q "^ cell bare-metal/host-thp=never: ok, 5 of 5 samples ok; 3 of 5 shared rounds paired (2 left out: a metric of 0)$" zround.txt &&
	grep -q "^ interval: paired log ratios of 3 rounds," zround.txt &&
	"$VMTAX" report -f md zround.json >zround.md &&
	grep -q "^- \`bare-metal/host-thp=never\`: 5 of 5 samples ok; 3 of 5 shared rounds paired (2 left out: a metric of 0)$" zround.md &&
	field zround.json bare-metal/host-thp=never \
		"(c[\"samples_ok\"], c[\"interval\"][\"rounds_shared\"], c[\"interval\"][\"rounds_left_out\"], c[\"interval\"][\"rounds\"])" >got &&
	echo "(5, 5, 2, 3)" >want &&
	test_cmp want got &&
	! grep "left out" zround.txt | grep -v "^ cell bare-metal/host-thp=never:"
'

# The coarser side's boots chain every round into one unit (a guest cell
# of one boot against bare metal): too few units to judge, with the
# reason, not an interval over the rounds (too narrow: nothing measures
# the spread between boots).
test_expect_success 'one boot holds every round: too few units to judge' '
	make oneboot.json "
g[\"samples\"] = samples([12, 12.4, 12.1, 12.6], [0, 0, 0, 0])
b[\"samples\"] = samples([10, 10.5, 10.2, 10.1])
" &&
	"$VMTAX" report oneboot.json >oneboot.txt &&
	grep -q "^ interval: paired log ratios of 4 rounds, 1 boot as units, df 0.0" oneboot.txt &&
	grep -q "^ no interval: too few units to judge (one boot holds every round)$" oneboot.txt &&
	field oneboot.json guest/host-thp=always/guest-thp=always \
		"(c[\"slowdown\"][\"ci95\"], c[\"slowdown\"][\"significant\"], c[\"slowdown\"][\"p\"], c[\"interval\"][\"units\"])" >got &&
	echo "(None, False, None, 1)" >want &&
	test_cmp want got &&
	"$VMTAX" report -f csv oneboot.json >oneboot.csv &&
	grep "^cell,guest/host-thp=always/guest-thp=always," oneboot.csv | grep -q too_few_samples
'

# A baseline whose mean is 0: the slowdown is n/a, and says why.
test_expect_success 'a baseline mean of 0 says so' '
	make zero.json "
b[\"samples\"] = samples([0, 0, 0], rounds=False)
c[\"samples\"] = samples([10, 11, 12], rounds=False)
" &&
	"$VMTAX" report zero.json >zero.txt &&
	grep -q "^THP never host (slowdown n/a: the baseline'"'"'s mean is 0)$" zero.txt &&
	field zero.json bare-metal/host-thp=never "c[\"slowdown_why\"]" >got &&
	echo "the baseline'"'"'s mean is 0" >want &&
	test_cmp want got
'

# A guest baseline and a guest cell in the same 9 rounds, 3 boots each:
# three variances, three names (issue 35 part 4: "between_var" was T2^2 of
# the log ratio in `interval` and S2^2 of the boot means in
# `sampling.boots`, and "welch_df" held a paired interval's units - 1).
test_expect_success 'each variance and df has its own name (json, text)' '
	make kj.json "
d[\"baseline\"] = g[\"id\"]
h = cells[\"guest/host-thp=always/guest-thp=never\"]
g[\"samples\"] = samples([10, 11, 10.5, 14, 13.5, 14.2, 9, 9.4, 9.1],
                         [0, 0, 0, 1, 1, 1, 2, 2, 2])
h[\"samples\"] = samples([15, 16.6, 15.1, 20, 20.4, 21.5, 13.2, 14, 13.1],
                         [0, 0, 0, 1, 1, 1, 2, 2, 2])
" &&
	field kj.json guest/host-thp=always/guest-thp=never \
		"(sorted(c[\"interval\"]), sorted(c[\"sampling\"][\"boots\"]), sorted(c[\"slowdown\"]))" >got &&
	cat >want <<-\EOF &&
	(['"'"'bootstrap'"'"', '"'"'df'"'"', '"'"'log_ratio_between_var'"'"', '"'"'log_ratio_within_var'"'"', '"'"'method'"'"', '"'"'rounds'"'"', '"'"'rounds_left_out'"'"', '"'"'rounds_shared'"'"', '"'"'unit'"'"', '"'"'units'"'"', '"'"'via'"'"'], ['"'"'boot_means_var'"'"', '"'"'n'"'"', '"'"'within_boot_var'"'"'], ['"'"'bounded'"'"', '"'"'ci95'"'"', '"'"'p'"'"', '"'"'paired_df'"'"', '"'"'significant'"'"', '"'"'value'"'"', '"'"'within_noise'"'"'])
	EOF
	test_cmp want got &&
	jq -e "[.. | objects | keys[] | select(. == \"between_var\" or . == \"within_var\")] == []" kj.json.report &&
	"$VMTAX" report kj.json >kj.txt &&
	grep -q "^ boots: 3 boots, sd of the samples within a boot [0-9.]*, sd of the boot means [0-9.]*; interval over boot means$" kj.txt &&
	grep -q "^ interval: paired log ratios of 9 rounds, 3 boots as units, df 2.0; variance components (Kalibera-Jones) of the log ratio: sd within a boot [0-9.]*, between boots (T2) [0-9.]*;" kj.txt &&
	field wide.json bare-metal/host-thp=never "\"welch_df\" in c[\"slowdown\"] and \"paired_df\" not in c[\"slowdown\"]" >got &&
	echo True >want &&
	test_cmp want got
'

# results.json's variance object: the new names (log_within_var,
# log_between_var) and, for files written before, the old ones validate;
# neither does not.
test_expect_success PYTHON3 'results.json variance: new and old names validate, neither does not' '
	for v in new old none; do
		make var-$v.json "
names = {\"new\": (\"log_within_var\", \"log_between_var\"),
         \"old\": (\"within_var\", \"between_var\"), \"none\": (\"w\", \"b\")}[\"$v\"]
g[\"variance\"] = {\"of\": \"log(metric)\", \"boots\": 2, \"samples_per_boot\": 1.0,
                  names[0]: None, names[1]: 0.0025, \"between_clamped\": False}
" || exit 1
	done &&
	python3 "$TOP/tests/check-results.py" var-new.json &&
	python3 "$TOP/tests/check-results.py" var-old.json &&
	! python3 "$TOP/tests/check-results.py" var-none.json 2>err &&
	grep -q "variance" err
'

# The fixture's bare-metal cell at never: the paired interval is
# [-66.23%, +996.94%] about +92.48%; its header printed "±531.58%", half
# the width, as if it were symmetric.
test_expect_success 'a cell header prints its interval, never ± half of it' '
	"$VMTAX" report "$src" >iv.txt &&
	grep -q "^THP never host (slowdown +92.48% \[-66.23%, +996.94%\])$" iv.txt &&
	grep -q "^ slowdown +92.48%, 95% interval \[-66.23%, +996.94%\] (paired rounds)" iv.txt &&
	grep -q "^THP never guest, TCG + THP always host (slowdown +22.66% \[+18.52%, +26.95%\] \*)$" iv.txt &&
	grep -q "^ stopped: repeat (half-width 531.58%, 4 samples)$" iv.txt &&
	! grep -q "±[0-9u]" iv.txt
'

# report --help said "Fieller" for every cell; it lists each kind.
test_expect_success 'report --help names each kind of interval' '
	"$VMTAX" report --help >help &&
	grep -q "^  Fieller (Welch.s df)  order = cells" help &&
	grep -q "^  paired rounds         interleaved" help &&
	grep -q "^  paired, bridged       interleaved, no round shared" help &&
	grep -q "^  unbounded: WHY        too few samples" help
'

# A bridged cell has no bootstrap interval; docs/sampling.md said it did.
test_expect_success 'a bridged cell: no bootstrap, and the docs say so' '
	cp "$src" bridged.json &&
	field bridged.json guest/host-thp=never/guest-thp=never \
		"(c[\"interval\"][\"method\"], c[\"interval\"][\"bootstrap\"])" >got &&
	echo "('"'"'paired, bridged'"'"', [None, None])" >want &&
	test_cmp want got &&
	grep -q "^| shares rounds with the baseline .*bootstrap.*interval is printed beside it, never instead" "$TOP/docs/sampling.md" &&
	grep -q "^| shares no round with the baseline, .*; no bootstrap (JSON .interval.bootstrap. is .\[null, null\].)" "$TOP/docs/sampling.md"
'

test_done
