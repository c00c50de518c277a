#!/bin/sh
# t0540-lab-npt: configs/lab-npt.ini through 'vmtax lab run': the lab host
# (a TCG guest of this machine with EPYC +svm +npt) runs the matrix with
# NPT on and off for real (kvm_amd reloaded inside it), and the results come
# back here, labelled as emulated hardware.  Asserts what issue 11 asks:
# NPT on and off cells ok, the parameter read back as asked, exits by reason
# with named reasons, pages_2m > 0 with NPT on and THP always in guest and
# lab, NPT off slower than NPT on at the same THP settings, and this host's
# THP, hugepages and domains as before.
# Slow: the lab image (7 min from scratch, cached after), the lab's boot
# (about a minute) and ten cells (about 25 min here).  LAB_SETS adds --set
# arguments (e.g. a smaller matrix); LAB_OUT keeps the run directory.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "the lab image and libvirt need root"
test_need LIBVIRT
command -v debootstrap >/dev/null || skip_all "debootstrap is not installed"
virsh -q domcapabilities --virttype qemu 2>/dev/null | grep -q "<model.*>EPYC<" ||
	skip_all "this libvirt/QEMU offers no EPYC CPU model to TCG guests"

thp_before=$(thp_get enabled)
defrag_before=$(thp_get defrag)
huge_before=$(cat /proc/sys/vm/nr_hugepages)
OUT=${LAB_OUT:-$TRASH/lab}
sets=
for s in $LAB_SETS; do sets="$sets --set $s"; done

test_expect_success 'vmtax lab run configs/lab-npt.ini completes' '
	(cd "$TOP" && "$VMTAX" lab run configs/lab-npt.ini --out "$OUT" $sets) 2>err ||
	{ tail -40 err; false; }
'
R=$OUT/results.json
# q JQ: evaluate JQ on results.json
q() { jq -r "$1" "$R"; }

test_expect_success 'results.json is valid and records the lab host' '
	python3 "$TOP/tests/check-results.py" "$R" &&
	test "$(q .lab.emulated)" = true &&
	test "$(q .lab.cpu_model)" = EPYC &&
	test "$(q .lab.cpu_features)" = "+svm +npt" &&
	test "$(q .run.host.accel)" = kvm
'

test_expect_success 'the output showed here as the run went, marked lab|' '
	grep "^lab| vmtax: \[1/" err &&
	grep "lab: ready .* after its start" err
'

test_expect_success 'every cell is ok; there are NPT on and NPT off cells' '
	test "$(q "[.cells[] | select(.status != \"ok\")] | length")" = 0 &&
	test "$(q "[.cells[] | select(.env.paging == \"npt\")] | length")" -ge 1 &&
	test "$(q "[.cells[] | select(.env.paging == \"shadow\")] | length")" -ge 1
'

test_expect_success 'kvm_amd npt was read back as asked in every guest cell' '
	q ".cells[] | select(.env.where == \"guest\") | [.id, .env.paging, .observed.paging] | @tsv" >paging &&
	cat paging &&
	awk -F"	" "{ want = \$2 == \"npt\" ? \"hw\" : \$2; if (\$3 != want) bad = 1 } END { exit bad }" paging
'

test_expect_success 'exits by reason are recorded, with named reasons' '
	q "[.cells[] | select(.env.where == \"guest\") | .samples[].kvm.exits_by_reason[]?.reason] | unique | .[]" >reasons &&
	cat reasons &&
	grep -E "^(interrupt|msr|io|npf|hlt|cpuid)$" reasons &&
	test "$(q "[.cells[] | select(.env.where == \"guest\") | .samples[] | select(.kvm == null)] | length")" = 0
'

test_expect_success 'shadow paging shows its exits: #PF intercepts, CR3 writes, INVLPG' '
	q "[.cells[] | select(.env.paging == \"shadow\") | .samples[].kvm.exits_by_reason[]?.reason] | unique | .[]" >shadow &&
	grep -E "^(PF excp|write_cr3|invlpg)$" shadow &&
	q "[.cells[] | select(.env.paging == \"npt\") | .samples[].kvm.exits_by_reason[]?.reason] | unique | .[]" >npt &&
	grep -x npf npt && ! grep -x "PF excp" npt
'

test_expect_success 'pages_2m > 0 with NPT on and THP always in guest and lab' '
	n=$(q "[.cells[] | select(.env.paging == \"npt\" and .env.host_thp == \"always\" and .env.guest_thp == \"always\") | .samples[-1].kvm.pages_2m] | max") &&
	echo "pages_2m $n" && test "$n" -gt 0
'

test_expect_success 'NPT off is slower than NPT on at the same THP settings' '
	q ".cells[] | select(.env.where == \"guest\") | [.env.host_thp, .env.guest_thp, .env.paging, ([.samples[] | select(.status == \"ok\") | .metric] | add / length)] | @tsv" >means &&
	cat means &&
	awk -F"	" "{ m[\$1 \"/\" \$2 \"/\" \$3] = \$4; k[\$1 \"/\" \$2] = 1 }
		END { for (x in k) { if (!(m[x \"/shadow\"] > m[x \"/npt\"])) { print \"not slower: \" x; bad = 1 } } exit bad }" means
'

test_expect_success 'every report says the cells ran on emulated hardware' '
	grep "^lab host: every cell ran inside it: TCG-emulated EPYC" "$OUT/report.txt" &&
	grep "lab host.*emulated hardware" "$OUT/report.md" &&
	grep "^lab,,\"TCG-emulated EPYC" "$OUT/report.csv" &&
	grep "Emulated hardware" "$OUT/report.html" &&
	"$VMTAX" report "$OUT" --format json | jq -e ".lab.summary | contains(\"emulated hardware\")"
'

test_expect_success 'the logs came back: the run, the lab console, each cell' '
	test -s "$OUT/logs/lab-run.log" && test -s "$OUT/logs/lab.console.log" &&
	ls "$OUT"/logs/guest_*.console.log >/dev/null
'

test_expect_success 'this host: THP, hugepages as before; no domain; the lab disk removed' '
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(thp_get defrag)" = "$defrag_before" &&
	test "$(cat /proc/sys/vm/nr_hugepages)" = "$huge_before" &&
	! virsh -q list --name | grep "^vmtax-" &&
	test "$(jq -r .overlay "$OUT/lab.json")" != null &&
	test ! -e "$(jq -r .overlay "$OUT/lab.json")"
'

test_done
