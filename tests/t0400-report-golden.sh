#!/bin/sh
# vmtax report: every format of the fixture runs, byte for byte against
# tests/golden/.  VMTAX_REGEN_GOLDEN=1 rewrites the golden files instead
# (review the diff before committing it).
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

for fixture in demo hw series vcpus kernels kvm lab profile interleaved events; do
	for fmt in text md csv json html; do
		ext=$fmt
		[ "$fmt" = text ] && ext=txt
		golden="$TOP/tests/golden/$fixture.$ext"
		if [ -n "$VMTAX_REGEN_GOLDEN" ]; then
			"$VMTAX" report --format "$fmt" \
				"$TOP/tests/fixtures/results-$fixture.json" \
				>"$golden"
			echo "# regenerated $golden"
		fi
		# results-vcpus.json has a failed cell: vmtax report exits 1
		code=0 && [ "$fixture" = vcpus ] && code=1
		test_expect_success "$fixture: $fmt matches golden (exit $code)" "
			test_expect_code $code \"\$VMTAX\" report --format $fmt \
				\"\$TOP/tests/fixtures/results-$fixture.json\" >out.$fixture.$ext &&
			cmp \"$golden\" out.$fixture.$ext ||
			{ diff -u \"$golden\" out.$fixture.$ext | head -40; false; }
		"
	done
done

test_expect_success 'a lab run says so in every format (and the others never do)' '
	for ext in txt md csv json html; do
		grep -q "TCG-emulated EPYC +svm +npt, 2 vCPUs, 3.0 GiB, kernel 6.1.0-50-amd64, on vm (QEMU 7.2.22): absolute numbers describe emulated hardware" \
			"$TOP/tests/golden/lab.$ext" &&
		! grep -q "emulated hardware" "$TOP/tests/golden/demo.$ext" || exit 1
	done &&
	grep -q "^lab host: every cell ran inside it" "$TOP/tests/golden/lab.txt" &&
	grep -q "<b>Emulated hardware.</b>" "$TOP/tests/golden/lab.html" &&
	grep -q "^lab,,\"TCG-emulated" "$TOP/tests/golden/lab.csv" &&
	jq -e ".lab.emulated == true and .lab.cpu_model == \"EPYC\"" "$TOP/tests/golden/lab.json"
'

test_expect_success 'profile: a missing or corrupt folded file is said, nothing fails' '
	mkdir -p prun/profiles &&
	cp "$TOP/tests/fixtures/results-profile.json" prun/results.json &&
	cp "$TOP"/tests/fixtures/profiles/*.folded prun/profiles/ &&
	rm prun/profiles/guest_host-thp_always_guest-thp_always.folded &&
	printf "a;b 1\\nbroken\\n" >prun/profiles/guest_host-thp_never_guest-thp_never.folded &&
	"$VMTAX" report prun >prun.txt &&
	grep -q "no profile: cannot read .profiles/guest_host-thp_always_guest-thp_always.folded.: No such file" prun.txt &&
	grep -q "no profile: .profiles/guest_host-thp_never_guest-thp_never.folded.: line 2: no count" prun.txt &&
	test "$(grep -c "where it went (self)" prun.txt)" = 3 &&
	"$VMTAX" report -f json prun | jq -e "[.cells[] | select(.profile.present == false)] | length == 2" &&
	rm prun/profiles/bare-metal_host-thp_always.folded &&
	"$VMTAX" report prun >prun2.txt &&
	test "$(grep -c "vs baseline: the baseline has no profile" prun2.txt)" = 3
'

test_expect_success 'text is the default format' '
	"$VMTAX" report "$TOP/tests/fixtures/results-demo.json" >default.txt &&
	cmp "$TOP/tests/golden/demo.txt" default.txt
'

test_expect_success 'a run directory is read as RUNDIR/results.json' '
	mkdir -p run &&
	cp "$TOP/tests/fixtures/results-demo.json" run/results.json &&
	"$VMTAX" report --format csv run >dir.csv &&
	cmp "$TOP/tests/golden/demo.csv" dir.csv
'

test_expect_success '-o writes the file and nothing to stdout' '
	"$VMTAX" report -f md -o out.md "$TOP/tests/fixtures/results-demo.json" >stdout &&
	test ! -s stdout &&
	cmp "$TOP/tests/golden/demo.md" out.md
'

test_expect_success 'skipped cells keep their reason in every format' '
	for f in txt md csv json html; do
		grep -q "paging cannot be changed" "$TOP/tests/golden/demo.$f" ||
			{ echo "no reason in demo.$f"; exit 1; }
	done
'

test_expect_success 'unsupported counters are never printed as 0' '
	grep -q "^    <not supported>      cycles$" "$TOP/tests/golden/demo.txt" &&
	grep -q " cycles:not_supported " "$TOP/tests/golden/demo.csv" &&
	! grep -q "\"cycles\": 0" "$TOP/tests/golden/demo.json"
'

test_expect_success 'matrix: bare metal once per host THP, intervals, a geomean per column' '
	sed -n "/^Slowdown vs/,/^THP contrasts/p" "$TOP/tests/golden/demo.txt" >mx &&
	test "$(grep -c "24.86%\*" mx)" = 1 &&
	grep -q "^ always     never     24.86%\* \[22.63, 27.09\]  782.08%\* \[769.18, 795.00\]  skipped$" mx &&
	grep -q "^ never      never  *819.73%\* \[809.03, 830.44\]  skipped$" mx &&
	grep -q "^Geometric mean of (1 + slowdown), minus 1, per column (each cell with a slowdown once, the baseline not):$" "$TOP/tests/golden/demo.txt" &&
	grep -q "^ bare metal  24.86% over 1 cell$" "$TOP/tests/golden/demo.txt" &&
	grep -q "^ TCG         751.19% over 4 cells$" "$TOP/tests/golden/demo.txt" &&
	grep -q "^ EPT on      none (no cell with a slowdown)$" "$TOP/tests/golden/demo.txt" &&
	! grep -q "^geometric mean of (1 + slowdown) over" "$TOP/tests/golden/demo.txt" &&
	grep -q "^- TCG: 751.19% over 4 cells$" "$TOP/tests/golden/demo.md" &&
	jq -e "[.geomean_by_column[] | .column] == [\"bare metal\", \"TCG\", \"EPT on\"] and .geomean_by_column[0].cells == 1" "$TOP/tests/golden/demo.json"
'

test_expect_success 'IPC and dTLB miss rate from PMU counters' '
	grep -q "0.609 IPC" "$TOP/tests/golden/hw.txt" &&
	grep -q "0.43% of dTLB-loads" "$TOP/tests/golden/hw.txt"
'

# results-events.json: a real run here (t0107) with [run] events =
# major-faults, cpu-migrations, dTLB-store-misses: no PMU, so the
# hardware event is <not supported> on both sides; the software ones are
# counted in the guest too, through its agent.
test_expect_success 'events: the run'"'"'s events after the seven, never 0 where unsupported' '
	grep -q "^    <not supported>      dTLB-store-misses$" "$TOP/tests/golden/events.txt" &&
	test "$(grep -c "      major-faults  *#  *[0-9.]* /sec$" "$TOP/tests/golden/events.txt")" = 2 &&
	head -n 1 "$TOP/tests/golden/events.csv" | grep -q ",cpu-migrations,major-faults,dTLB-store-misses,why_empty$" &&
	grep -q "^cell,guest/.* dTLB-store-misses:not_supported$" "$TOP/tests/golden/events.csv" &&
	jq -e "[.cells[].counters[\"dTLB-store-misses\"].state == \"not supported\"] | all" "$TOP/tests/golden/events.json" &&
	grep -q "<th>major-faults</th>" "$TOP/tests/golden/events.html" &&
	grep -q "| major-faults | dTLB-store-misses |" "$TOP/tests/golden/events.md"
'

# perf stat shows task-clock in msec with "CPUs utilized" (task-clock over
# the elapsed time: 1910902107 ns in 1.915 s), software events with a rate
# per second of task-clock, cycles in GHz; csv and json keep the raw ns.
test_expect_success 'counters as perf stat shows them; raw values in csv and json' '
	grep -qx "            1910.90 msec task-clock               #    0.998 CPUs utilized       ( +-   0.13% )" "$TOP/tests/golden/demo.txt" &&
	grep -qx "               1311      page-faults              #  686.063 /sec                ( +-   0.00% )" "$TOP/tests/golden/demo.txt" &&
	grep -q "^           20996114      page-faults              #   12.408 K/sec " "$TOP/tests/golden/hw.txt" &&
	grep -q "^      4420485502179      cycles                   #    2.612 GHz " "$TOP/tests/golden/hw.txt" &&
	! grep -q "1910902107  task-clock" "$TOP/tests/golden/demo.txt" &&
	grep -q "| 1910.90 msec (±0.13%), 0.998 CPUs utilized | 1311 (±0.00%), 686.063 /sec |" "$TOP/tests/golden/demo.md" &&
	grep -q "<td>1910.90 msec (&plusmn;0.13%)<br><small>0.998 CPUs utilized</small></td>" "$TOP/tests/golden/demo.html" &&
	jq -e ".cells[0].counters[\"task-clock\"].mean == 1910902107" "$TOP/tests/golden/demo.json" &&
	python3 -c "
import csv, sys
r = next(r for r in csv.DictReader(open(sys.argv[1])) if r[\"kind\"] == \"cell\")
assert abs(float(r[\"task-clock\"]) - 1910902107) < 10, r  # ns, 9 digits
" "$TOP/tests/golden/demo.csv"
'

test_expect_success 'the slowdowns agree between text, csv and json' '
	# THP never host: slowdown in text, csv (fraction) and json (fraction).
	grep -q "^THP never host (slowdown +4.01% \[+3.93%, +4.09%\] \*)$" "$TOP/tests/golden/hw.txt" &&
	grep "^cell,bare-metal/host-thp=never," "$TOP/tests/golden/hw.csv" |
		cut -d, -f19 | grep -q "^0.04009722" &&
	grep -A3 "\"slowdown\": {" "$TOP/tests/golden/hw.json" |
		grep -q "\"value\": 0.04009722"
'

test_expect_success 'report --help' '
	"$VMTAX" report --help >help &&
	grep -q "text|md|csv|json|html" help &&
	grep -q -- "--rows AXES" help && grep -q -- "--cols AXES" help
'

if python3 -c 'import jsonschema' 2>/dev/null; then
	for fixture in demo demo-b hw series vcpus kernels kvm kvm-b; do
		test_expect_success "$fixture: the fixture passes tests/check-results.py" "
			python3 \"\$TOP/tests/check-results.py\" \"\$TOP/tests/fixtures/results-$fixture.json\"
		"
	done
else
	echo "# skipping the schema checks: python3 jsonschema is missing"
fi

VCPUS="$TOP/tests/fixtures/results-vcpus.json"
KERNELS="$TOP/tests/fixtures/results-kernels.json"
export VCPUS KERNELS

test_expect_success 'vcpus: the header lists the axes, older runs have no such line' '
	grep -q "^axes: where=bare-metal|guest, host-thp=always|never, guest-thp=always|never, vcpus=1|2|4$" "$TOP/tests/golden/vcpus.txt" &&
	grep -q "^- axes: where=bare-metal\\\\|guest, " "$TOP/tests/golden/vcpus.md" &&
	! grep -q "^axes:" "$TOP/tests/golden/demo.txt"
'

test_expect_success 'vcpus: an axis beyond THP is folded into the matrix rows' '
	grep -q "^ guest THP  host THP  vcpus           bare metal                     EPT on$" "$TOP/tests/golden/vcpus.txt" &&
	grep -q "^ always     never     1      2.29%\* \[0.46, 4.17\]  286.44%\* \[278.63, 294.58\]$" "$TOP/tests/golden/vcpus.txt" &&
	grep -q "^ never      never     4  *failed$" "$TOP/tests/golden/vcpus.txt" &&
	grep -q "^THP always guest, EPT on + THP never host, vcpus=2 (slowdown +99.08% \[+94.16%, +104.10%\] \*)$" "$TOP/tests/golden/vcpus.txt"
'

test_expect_success 'vcpus: the scaling table has one line per THP pair' '
	sed -n "/^Slowdown against vcpus/,/^\$/p;/^ line /,/^\$/p" "$TOP/tests/golden/vcpus.txt" >scal &&
	cat scal &&
	grep -q "^ host-thp=always, guest-thp=always  +273.04% \[+267.61%, +278.62%\]\*    +92.81% \[+89.06%, +96.65%\]\*    +7.16% \[+5.21%, +9.17%\]\*$" scal &&
	grep -q "^ host-thp=never, guest-thp=never    +293.71% \[+284.85%, +302.84%\]\*  +103.16% \[+98.71%, +107.72%\]\*                      failed$" scal &&
	! grep -q "±" scal &&
	test "$(grep -c "^ host-thp=" scal)" = 4
'

test_expect_success 'vcpus: the scaling agrees between text, csv and json' '
	grep "^scaling,guest/host-thp=always/guest-thp=always/vcpus=4," "$TOP/tests/golden/vcpus.csv" |
		grep -q ",4,3,44.8617493,.*,0.0715639545,0.0520548248,0.0916896977," &&
	test "$(grep -c "^scaling," "$TOP/tests/golden/vcpus.csv")" = 12 &&
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
s = d[\"scaling\"]
assert [x[\"axis\"] for x in s] == [\"vcpus\"], s
l = s[0][\"lines\"]
assert len(l) == 4 and l[0][\"label\"] == \"host-thp=always, guest-thp=always\"
p = l[0][\"points\"]
assert [x[\"x\"] for x in p] == [1, 2, 4]
assert abs(p[2][\"slowdown\"][\"value\"] - 0.0715639545) < 1e-9
assert l[3][\"points\"][2][\"slowdown\"] is None
assert d[\"axes\"][3][\"numbers\"] == [1, 2, 4]
" "$TOP/tests/golden/vcpus.json"
'

test_expect_success 'vcpus: the html has a scaling chart with a point per measured cell' '
	test "$(grep -c "<svg class=\"scaling\" data-axis=\"vcpus\"" "$TOP/tests/golden/vcpus.html")" = 1 &&
	test "$(grep -c "<polyline class=\"scaling\"" "$TOP/tests/golden/vcpus.html")" = 4 &&
	test "$(grep -c "<g class=\"point\" data-id=\"guest/" "$TOP/tests/golden/vcpus.html")" = 11 &&
	grep -q "guest-thp=never; vcpus=4 failed</text>" "$TOP/tests/golden/vcpus.html"
'

test_expect_success 'kernels: a text axis gives no scaling, a row of its own' '
	! grep -q "Slowdown against" "$TOP/tests/golden/kernels.txt" &&
	! grep -q "^scaling," "$TOP/tests/golden/kernels.csv" &&
	grep -q "^ always     never     vmlinuz-6.12.5  *9.65%\* \[7.42, 11.96\]$" "$TOP/tests/golden/kernels.txt"
'

test_expect_success '--cols kernel puts the kernels side by side' '
	"$VMTAX" report --cols kernel "$KERNELS" >k.txt &&
	grep -q "^ guest THP  host THP  where       kernel=vmlinuz-6.1.0-13-amd64  kernel=vmlinuz-6.12.5$" k.txt &&
	grep -q "^ -          always    bare-metal                       baseline               baseline$" k.txt &&
	grep -q "^ always     never     guest               11.78%\* \[9.77, 13.85\]   9.65%\* \[7.42, 11.96\]$" k.txt
'

test_expect_success '--rows and --cols in every format' '
	for f in text md csv json html; do
		test_expect_code 1 "$VMTAX" report -f $f --rows vcpus --cols host-thp,guest-thp "$VCPUS" >rc.$f || exit 1
	done &&
	grep -q "^| vcpus | where | host-thp=always, guest-thp=always | host-thp=always, guest-thp=never |" rc.md &&
	grep -q "^| - | bare-metal | baseline | baseline | 2.29%\\* \\[0.46, 4.17\\] | 2.29%\\* \\[0.46, 4.17\\] |$" rc.md &&
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
rows = d[\"matrix\"][\"rows\"]
assert list(rows[0])[:2] == [\"vcpus\", \"where\"], rows[0]
assert len(rows) == 4, rows
" rc.json &&
	grep -q "vcpus / where" rc.html
'

test_expect_success '--rows with the default columns keeps them' '
	"$VMTAX" report --rows host-thp,guest-thp "$TOP/tests/fixtures/results-hw.json" >hw.txt &&
	grep -q "^ host THP  guest THP            bare metal                  EPT on                    EPT off$" hw.txt &&
	grep -q "^ always    always                 baseline     5.68%\\* \\[5.60, 5.77\\]  198.16%\\* \\[197.92, 198.41\\]$" hw.txt &&
	grep -q "^ always    never                            12.84%\\* \\[12.63, 13.05\\]  254.55%\\* \\[253.22, 255.89\\]$" hw.txt
'

KVMG="$TOP/tests/golden/kvm"
export KVMG

test_expect_success 'kvm: text shows the top exit reasons and the 2M share per guest cell' '
	sed -n "/^THP always guest, NPT on + THP always host/,/^THP always guest, NPT off/p" "$KVMG.txt" >npt &&
	grep -q "^ KVM: 1913.3 exits per sample (svm, 3 samples); at the end 2M pages map 99.46% and 1G pages 0.00% of what KVM mapped (476 4K, 172 2M, 0 1G)$" npt &&
	grep -q "^  npf  *116.0    6.06%$" npt &&
	! grep -q "PF excp" npt &&
	sed -n "/^THP always guest, NPT off + THP always host/,/^THP always guest, NPT on + THP never/p" "$KVMG.txt" >shadow &&
	grep -q "^  PF excp  *1807.0   50.21%$" shadow &&
	grep -q "^  per sample: pf_fixed 1052.0, pf_taken 1807.3, tlb_flush 345.3, invlpg 71.3$" shadow &&
	! grep -q "^  npf " shadow &&
	test "$(grep -c "^  exit reason" "$KVMG.txt")" = 2
'

test_expect_success 'kvm: a guest cell without evidence says why; bare metal says nothing' '
	grep -q "^ KVM: no evidence: no /sys/kernel/debug/kvm (debugfs not mounted or kvm not loaded)$" "$KVMG.txt" &&
	test "$(grep -c "^ KVM:" "$KVMG.txt")" = 3 &&
	sed -n "/^THP never host/,/^THP always guest/p" "$KVMG.txt" >bare &&
	! grep -q KVM bare &&
	grep -q "^KVM: no evidence: no /sys/kernel/debug/kvm" "$KVMG.md" &&
	grep -q "<p class=\"na\" data-id=\"guest/paging=hw/host-thp=never/guest-thp=always\">no evidence: " "$KVMG.html"
'

test_expect_success 'kvm: md and html show the same top five reasons' '
	grep -q "^| npf | 116.0 | 6.06% |$" "$KVMG.md" &&
	grep -q "^| PF excp | 1807.0 | 50.21% |$" "$KVMG.md" &&
	test "$(grep -c "<table class=\"kvm\"" "$KVMG.html")" = 2 &&
	grep -q "<tr><td>npf</td><td>116.0</td><td>6.06%</td></tr>" "$KVMG.html" &&
	! grep -q "<script" "$KVMG.html"
'

test_expect_success 'kvm: csv and json carry every reason and the shares, agreeing with text' '
	grep -q "^kvm,guest/paging=hw/host-thp=always/guest-thp=always,share_2m,ok,,,3,0.994623899," "$KVMG.csv" &&
	grep -q "^kvm,guest/paging=hw/host-thp=always/guest-thp=always,exit:npf,ok,,,3,116," "$KVMG.csv" &&
	grep -q "^kvm,guest/paging=shadow/host-thp=always/guest-thp=always,exit:write_cr3,ok,,,3,57.6666667," "$KVMG.csv" &&
	grep -q "^kvm,guest/paging=shadow/host-thp=always/guest-thp=always,delta:tlb_flush,ok,,,3,345.333333," "$KVMG.csv" &&
	! grep -q "^kvm,bare-metal" "$KVMG.csv" &&
	! grep -q "^kvm,guest/paging=hw/host-thp=never" "$KVMG.csv" &&
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
c = {x[\"id\"]: x for x in d[\"cells\"]}
assert \"kvm\" not in c[\"bare-metal/host-thp=always\"]
n = c[\"guest/paging=hw/host-thp=always/guest-thp=always\"][\"kvm\"]
assert n[\"samples\"] == 3 and n[\"vendor\"] == \"svm\", n
assert abs(n[\"share_2m\"] - 0.994623899) < 1e-8 and n[\"share_1g\"] == 0
assert [r[\"reason\"] for r in n[\"exits_by_reason\"]][4] == \"npf\"
s = c[\"guest/paging=shadow/host-thp=always/guest-thp=always\"][\"kvm\"]
assert s[\"exits_by_reason\"][0][\"reason\"] == \"PF excp\"
assert abs(s[\"delta_per_sample\"][\"pf_fixed\"] - 1052) < 1e-9
z = c[\"guest/paging=hw/host-thp=never/guest-thp=always\"]
assert z[\"kvm\"] is None and z[\"kvm_why\"].startswith(\"no /sys/kernel/debug/kvm\")
" "$KVMG.json"
'

test_expect_success 'a run without KVM evidence prints nothing of KVM in any format' '
	! grep -q "KVM" "$TOP/tests/golden/demo.txt" &&
	! grep -q "KVM" "$TOP/tests/golden/demo.md" &&
	! grep -q "^kvm," "$TOP/tests/golden/demo.csv" &&
	! grep -q "\"kvm\"" "$TOP/tests/golden/demo.json" &&
	! grep -q "<h2>KVM" "$TOP/tests/golden/demo.html"
'

test_done
