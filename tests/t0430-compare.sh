#!/bin/sh
# vmtax compare: two runs cell by cell, one axis of one run (--by), and the
# refusals (different workloads or metrics, bad usage) with exit status 2.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

A="$TOP/tests/fixtures/results-demo.json"
B="$TOP/tests/fixtures/results-demo-b.json"
HW="$TOP/tests/fixtures/results-hw.json"
export A B HW

test_expect_success 'two runs: a delta with an interval per measured cell' '
	test_expect_code 1 "$VMTAX" compare "$A" "$B" >out 2>err &&
	cat out err &&
	grep -qx "vmtax: compare: 4 of 10 rows changed significantly: .bare-metal/host-thp=always. run B +2.7%, .*; the runs are NOT consistent with a re-run (exit 1; --exit-zero: 0)" err &&
	test "$(grep -c "^ A .* -> B .*: delta [+-][0-9.]*% \[[+-][0-9.]*%, [+-][0-9.]*%\], p " out)" = 6 &&
	grep -q "^ A 1.915 s -> B 1.966 s: delta +2.67% \[+0.88%, +4.45%\], p 0.0225 \*$" out &&
	grep -q "within noise" out
'

test_expect_success 'two runs: skipped cells are shown with their reason' '
	"$VMTAX" compare --exit-zero "$A" "$B" >out 2>err &&
	test ! -s err &&
	test "$(grep -c "no delta: run A: skipped: paging cannot be changed" out)" = 4
'

test_expect_success 'a run against itself: no difference, within noise' '
	"$VMTAX" compare "$A" "$A" >out 2>err &&
	test ! -s err &&
	! grep -q "\*$" out &&
	grep -q "delta +0.00% \[-0.29%, +0.29%\], p 1.0000 within noise" out
'

test_expect_success 'run directories are accepted' '
	mkdir -p a b && cp "$A" a/results.json && cp "$B" b/results.json &&
	test_expect_code 1 "$VMTAX" compare a b >dirs &&
	test_expect_code 1 "$VMTAX" compare "$A" "$B" >files &&
	sed 1,3d dirs >d1 && sed 1,3d files >f1 && cmp d1 f1
'

test_expect_success 'every format renders a comparison, the numbers agree' '
	for f in text md csv json html; do
		test_expect_code 1 "$VMTAX" compare --format $f "$A" "$B" >cmp.$f || exit 1
	done &&
	grep -q "| THP always host | A | 1.915 | B | 1.966 | +2.67% | \[+0.88%, +4.45%\] | 0.0225 | \* |" cmp.md &&
	grep -q "^compare,bare-metal/host-thp=always,.*,0.0266526467,0.00879372833,0.0445302323,0.0225453902," cmp.csv &&
	test "$(grep -c "^compare," cmp.csv)" = 10 &&
	grep -q "\"schema\": \"vmtax-compare/1\"" cmp.json &&
	grep -q "\"value\": 0.0266526467" cmp.json &&
	grep -q "<td>+2.67%</td>" cmp.html
'

test_expect_success '--by host_thp pairs cells differing only in host THP' '
	test_expect_code 1 "$VMTAX" compare "$HW" --by host_thp >by &&
	cat by &&
	test "$(grep -c "^ always .* -> never .*: delta" by)" = 3 &&
	test "$(grep -c "^ always .* -> madvise .*: delta" by)" = 1 &&
	grep -q "cell guest/paging=ept/host-thp=never/guest-thp=never vs guest/paging=ept/host-thp=always/guest-thp=never" by
'

test_expect_success '--by where: each guest cell against bare metal at its host THP' '
	test_expect_code 1 "$VMTAX" compare "$HW" --by where >by &&
	test "$(grep -c "^ bare-metal .* -> guest .*: delta" by)" = 6 &&
	grep -q "guest/paging=shadow/host-thp=never/guest-thp=never vs bare-metal/host-thp=never" by
'

test_expect_success '--by paging: EPT off against EPT on' '
	test_expect_code 1 "$VMTAX" compare "$HW" --by paging --format csv >by.csv &&
	test "$(grep -c "^compare,guest/paging=shadow/.*,ept,shadow," by.csv)" = 3
'

test_expect_success 'different workloads are refused with exit 2' '
	sed "s/\"name\": \"randwalk\"/\"name\": \"stream\"/" "$B" >other.json &&
	test_expect_code 2 "$VMTAX" compare "$A" other.json >out 2>err &&
	test ! -s out &&
	grep -q "cannot compare .* (workload .randwalk.) with .*other.json. (workload .stream.)" err
'

test_expect_success 'different metrics are refused with exit 2' '
	sed "s/\"metric\": \"elapsed\"/\"metric\": \"regex\"/; s/\"unit\": \"s\"/\"unit\": \"MB\/s\"/" \
		"$B" >metric.json &&
	test_expect_code 2 "$VMTAX" compare "$A" metric.json 2>err &&
	grep -q "cannot compare .* (metric .elapsed. in .s., lower is better) with .* (metric .regex. in .MB/s." err
'

test_expect_failure_code 'one run without --by (exit 2)' 2 '"$VMTAX" compare "$A"'
test_expect_failure_code '--by with two runs (exit 2)' 2 '"$VMTAX" compare "$A" "$B" --by host_thp'
test_expect_failure_code 'unknown axis (exit 2)' 2 '"$VMTAX" compare "$HW" --by colour'
test_expect_failure_code 'a corrupt run (exit 2)' 2 '
	printf "{" >bad.json &&
	"$VMTAX" compare "$A" bad.json'
test_expect_success 'compare --help' '
	"$VMTAX" compare --help >help && grep -q -- "--by AXIS" help
'

VCPUS="$TOP/tests/fixtures/results-vcpus.json"
KERNELS="$TOP/tests/fixtures/results-kernels.json"
export VCPUS KERNELS

test_expect_success '--by vcpus: each guest cell against the same THP pair at 1 vcpu' '
	test_expect_code 1 "$VMTAX" compare "$VCPUS" --by vcpus >by &&
	cat by &&
	grep -q "by vcpus: each cell against vcpus=1" by &&
	test "$(grep -c "^ 1 .* -> 2 .*: delta" by)" = 4 &&
	test "$(grep -c "^ 1 .* -> 4 .*: delta" by)" = 3 &&
	grep -q "cell guest/host-thp=never/guest-thp=never/vcpus=2 vs guest/host-thp=never/guest-thp=never/vcpus=1" by &&
	grep -q "^ 1 156.174 s -> 4 44.862 s: delta -71.27% \[-71.51%, -71.04%\], p <0.0001 \*$" by &&
	grep -q "vcpus 1 -> 4: no delta: vcpus=4: failed: 3 of 3 samples failed" by
'

test_expect_success '--by kernel: a text axis of guest cells' '
	test_expect_code 1 "$VMTAX" compare "$KERNELS" --by kernel --format csv >by.csv &&
	test "$(grep -c "^compare,guest/.*/kernel=vmlinuz-6.12.5,.*,vmlinuz-6.1.0-13-amd64,vmlinuz-6.12.5," by.csv)" = 2
'

test_expect_success '--by where in a run with axes ignores the guest-only ones' '
	test_expect_code 1 "$VMTAX" compare "$VCPUS" --by where >by &&
	test "$(grep -c "^ bare-metal .* -> guest .*: delta" by)" = 11 &&
	grep -q "guest/host-thp=never/guest-thp=always/vcpus=4 vs bare-metal/host-thp=never" by
'

test_expect_success '--by host-thp (the axis name) and host_thp agree' '
	test_expect_code 1 "$VMTAX" compare "$HW" --by host-thp >dash &&
	test_expect_code 1 "$VMTAX" compare "$HW" --by host_thp >under &&
	sed 2d dash >d && sed 2d under >u && cmp d u
'

test_expect_success 'an unknown axis lists the run'"'"'s axes' '
	! "$VMTAX" compare "$VCPUS" --by colour 2>err &&
	grep -q "unknown axis .colour. (axes of .*results-vcpus.json.: where|host-thp|guest-thp|vcpus)" err
'

KVMA="$TOP/tests/fixtures/results-kvm.json"
KVMB="$TOP/tests/fixtures/results-kvm-b.json"
export KVMA KVMB

test_expect_success 'kvm: two runs show the KVM deltas of guest cells with evidence' '
	test_expect_code 1 "$VMTAX" compare "$KVMA" "$KVMB" >kvm &&
	cat kvm &&
	test "$(grep -c "^ KVM: " kvm)" = 2 &&
	grep -q "^ KVM: exits per sample 1913.3 -> 2035.3 (+6.38%); 2M share 99.46% -> 64.19% (-35.27 points); most changed: npf 116.0 -> 220.3 (+104.3), interrupt 785.7 -> 793.7 (+8.0), msr 629.0 -> 635.0 (+6.0)$" kvm &&
	grep -q "^ KVM: exits per sample 3599.0 -> 3164.3 (-12.08%); 2M share 90.27% -> 90.27% (+0.00 points); most changed: PF excp 1807.0 -> 1445.7 (-361.3)" kvm &&
	sed -n "/^THP always guest, NPT on + THP never host/,\$p" kvm >nokvm &&
	! grep -q KVM nokvm
'

test_expect_success 'kvm: --by paging puts NPT off against NPT on, a reason one side lacks at 0' '
	test_expect_code 1 "$VMTAX" compare "$KVMA" --by paging >bypg &&
	grep -q "^ KVM: exits per sample 1913.3 -> 3599.0 (+88.10%); 2M share 99.46% -> 90.27% (-9.19 points); most changed: PF excp 0.0 -> 1807.0 (+1807.0), npf 116.0 -> 0.0 (-116.0), interrupt 785.7 -> 706.3 (-79.3)$" bypg
'

test_expect_success 'kvm: every format carries the KVM deltas, the numbers agree' '
	for f in md csv json html; do
		test_expect_code 1 "$VMTAX" compare --format $f "$KVMA" "$KVMB" >kcmp.$f || exit 1
	done &&
	grep -q "^- THP always guest, NPT on + THP always host (A -> B): exits per sample 1913.3 -> 2035.3 (+6.38%); 2M share 99.46% -> 64.19% (-35.27 points)" kcmp.md &&
	grep -q "^kvm,guest/paging=hw/host-thp=always/guest-thp=always,share_2m,guest/paging=hw/host-thp=always/guest-thp=always,A,B,3,0.994623899,3,0.641879377,-0.352744522," kcmp.csv &&
	grep -q "^kvm,guest/paging=hw/host-thp=always/guest-thp=always,exit:npf,.*,A,B,3,116,3,220.333333,104.333333," kcmp.csv &&
	test "$(grep -c "^kvm," kcmp.csv)" = 10 &&
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
r = {x[\"id\"]: x for x in d[\"rows\"]}
k = r[\"guest/paging=hw/host-thp=always/guest-thp=always\"][\"kvm\"]
assert abs(k[\"share_2m\"][\"delta\"] + 0.352744522) < 1e-8, k
assert k[\"most_changed\"][0][\"reason\"] == \"npf\"
assert r[\"guest/paging=hw/host-thp=never/guest-thp=always\"][\"kvm\"] is None
assert r[\"bare-metal/host-thp=always\"][\"kvm\"] is None
" kcmp.json &&
	test "$(grep -c "<tr data-id=\"guest/" kcmp.html)" = 2 &&
	grep -q "<td>99.46% -&gt; 64.19%</td><td>-35.27</td>" kcmp.html
'

test_expect_success 'kvm: runs without KVM evidence compare as before' '
	for f in text md csv json html; do
		test_expect_code 1 "$VMTAX" compare --format $f "$A" "$B" >plain.$f || exit 1
	done &&
	! grep -q "KVM" plain.text &&
	! grep -q "KVM" plain.md &&
	! grep -q "^kvm," plain.csv &&
	! grep -q "\"kvm\"" plain.json &&
	! grep -q "<h2>KVM" plain.html
'

# --effect: each run's slowdowns against its own baseline (the seeds'
# references against runs of their configs are in t0160-reference).
HINT="$TOP/tests/fixtures/results-hint-sweep.json"
PATHO="$TOP/tests/fixtures/results-thp-pathology.json"
export HINT PATHO

test_expect_success 'effect: two runs of one workload, each against its own baseline' '
	"$VMTAX" compare --effect "$A" "$B" >eff &&
	cat eff &&
	"$VMTAX" report "$B" >b.txt &&
	want=$(awk "index(\$0, \" cell guest/paging=tcg/host-thp=always/guest-thp=always: ok,\") == 1 { on = 1; next }
		on && /^ slowdown / { sub(/,\$/, \"\", \$2); print \$2; exit }" b.txt) &&
	echo "B: $want" &&
	grep -q "^ A [+-][0-9.]*% \[.*\] -> B $want \[.*\]: difference [+-][0-9.]* points, ratio [+-][0-9.]*%$" eff &&
	grep -qx " A baseline (0 by definition) -> B baseline (0 by definition): difference 0 by definition" eff &&
	test "$(grep -c "no slowdowns: run A: skipped: paging cannot be changed" eff)" = 4 &&
	! grep -q "geometric mean" eff
'

test_expect_success 'effect: a run against itself differs by 0 points in every measured row' '
	"$VMTAX" compare --effect "$HW" "$HW" >self &&
	n=$(jq "[.cells[] | select(.status == \"ok\")] | length" "$HW") &&
	test "$(grep -c ": difference +0.00 points, ratio +0.00%$" self)" = $((n - 1)) &&
	test "$(grep -c ": difference 0 by definition$" self)" = 1
'

test_expect_success '--pair without --effect: a plain delta between the paired cells' '
	test_expect_code 1 "$VMTAX" compare "$A" "$B" --pair bare-metal/host-thp=always,bare-metal/host-thp=never >pair &&
	grep -qx "A THP always host / B THP never host" pair &&
	grep -qx " cell bare-metal/host-thp=never vs bare-metal/host-thp=always" pair &&
	grep -qx " A 1.915 s -> B 2.453 s: delta +28.13% \[+26.39%, +29.87%\], p 0.0001 \*" pair &&
	grep -qx " run A -> B: no delta: run B.s cell .bare-metal/host-thp=never. is paired with .bare-metal/host-thp=always." pair
'

# a run whose baseline cell was skipped, one without a baseline, one whose
# baseline is no cell
jq "(.cells[] | select(.id == \"bare-metal/host-thp=always\")) |= (.status = \"skipped\" | .reason = \"host THP cannot be set\" | .samples = [])" \
	"$HINT" >"$TRASH/skipbase.json"
jq "del(.baseline)" "$HINT" >"$TRASH/nobase.json"
jq ".baseline = \"bare-metal/host-thp=sometimes\"" "$HINT" >"$TRASH/badbase.json"
# ARGS<TAB>the error it must give (a grep -E pattern), one case a line
cat >"$TRASH/bad-effect" <<'EOF'
--effect $PATHO $HINT --pair x,bare-metal/host-thp=never	^vmtax: error: --pair: run A \('.*results-thp-pathology.json'\) has no cell 'x' \(its cells: bare-metal/host-thp=always\|bare-metal/host-thp=never\|guest/host-thp=always/guest-thp=always\|guest/host-thp=never/guest-thp=never\)$
--effect $PATHO $HINT --pair bare-metal/host-thp=never,bare-metal/host.split=4:4	^vmtax: error: --pair: run B \('.*results-hint-sweep.json'\) has no cell 'bare-metal/host.split=4:4' \(its cells: bare-metal/host-thp=always\|
--effect $PATHO $HINT --pair bare-metal/host-thp=never	^vmtax: error: --pair 'bare-metal/host-thp=never': expected REF_ID,ID
--effect $PATHO $HINT --pair a,b,c	^vmtax: error: --pair 'a,b,c': expected REF_ID,ID \(a cell id of run A, a comma, a cell id of the later runs\)$
--effect $PATHO $HINT --pair ,b	^vmtax: error: --pair ',b': expected REF_ID,ID
--effect $PATHO $HINT --pair bare-metal/host-thp=never,bare-metal/host-thp=never --pair bare-metal/host-thp=always,bare-metal/host-thp=never	^vmtax: error: --pair: cell 'bare-metal/host-thp=never' of the later runs is paired twice \(with 'bare-metal/host-thp=never' and 'bare-metal/host-thp=always'\)$
$HINT --by where --effect	^vmtax: error: --effect compares runs, each against its own baseline; it does not go with --by$
$HINT --by where --pair a,b	^vmtax: error: --pair aligns the cells of two runs; it does not go with --by$
$PATHO $HINT --baseline B=bare-metal/host-thp=never	^vmtax: error: --baseline sets what a run's slowdowns are against; it goes with --effect only$
--effect $PATHO $HINT --baseline C=bare-metal/host-thp=never	^vmtax: error: --baseline C=bare-metal/host-thp=never: there is no run C \(2 runs: A to B\)$
--effect $PATHO $HINT --baseline b=bare-metal/host-thp=never	^vmtax: error: --baseline 'b=bare-metal/host-thp=never': expected RUN=ID
--effect $PATHO $HINT --baseline B=bare-metal/host-thp=sometimes	^vmtax: error: '.*results-hint-sweep.json': no cell 'bare-metal/host-thp=sometimes' to take as the baseline \(its cells: bare-metal/host-thp=always\|
--effect $PATHO skipbase.json	^vmtax: error: 'skipbase.json': baseline 'bare-metal/host-thp=always' has no ok samples \(skipped: host THP cannot be set\): the run has no slowdowns to compare$
--effect $PATHO nobase.json	^vmtax: error: 'nobase.json': no baseline cell id$
--effect $PATHO badbase.json	^vmtax: error: 'badbase.json': baseline 'bare-metal/host-thp=sometimes' is not a cell of this run$
$PATHO $HINT	^vmtax: error: cannot compare .* \(workload 'sparse-touch'\) with .* \(workload 'wss-sweep'\); use --effect to compare each run's slowdowns against its own baseline$
EOF

test_expect_success 'effect: bad input, each with its own reason (exit 2)' '
	n=0 &&
	while IFS="	" read -r args want; do
		n=$((n + 1)) &&
		eval "set -- $args" &&
		echo "$n: vmtax compare $*" &&
		test_expect_code 2 "$VMTAX" compare "$@" >out 2>err &&
		cat err &&
		test ! -s out && test "$(wc -l <err)" = 1 &&
		grep -Eq "$want" err || { echo "case $n: want: $want"; exit 1; }
	done <bad-effect &&
	test "$n" = 16
'

test_expect_success 'hosts alike: no note' '
	for f in text md csv json html; do
		test_expect_code 1 "$VMTAX" compare --format $f "$A" "$B" >same.$f || exit 1
	done &&
	! grep -qi "note" same.text && ! grep -q "Note" same.md &&
	! grep -q "^note," same.csv && ! grep -q "\"notes\"" same.json &&
	! grep -q "class=\"note\"" same.html
'

test_expect_success 'hosts that differ: refused, naming what differs (exit 2)' '
	jq ".run.host.cpu_model = \"AMD EPYC 9654\" | .run.host.kernel = \"6.12.5\"" \
		"$B" >other-host.json &&
	test_expect_code 2 "$VMTAX" compare "$A" other-host.json >out 2>err &&
	cat err &&
	test ! -s out &&
	grep -qxF "vmtax: error: '"'"'other-host.json'"'"' (run B) ran on another host than '"'"'$A'"'"' (run A): cpu_model ('"'"'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz'"'"' vs '"'"'AMD EPYC 9654'"'"'), kernel ('"'"'6.1.0-13-amd64'"'"' vs '"'"'6.12.5'"'"'); its differences would be the hosts'"'"' too (--allow-unlike compares them anyway)" err &&
	test_expect_code 2 "$VMTAX" compare --exit-zero "$A" "$A" other-host.json 2>err3 &&
	grep -qF "(run C) ran on another host than" err3
'

test_expect_success 'hosts that differ, --allow-unlike: every format names what differs' '
	for f in text md csv json html; do
		test_expect_code 1 "$VMTAX" compare --allow-unlike --format $f "$A" other-host.json >host.$f || exit 1
	done &&
	note="run B ran on another host than run A: cpu_model ('"'"'Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz'"'"' vs '"'"'AMD EPYC 9654'"'"'), kernel ('"'"'6.1.0-13-amd64'"'"' vs '"'"'6.12.5'"'"'); its differences are the hosts'"'"' too" &&
	grep -qxF "note: $note" host.text &&
	grep -qF "**Note**: run B ran on another host than run A: cpu_model" host.md &&
	grep -qxF "note,,,,,,,,,,,,,,,,,\"$note\"" host.csv &&
	jq -e --arg n "$note" ".notes == [\$n]" host.json &&
	grep -qF "<p class=\"note\">Note: run B ran on another host than run A: cpu_model (&#39;Intel" host.html &&
	"$VMTAX" compare --effect "$A" other-host.json >host.effect &&
	grep -qxF "note: $note" host.effect
'

# Two interleaved runs compare each cell's paired slowdown (docs/sampling.md,
# "Comparing interleaved runs"): run B is run A with one guest cell 10%
# slower in every sample, so only that row moves, by exactly +10%.
IL="$TOP/tests/fixtures/results-interleaved.json"
export IL
test_expect_success 'interleaved runs: rows compare the paired slowdowns, a note says so' '
	jq "(.cells[] | select(.id == \"guest/host-thp=always/guest-thp=always\") | .samples[]) |= (.metric *= 1.1 | .elapsed_s *= 1.1)" \
		"$IL" >il-b.json &&
	"$VMTAX" compare "$IL" il-b.json >il.cmp 2>err &&
	cat il.cmp &&
	test ! -s err &&
	grep -qxF "note: the runs were interleaved: a cell'"'"'s change is that of its paired slowdown against the baseline '"'"'bare-metal/host-thp=always'"'"' in each run (the host'"'"'s drift within a run cancels); the baseline'"'"'s own row compares its means" il.cmp &&
	grep -qx " A 0.836 s -> B 0.920 s: delta +10.00% \[.*\], p .* within noise" il.cmp &&
	test "$(grep -c "delta +0.00%" il.cmp)" = 5 &&
	# the csv: a paired row'"'"'s df is paired_df, the baseline'"'"'s (its means,
	# Fieller) welch_df, as the json names them
	"$VMTAX" compare "$IL" il-b.json --format csv >il.csv &&
	"$VMTAX" compare "$IL" il-b.json --format json >il.json &&
	python3 -c "
import csv, json, sys
js = {r[\"id\"]: r[\"delta\"] for r in json.load(open(sys.argv[2]))[\"rows\"]}
n = 0
for r in csv.DictReader(open(sys.argv[1], newline=\"\")):
    if r[\"kind\"] != \"compare\":
        continue
    d = js[r[\"id\"]]
    col = \"paired_df\" if \"paired_df\" in d else \"welch_df\"
    other = \"welch_df\" if col == \"paired_df\" else \"paired_df\"
    assert r[other] == \"\", r
    assert abs(float(r[col]) - d[col]) <= 1e-8 * abs(d[col]), (r, d)
    n += col == \"paired_df\"
print(n)
" il.csv il.json >paired.n &&
	echo 5 >want &&
	test_cmp want paired.n &&
	"$VMTAX" compare "$A" "$A" >aa.cmp &&
	! grep -q "interleaved" aa.cmp
'

# Two runs of one config where no row has a bounded interval (one sample a
# cell): compare cannot judge whether they are re-runs, says so, and exits
# 0, as vmtax calibrate does (docs/sampling.md, "Consistent with a re-run").
test_expect_success 'two runs of one config, no bounded row: cannot judge, exit 0' '
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
for c in d[\"cells\"]:
    c[\"samples\"] = c[\"samples\"][:1]
json.dump(d, open(sys.argv[2], \"w\"))
" "$A" one.json &&
	"$VMTAX" compare one.json one.json >one.cmp 2>err &&
	test ! -s err &&
	grep -q "no row has a bounded interval: cannot judge whether consistent with a re-run" one.cmp &&
	! grep -q "NOT consistent" one.cmp &&
	"$VMTAX" compare -f json one.json one.json >one.cmp.json &&
	jq -e ".rerun | test(\"cannot judge\")" one.cmp.json
'

# The exit status is the verdict (as diff's): ARGS<TAB>STATUS<TAB>what
# stderr must be (a grep -E pattern; empty: nothing), one case a line.
cat >"$TRASH/verdicts" <<'EOF'
$A $A	0	
$A $B	1	^vmtax: compare: 4 of 10 rows changed significantly: 'bare-metal/host-thp=always' run B \+2\.7%, 'bare-metal/host-thp=never' run B \+2\.6%, .*; the runs are NOT consistent with a re-run \(exit 1; --exit-zero: 0\)$
$A $B --exit-zero	0	
$A $B --threshold 3	1	^vmtax: compare: 2 of 10 rows changed significantly beyond 3%: 'guest/paging=tcg/host-thp=always/guest-thp=always' run B \+3\.3%, 'guest/paging=tcg/host-thp=never/guest-thp=always' run B \+3\.6%; the runs are NOT
$A $B --threshold 5%	1	^vmtax: compare: the runs are NOT consistent with a re-run \(exit 1; --exit-zero: 0\)$
$HW --by host_thp	1	^vmtax: compare: 3 of 4 rows changed significantly: 'bare-metal/host-thp=never' \+4\.0%
$HW --by host_thp --threshold 10	1	^vmtax: compare: 1 of 4 rows changed significantly beyond 10%: 'guest/paging=ept/host-thp=never/guest-thp=never' \+10\.6% \(exit 1
$HW --by host_thp --threshold 50	0	
$KVMA $KVMB --threshold 5	1	^vmtax: compare: 1 of 5 rows changed significantly beyond 5%: 'guest/paging=shadow/host-thp=always/guest-thp=always' run B -7\.0%; the runs are NOT
--effect $A $B	0	
$A $A --threshold -1	2	^vmtax: error: --threshold '-1': expected a percentage >= 0
$A $A --threshold 5x	2	^vmtax: error: --threshold '5x': expected a percentage >= 0
$A $A --threshold nan	2	^vmtax: error: --threshold 'nan': expected a percentage >= 0
$A other.json --exit-zero	2	^vmtax: error: cannot compare
EOF

test_expect_success 'the exit status is the verdict: each case its status and its line' '
	n=0 &&
	while IFS="	" read -r args code want; do
		n=$((n + 1)) &&
		eval "set -- $args" &&
		echo "$n: vmtax compare $* (want $code)" &&
		test_expect_code $code "$VMTAX" compare "$@" >out 2>err &&
		cat err &&
		if test -z "$want"
		then
			test ! -s err
		else
			test "$(wc -l <err)" = 1 && grep -Eq "$want" err
		fi || { echo "case $n: want: $want"; exit 1; }
	done <verdicts &&
	test "$n" = 14
'

test_expect_success 'compare --help names --effect, --pair and --baseline' '
	"$VMTAX" compare --help >help &&
	grep -q -- "--effect  " help && grep -q -- "--pair REF_ID,ID  " help &&
	grep -q -- "--baseline RUN=ID  " help &&
	grep -q -- "--threshold PCT  " help && grep -q -- "--exit-zero  " help &&
	grep -q -- "--allow-unlike  " help &&
	grep -q "^exit status: 0 no significant change, 1 a significant change" help
'

test_done
