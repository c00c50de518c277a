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
	for s in "THP never host (slowdown +4.06%" \
		"THP always guest, EPT on + THP always host (slowdown +5.67%" \
		"THP never guest, EPT on + THP always host (slowdown +12.71%" \
		"THP never guest, EPT on + THP never host (slowdown +24.81%" \
		"THP always guest, EPT off + THP always host (slowdown +198.33%" \
		"THP never guest, EPT off + THP always host (slowdown +254.43%" \
		"THP never guest, EPT off + THP never host (slowdown +260.15%"; do
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
	grep -E "^ never +never +$(grep "^bare-metal/host-thp=never " expected.slowdowns | cut -d" " -f2)% unbounded +$(grep "^guest/paging=tcg/host-thp=never/guest-thp=never " expected.slowdowns | cut -d" " -f2)% unbounded +skipped +skipped$" small.txt &&
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
	grep -E "^\| never \| never \| [0-9.]+% unbounded \| [0-9.]+% unbounded \| skipped \| skipped \|$" small.md &&
	while read -r line; do
		id=${line%%: skipped: *} reason=${line#*: skipped: } &&
		grep -qxF -e "- \`$id\` skipped: $reason" small.md ||
			{ echo "md: missing $id"; exit 1; }
	done <expected.skipped
'
# Seeds 001, 003 and 004, transcribed (docs/seed-configs.md): each number in
# the reference is checked against the seed's text next to it, and each
# slowdown the report prints is worked out here from those numbers.
R=$TOP/configs/reference
SEEDS="seed-001-stream seed-003-equake seed-003-equake-clean seed-004-hint"
# seed_slowdown FILE ID: the slowdown of cell ID against the baseline, in
# percent with two decimals, from the samples (one each) and the direction
seed_slowdown() {
	jq -r --arg id "$2" '
		(.baseline) as $b | (.workload.better) as $d |
		([.cells[] | select(.id == $b) | .samples[0].metric][0]) as $r |
		.cells[] | select(.id == $id) | .samples[0].metric as $m |
		if $d == "higher" then $r / $m else $m / $r end' "$1" |
	awk '{ printf "%+.2f\n", ($1 - 1) * 100 }'
}
# cell_slowdown ID <report: the slowdown line under cell ID
cell_slowdown() {
	awk -v c=" cell $1: ok," '
		index($0, c) == 1 { on = 1; next }
		on && /^ slowdown / { sub(/,$/, "", $2); print $2; exit }'
}

test_expect_success 'the seed references follow the results schema' '
	for f in $SEEDS; do
		python3 "$TOP/tests/check-results.py" "$R/$f.json" || exit 1
	done
'
# The cell ids runs of the seed configs made (the runs of
# docs/seed-configs.md, 2026-12-03), bare metal only: the seeds ran there.
cat >"$TRASH/config.ids" <<'EOF'
configs/stream-thp.ini bare-metal/host-thp=always/ELEMENTS=262144
configs/stream-thp.ini bare-metal/host-thp=always/ELEMENTS=4194304
configs/stream-thp.ini bare-metal/host-thp=never/ELEMENTS=262144
configs/stream-thp.ini bare-metal/host-thp=never/ELEMENTS=4194304
configs/thp-pathology.ini bare-metal/host-thp=always
configs/thp-pathology.ini bare-metal/host-thp=never
EOF
test_expect_success 'each seed reference carries its config; 001 and 003 its cell ids' '
	for f in $SEEDS; do
		cfg=$(jq -r .run.config_path "$R/$f.json") &&
		jq -j .run.config_text "$R/$f.json" | cmp - "$TOP/$cfg" || exit 1
		for c in $(jq -r ".cells[].id" "$R/$f.json"); do
			echo "$f: $c ($cfg)" &&
			case $f in
			seed-004-*) jq -e ".run.source | test(\"pair only with this file\")" \
				"$R/$f.json" >/dev/null ;;
			*) grep -qxF "$cfg $c" config.ids ;;
			esac || exit 1
		done || exit 1
	done
'
test_expect_success 'seed 001: the one figure, 10% faster with huge pages' '
	f=$R/seed-001-stream.json &&
	grep -qF "So about a 10% speedup on x86 for most STREAM configurations" \
		"$R/seed-001-stream.txt" &&
	jq -e ".run.source | test(\"ONE FIGURE\")" "$f" &&
	jq -e "[.cells[] | .samples | length] == [1, 1]" "$f" &&
	jq -e "[.cells[] | .samples[0].metric] == [1, 1.1]" "$f" &&
	want=$(seed_slowdown "$f" bare-metal/host-thp=always/ELEMENTS=4194304) &&
	test "$want" = -9.09 &&
	"$VMTAX" report "$f" >s001.txt &&
	got=$(cell_slowdown bare-metal/host-thp=always/ELEMENTS=4194304 <s001.txt) &&
	echo "got $got, want $want%" && test "$got" = "$want%"
'
test_expect_success 'seed 003: real, user and sys as the seed has them' '
	grep -E "^(real|user|sys) " "$R/seed-003-equake.txt" |
		awk "{ split(\$2, t, /[ms]/); printf \"%.3f\\n\", t[1] * 60 + t[2] }" >seed.times &&
	test "$(wc -l <seed.times)" = 12 &&
	for f in seed-003-equake seed-003-equake-clean; do
		jq -r ".cells[] | .samples[0] | .elapsed_s, .user_s, .sys_s" \
			"$R/$f.json" | awk "{ printf \"%.3f\\n\", \$1 }" || exit 1
	done >ref.times &&
	cmp seed.times ref.times &&
	head -1 seed.times | grep -qx 1534.052 &&
	for f in seed-003-equake seed-003-equake-clean; do
		jq -e "all(.cells[].samples[0]; .metric == .elapsed_s)" "$R/$f.json" || exit 1
	done
'
test_expect_success 'seed 003: the report gives THP always against never' '
	for f in seed-003-equake seed-003-equake-clean; do
		want=$(seed_slowdown "$R/$f.json" bare-metal/host-thp=always) &&
		"$VMTAX" report "$R/$f.json" >"$f.out" &&
		got=$(cell_slowdown bare-metal/host-thp=always <"$f.out") &&
		echo "$f: got $got, want $want%" &&
		test "$got" = "$want%" || exit 1
	done &&
	test "$(seed_slowdown "$R/seed-003-equake.json" bare-metal/host-thp=always)" = +410.71 &&
	test "$(seed_slowdown "$R/seed-003-equake-clean.json" bare-metal/host-thp=always)" = +345.83
'
test_expect_success 'seed 004: the QUIPs as quoted, 4:4 a 0.01% win' '
	f=$R/seed-004-hint.json &&
	grep -qF "1000Hz, 3:1, PAE:    25513978.295333 net QUIPs" "$R/seed-004-hint.txt" &&
	grep -qF "1000Hz, 4:4, PAE:    25515998.582834 net QUIPs" "$R/seed-004-hint.txt" &&
	jq -e "[.cells[] | .samples[0].metric] == [25513978.295333, 25515998.582834]" "$f" &&
	want=$(seed_slowdown "$f" bare-metal/host.split=4:4) &&
	test "$want" = -0.01 &&
	"$VMTAX" report "$f" >s004.txt &&
	got=$(cell_slowdown bare-metal/host.split=4:4 <s004.txt) &&
	echo "got $got, want $want%" && test "$got" = "$want%"
'
test_expect_success 'compare: each seed reference against itself pairs every cell' '
	for f in $SEEDS; do
		"$VMTAX" compare "$R/$f.json" "$R/$f.json" >"$f.cmp" &&
		n=$(jq ".cells | length" "$R/$f.json") &&
		test "$(grep -c "delta +0.00%" "$f.cmp")" = "$n" &&
		grep -qx "geometric mean of (1 + delta) over $n cells: +0.00%" "$f.cmp" ||
			{ echo "$f: not paired"; exit 1; }
	done
'
# The two kernels are what differs between the runs' hosts: --allow-unlike.
test_expect_success 'compare: seed 003 clean kernel against the vclear kernel' '
	test_expect_code 2 "$VMTAX" compare "$R/seed-003-equake.json" "$R/seed-003-equake-clean.json" 2>err &&
	grep -qF "ran on another host than '"'"'$R/seed-003-equake.json'"'"' (run A): kernel (" err &&
	"$VMTAX" compare --allow-unlike "$R/seed-003-equake.json" "$R/seed-003-equake-clean.json" >k.cmp &&
	for id in bare-metal/host-thp=always bare-metal/host-thp=never; do
		want=$(jq -r --arg id "$id" "[.cells[] | select(.id == \$id) | .samples[0].metric][0]" \
			"$R/seed-003-equake.json" "$R/seed-003-equake-clean.json" |
			paste -s -d" " | awk "{ printf \"%+.2f\", (\$2 / \$1 - 1) * 100 }") &&
		got=$(awk -v c=" cell $id" "\$0 == c { getline; print \$(NF - 3) }" k.cmp) &&
		echo "$id: got $got, want $want%" &&
		test "$got" = "$want%" || exit 1
	done
'
test_expect_success 'compare: a run of another workload is refused, with both named' '
	test_expect_code 2 "$VMTAX" compare "$SMALL" "$R/seed-003-equake.json" 2>err &&
	grep -F "workload '"'"'kbuild'"'"'" err && grep -F "workload '"'"'321.equake_l'"'"'" err
'
test_expect_success 'compare: the kbuild-small run against seed 000 pairs the bare-metal cells' '
	test_expect_code 2 "$VMTAX" compare "$REF" "$SMALL" 2>err &&
	grep -qF "cpu_model (" err &&
	"$VMTAX" compare --allow-unlike "$REF" "$SMALL" >s0.cmp &&
	grep -qx "geometric mean of (1 + delta) over 2 cells: .*" s0.cmp &&
	grep -qx " cell bare-metal/host-thp=always" s0.cmp &&
	grep -qx " cell bare-metal/host-thp=never" s0.cmp
'
# Effect compares (vmtax compare --effect): each seed reference against a
# run of its config, each cell as the slowdown against its own run's
# baseline.  The runs are fixtures (tests/tools/seed-config-fixtures.py:
# the config's cell ids, the means of docs/seed-configs.md).
F=$TOP/tests/fixtures
# effect_row ID <compare: the line under " cell ID"
effect_row() {
	awk -v c=" cell $1" '$0 == c { getline; print; exit }'
}
# report_interval ID <report: the 95% interval the report gives cell ID
report_interval() {
	awk -v c=" cell $1: ok," '
		index($0, c) == 1 { on = 1; next }
		on && /^ slowdown / { sub(/.*95% interval /, ""); sub(/ \(Fieller\).*/, ""); print; exit }'
}
# less1 X Y: X / Y - 1, unrounded
less1() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.17g\n", x / y - 1 }'; }
# points A B: the difference of two slowdowns in points, from the numbers
points() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f", (b - a) * 100 }'; }
# mean FILE ID: the mean metric of cell ID
mean() {
	jq -r --arg id "$2" '[.cells[] | select(.id == $id) | .samples[] |
		select(.status == "ok") | .metric] | add / length' "$1"
}

# FILE (a compare --effect) has one note: that the runs' hosts differ (the
# seeds ran on other machines than the fixtures, and compare says so,
# naming what differs); no other note.
host_note_only() {
	grep -q "^note: run B ran on another host than run A: .*; its differences are the hosts' too$" "$1" &&
	! grep "^note:" "$1" | grep -v "^note: run B ran on another host than run A: "
}

test_expect_success 'effect: the fixture runs follow the schema, with their configs'"'"' ids' '
	for f in stream-thp thp-pathology hint-sweep; do
		python3 "$TOP/tests/check-results.py" "$F/results-$f.json" &&
		jq -j .run.config_text "$F/results-$f.json" | cmp - "$TOP/configs/$f.ini" ||
			exit 1
	done &&
	for c in $(jq -r ".cells[].id | select(startswith(\"bare-metal\"))" \
		"$F/results-stream-thp.json" "$F/results-thp-pathology.json"); do
		grep -q " $c\$" config.ids || { echo "not a config id: $c"; exit 1; }
	done &&
	test "$(jq ".cells | length" "$F/results-stream-thp.json")" = 8 &&
	test "$(jq -r .baseline "$F/results-hint-sweep.json")" = bare-metal/host-thp=always
'
test_expect_success 'effect: without --effect the seeds'"'"' compares are refused, naming the option' '
	for p in "seed-001-stream stream-thp" "seed-003-equake thp-pathology" \
		"seed-004-hint hint-sweep"; do
		set -- $p &&
		test_expect_code 2 "$VMTAX" compare "$R/$1.json" "$F/results-$2.json" \
			>out 2>err &&
		test ! -s out &&
		grep -q "cannot compare .*; use --effect to compare each run.s slowdowns against its own baseline$" err ||
			{ echo "$1: $(cat err)"; exit 1; }
	done
'
test_expect_success 'effect: seed 003 against thp-pathology, THP always row by row' '
	"$VMTAX" report "$F/results-thp-pathology.json" >patho.txt &&
	sb=$(cell_slowdown bare-metal/host-thp=always <patho.txt) &&
	iv=$(report_interval bare-metal/host-thp=always <patho.txt) &&
	echo "the run: $sb $iv" &&
	test "$sb" = +5075.00% &&
	for f in seed-003-equake seed-003-equake-clean; do
		"$VMTAX" compare --effect "$R/$f.json" "$F/results-thp-pathology.json" >"$f.eff" &&
		cat "$f.eff" &&
		sa=$(seed_slowdown "$R/$f.json" bare-metal/host-thp=always) &&
		ma=$(mean "$R/$f.json" bare-metal/host-thp=always) &&
		ba=$(mean "$R/$f.json" bare-metal/host-thp=never) &&
		mb=$(mean "$F/results-thp-pathology.json" bare-metal/host-thp=always) &&
		bb=$(mean "$F/results-thp-pathology.json" bare-metal/host-thp=never) &&
		pt=$(points "$(less1 "$ma" "$ba")" "$(less1 "$mb" "$bb")") &&
		want=" A $sa% unbounded -> B $sb $iv: difference $pt points, ratio " &&
		got=$(effect_row bare-metal/host-thp=always <"$f.eff") &&
		echo "got:  $got" && echo "want: $want..." &&
		case $got in "$want"*) ;; *) exit 1 ;; esac &&
		grep -qx "A: run .$f. (.*): workload 321.equake_l, metric elapsed in s, lower is better, baseline bare-metal/host-thp=never" "$f.eff" &&
		grep -qx "B: run .thp-pathology. (.*): workload sparse-touch, metric regex in s, lower is better, baseline bare-metal/host-thp=never" "$f.eff" &&
		test "$(effect_row bare-metal/host-thp=never <"$f.eff")" = \
			" A baseline (0 by definition) -> B baseline (0 by definition): difference 0 by definition" &&
		test "$(grep -c "^ run A -> B: no slowdowns: no such cell in run A$" "$f.eff")" = 2 &&
		host_note_only "$f.eff" || exit 1
	done &&
	grep -qx " A +345.83% unbounded -> B +5075.00% \[+4723.77%, +5451.81%\]: difference +4729.17 points, ratio +1060.76%" \
		seed-003-equake-clean.eff &&
	grep -qx " A +410.71% unbounded -> B +5075.00% \[+4723.77%, +5451.81%\]: difference +4664.29 points, ratio +913.30%" \
		seed-003-equake.eff
'
test_expect_success 'effect: seed 003 in every format, the same numbers' '
	for fm in md csv json html; do
		"$VMTAX" compare --effect --format $fm "$R/seed-003-equake-clean.json" \
			"$F/results-thp-pathology.json" >eff.$fm || exit 1
	done &&
	grep -qx "| THP always host | A | +345.83% | unbounded | B | +5075.00% | \[+4723.77%, +5451.81%\] | +4729.17 points | +1060.76% |  |" eff.md &&
	grep -qx "| THP never host | A | baseline (0 by definition) |  | B | baseline (0 by definition) |  | 0 by definition | 0 by definition |  |" eff.md &&
	grep -q "^# vmtax compare --effect$" eff.md &&
	grep -qx "effect,A,B,bare-metal/host-thp=always,bare-metal/host-thp=always,THP always host,no,3.45826695,,,no,no,50.75,47.2376775,54.5180647,yes,47.291733,10.6076495,,,,,,," eff.csv &&
	grep -qx "effect,A,B,bare-metal/host-thp=never,bare-metal/host-thp=never,THP never host,yes,,,,,yes,,,,,0,0,,,,,,," eff.csv &&
	grep -q "^run,,B,,,thp-pathology,,,,,,,,,,,,,,sparse-touch,regex,s,lower,bare-metal/host-thp=never," eff.csv &&
	python3 -c "
import csv, json, sys
rows = list(csv.reader(open(\"eff.csv\")))
assert all(len(r) == len(rows[0]) for r in rows), \"ragged csv\"
d = json.load(open(\"eff.json\"))
assert d[\"schema\"] == \"vmtax-compare/1\" and d[\"effect\"] is True
assert [r[\"workload\"] for r in d[\"runs\"]] == [\"321.equake_l\", \"sparse-touch\"]
r = {x[\"ref_id\"]: x for x in d[\"rows\"] if x[\"ref_id\"]}
a = r[\"bare-metal/host-thp=always\"]
assert abs(a[\"ref_effect\"][\"slowdown\"][\"value\"] - 1304.052 / 292.502 + 1) < 1e-9, a
assert a[\"ref_effect\"][\"slowdown\"][\"bounded\"] is False and a[\"ref_effect\"][\"slowdown\"][\"ci95\"] is None
assert a[\"effect\"][\"slowdown\"][\"bounded\"] is True
assert abs(a[\"points\"] - 47.291733048) < 1e-8
n = r[\"bare-metal/host-thp=never\"]
assert n[\"ref_effect\"] == {\"baseline\": True, \"value\": \"0 by definition\"}, n
assert n[\"points\"] == 0
print(\"json ok\")
" &&
	grep -q "<h1>vmtax compare --effect</h1>" eff.html &&
	grep -q "<tr class=\"effect\" data-ref-id=\"bare-metal/host-thp=always\" data-id=\"bare-metal/host-thp=always\"><td>THP always host</td><td>A</td><td>+345.83%</td><td>unbounded</td><td>B</td><td>+5075.00%</td>" eff.html &&
	grep -q "workload sparse-touch, metric regex in s, lower is better, baseline bare-metal/host-thp=never</li>" eff.html
'
test_expect_success 'effect: seed 004 against hint-sweep, split 3:1/4:4 paired with THP always/never' '
	"$VMTAX" compare --effect "$R/seed-004-hint.json" "$F/results-hint-sweep.json" \
		--pair bare-metal/host.split=3:1,bare-metal/host-thp=always \
		--pair bare-metal/host.split=4:4,bare-metal/host-thp=never >s004.eff &&
	cat s004.eff &&
	"$VMTAX" report "$F/results-hint-sweep.json" >hint.txt &&
	sb=$(cell_slowdown bare-metal/host-thp=never <hint.txt) &&
	iv=$(report_interval bare-metal/host-thp=never <hint.txt) &&
	test "$sb" = +21.74% &&
	sa=$(seed_slowdown "$R/seed-004-hint.json" bare-metal/host.split=4:4) &&
	test "$sa" = -0.01 &&
	grep -qx " cell bare-metal/host.split=4:4 (A) with bare-metal/host-thp=never (B)" s004.eff &&
	grep -qx " A -0.01% unbounded -> B +21.74% $(echo "$iv" | sed "s/\[/\\\\[/; s/\]/\\\\]/"): difference +21.75 points, ratio +21.75%" s004.eff &&
	grep -qx "A THP never host, host.split=4:4 / B THP never host" s004.eff &&
	grep -qx " cell bare-metal/host.split=3:1 (A) with bare-metal/host-thp=always (B)" s004.eff &&
	grep -qx " A baseline (0 by definition) -> B baseline (0 by definition): difference 0 by definition" s004.eff &&
	test "$(grep -c "no such cell in run A" s004.eff)" = 2 &&
	host_note_only s004.eff &&
	grep -qx "A: run .seed-004-hint. (.*): workload hint, metric regex in net QUIPs, higher is better, baseline bare-metal/host.split=3:1" s004.eff &&
	grep -qx "B: run .hint-sweep. (.*): workload wss-sweep, metric regex in ns, lower is better, baseline bare-metal/host-thp=always" s004.eff
'
test_expect_success 'effect: seed 004 without --pair pairs nothing and says which --pair aligns the baselines' '
	"$VMTAX" compare --effect "$R/seed-004-hint.json" "$F/results-hint-sweep.json" >nopair.eff &&
	grep -qx "note: run A.s baseline .bare-metal/host.split=3:1. is aligned with no cell of run B, whose baseline is .bare-metal/host-thp=always.: the two runs. slowdowns are against different cells (--pair bare-metal/host.split=3:1,bare-metal/host-thp=always aligns the baselines)" nopair.eff &&
	test "$(grep -c "no such cell in run B" nopair.eff)" = 2 &&
	test "$(grep -c "no such cell in run A" nopair.eff)" = 4
'
test_expect_success 'effect: seed 001 against stream-thp at the memory-bound size' '
	"$VMTAX" compare --effect "$R/seed-001-stream.json" "$F/results-stream-thp.json" >s001.eff &&
	grep -q "^note: .*(--baseline B=bare-metal/host-thp=never/ELEMENTS=4194304 makes it run B.s baseline)$" s001.eff &&
	grep -qx " A baseline (0 by definition) -> B +197.25% \[.*\]: no difference: the baseline of run A only: the runs. slowdowns here are against different cells" s001.eff &&
	"$VMTAX" compare --effect "$R/seed-001-stream.json" "$F/results-stream-thp.json" \
		--baseline B=bare-metal/host-thp=never/ELEMENTS=4194304 >s001b.eff &&
	cat s001b.eff &&
	host_note_only s001b.eff &&
	grep -qx "B: run .stream-thp. (.*): workload stream, metric regex in MB/s, higher is better, baseline bare-metal/host-thp=never/ELEMENTS=4194304 (by --baseline; the file.s is bare-metal/host-thp=never/ELEMENTS=262144)" s001b.eff &&
	mb=$(mean "$F/results-stream-thp.json" bare-metal/host-thp=always/ELEMENTS=4194304) &&
	bb=$(mean "$F/results-stream-thp.json" bare-metal/host-thp=never/ELEMENTS=4194304) &&
	sb=$(less1 "$bb" "$mb") &&
	want=$(awk -v s="$sb" "BEGIN { printf \"%+.2f%%\", s * 100 }") &&
	test "$want" = -10.25% &&
	got=$(effect_row bare-metal/host-thp=always/ELEMENTS=4194304 <s001b.eff) &&
	echo "got $got, B want $want" &&
	case $got in " A -9.09% unbounded -> B $want ["*"]: difference $(points "$(less1 1 1.1)" "$sb") points, ratio "*) ;; *) exit 1 ;; esac &&
	test "$(effect_row bare-metal/host-thp=never/ELEMENTS=4194304 <s001b.eff)" = \
		" A baseline (0 by definition) -> B baseline (0 by definition): difference 0 by definition"
'
test_done
