#!/bin/sh
# vmtax report's THP contrasts (reports/thp-contrast.c): every pair of
# cells alike but for one THP axis, never against always, with a verdict;
# where never is not a resolved slowdown (an inversion, or a difference the
# interval does not resolve), the figures that show why are printed beside
# it (page faults, KVM exits, page-fault exits, 2M mappings), and a run on
# an emulated host (a lab, TCG) says why THP can hide there.  Never a
# silent inversion (issue 34).
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX
test_need JQ

F=$TOP/tests/fixtures

test_expect_success 'a clean run: every contrast never slower, no figures, no note' '
	"$VMTAX" report "$F/results-hw.json" >hw.txt &&
	test "$(grep -c "^ .*thp never against always" hw.txt)" = 5 &&
	test "$(grep -c ": never slower$" hw.txt)" = 5 &&
	grep -q "^ guest-thp never against always (where guest, paging shadow, host-thp always): +18.91% \[+18.48%, +19.34%\] (Fieller, 3 units): never slower$" hw.txt &&
	! grep -q "the figures:\| note: this host is emulated" hw.txt
'

# The demo run with its TCG guest at guest THP never made faster than at
# always (each of its samples halved): an inversion, said with its figures.
test_expect_success 'an inversion is said, with the figures' '
	jq "(.cells[] | select(.id == \"guest/paging=tcg/host-thp=always/guest-thp=never\") | .samples[] | select(.metric != null)) |= (.metric /= 2 | .elapsed_s /= 2)" \
		"$F/results-demo.json" >inv.json &&
	"$VMTAX" report inv.json >inv.txt &&
	grep "^ guest-thp never against always (where guest, paging tcg, host-thp always): -" inv.txt >line &&
	grep -q "): never faster; the figures: page faults [0-9]* against [0-9]* a sample (x[0-9.]*)$" line &&
	"$VMTAX" report -f json inv.json >inv.rep.json &&
	jq -e "[.thp_contrasts[] | select(.verdict == \"never faster\")] | length == 1" inv.rep.json &&
	jq -e ".thp_contrasts[] | select(.verdict == \"never faster\") | .never == \"guest/paging=tcg/host-thp=always/guest-thp=never\" and .always == \"guest/paging=tcg/host-thp=always/guest-thp=always\" and .delta.value < 0 and .delta.significant" inv.rep.json
'

test_expect_success 'a lab run: the hidden difference with its KVM figures, and why' '
	"$VMTAX" report "$F/results-lab.json" >lab.txt &&
	grep -q "^ guest-thp never against always (where guest, paging shadow): +24.78% unbounded (Fieller, 1 unit): not separated; the figures: page faults 103274 against 52173 a sample (x1.98); KVM exits 239459 against 128178 a sample; page-fault exits 210773 against 108464 a sample; 2M mappings 78 against 79 at the end$" lab.txt &&
	grep -q "^ note: this host is emulated (a lab.s nested KVM, or TCG)" lab.txt
'

test_expect_success 'every format carries the contrasts' '
	"$VMTAX" report -f md "$F/results-lab.json" >lab.md &&
	grep -q "^### THP contrasts" lab.md &&
	test "$(grep -c "^- guest-thp never against always" lab.md)" = 2 &&
	"$VMTAX" report -f html "$F/results-lab.json" >lab.html &&
	grep -q "<h2>THP contrasts</h2>" lab.html &&
	test "$(grep -c "<li>guest-thp never against always" lab.html)" = 2 &&
	"$VMTAX" report -f json "$F/results-lab.json" >lab.json &&
	jq -e "[.thp_contrasts[].verdict] == [\"not separated\", \"not separated\"]" lab.json &&
	jq -e ".thp_contrast_note | test(\"emulated\")" lab.json
'

test_expect_success 'a run with one THP value has no contrast' '
	jq "del(.cells[] | select(.id | test(\"thp=never\")))" "$F/results-hw.json" >one.json &&
	"$VMTAX" report one.json >one.txt &&
	! grep -q "THP contrasts" one.txt &&
	"$VMTAX" report -f json one.json >one.rep.json &&
	jq -e "has(\"thp_contrasts\") | not" one.rep.json
'

test_done
