#!/bin/sh
# vmtax report names the host for what it was (run.host.virtualized,
# host/identity.h): "bare metal" only on a physical host or in a file that
# does not record it; "host (a KVM guest)" and a line on what that means
# for host knobs elsewhere -- in every format.  And a metric that is the
# same in every sample while the cells' times differ is warned about.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX
test_need JQ

F=$TOP/tests/fixtures
# with_host CASE OUT: the demo run as recorded on host CASE of
# fixtures/host-ident.json (the JSON host_ident_json() gives for
# fixtures/ident/CASE)
with_host() {
	jq --argjson h "$(jq ".$1" "$F/host-ident.json")" '.run.host += $h' \
		"$F/results-demo.json" >"$2"
}

# each case: its label, and whether the "not bare metal" line is there
for row in "kvm:host (a KVM guest):1" "pvm:host (a PVM guest):1" \
	"physical:bare metal:0" "xen:host (a Xen guest):1" \
	"hyperv:host (a Microsoft Hyper-V guest):1" \
	"noflags:host (physical or virtual: unknown):1"; do
	c=${row%%:*} rest=${row#*:}
	label=${rest%:*} note=${rest##*:}
	test_expect_success "$c: the label in every format" "
		with_host $c in-$c.json &&
		for fmt in text md csv json html; do
			\"\$VMTAX\" report --format \$fmt in-$c.json >$c.\$fmt || exit 1
		done &&
		grep -q '^ guest THP  host THP  *$label  *TCG  *EPT on\$' $c.text &&
		grep -qF '| guest THP | host THP | $label | TCG | EPT on |' $c.md &&
		grep -q '^host,,$label,,' $c.csv &&
		jq -e '.host_label == \"$label\" and .matrix.columns[0] == \"$label\" and
			([.cells[] | select(.env.where == \"bare-metal\") | .column == \"$label\"] | all)' $c.json >/dev/null &&
		grep -qF '<th>guest THP</th><th>host THP</th><th>$label</th>' $c.html &&
		grep -qF 'text-anchor=\"middle\">$label</text>' $c.html &&
		test \"\$(grep -c '^host identity: ' $c.text)\" = $note &&
		test \"\$(grep -c '^- \*\*host identity\*\*: ' $c.md)\" = $note &&
		test \"\$(grep -c '<th>host identity</th>' $c.html)\" = $note &&
		if [ $note = 1 ]; then
			jq -e '.host_note | test(\"host knobs\")' $c.json >/dev/null &&
			grep -q '^host,,.*host knobs' $c.csv
		else
			jq -e 'has(\"host_note\") | not' $c.json >/dev/null &&
			grep -q '^host,,bare metal,,,' $c.csv
		fi
	"
done

test_expect_success 'a virtual host says what it is and what host knobs then mean' '
	grep -qF "host identity: this host is itself a virtual machine (kernel: Hypervisor detected: PVM; CPUID 0x40000000: '"'bhyve bhyve '"'; cpuinfo: hypervisor flag): its cells are not bare metal, and host knobs (host_thp, hugetlb, sysctl) set this virtual machine" pvm.text &&
	grep -qF "DMI: Virtual Machine" hyperv.text &&
	grep -qF "/sys/hypervisor: xen" xen.text &&
	! grep -q "Hypervisor detected" xen.text
'

test_expect_success 'a file without the field reads bare metal and has no host row' '
	"$VMTAX" report --format csv "$F/results-demo.json" >old.csv &&
	! grep -q "^host," old.csv &&
	"$VMTAX" report --format json "$F/results-demo.json" >old.json &&
	jq -e "(has(\"host_label\") or has(\"host_note\")) | not" old.json >/dev/null &&
	"$VMTAX" report "$F/results-demo.json" | grep -q " bare metal "
'

test_expect_success 'a lab run keeps its emulated wording, whatever its host says' '
	jq --argjson h "$(jq .kvm "$F/host-ident.json")" ".run.host += \$h" \
		"$F/results-lab.json" >lab.json &&
	"$VMTAX" report lab.json >lab.txt &&
	"$VMTAX" report "$F/results-lab.json" >lab-old.txt &&
	cmp "$TOP/tests/golden/lab.txt" lab-old.txt &&
	grep -q "host THP  *bare metal  *NPT on" lab.txt &&
	grep -q "absolute numbers describe emulated hardware" lab.txt &&
	! grep -q "host identity" lab.txt
'

# with_cpu VENDOR MODEL OUT: the kvm run (npt and shadow cells) as if its
# host's CPU were VENDOR ("-": a file older than run.host.cpu_vendor) MODEL
with_cpu() {
	if [ "$1" = - ]; then
		jq --arg m "$2" '.run.host.cpu_model = $m | del(.run.host.cpu_vendor)' \
			"$F/results-kvm.json" >"$3"
	else
		jq --arg v "$1" --arg m "$2" \
			'.run.host.cpu_vendor = $v | .run.host.cpu_model = $m' \
			"$F/results-kvm.json" >"$3"
	fi
}
HYGON="Hygon C86 7185 32-core Processor"
test_expect_success 'a Hygon host'\''s shadow paging reads NPT off, in every format' '
	with_cpu HygonGenuine "$HYGON" hygon.json &&
	python3 "$TOP/tests/check-results.py" hygon.json >/dev/null &&
	for f in text md csv json html; do
		"$VMTAX" report --format $f hygon.json >out-hygon.$f &&
		grep -q "NPT off + THP always host" out-hygon.$f &&
		! grep -q "EPT" out-hygon.$f || return 1
	done &&
	grep -q "host THP  *bare metal  *NPT on  *NPT off$" out-hygon.text
'

test_expect_success 'the label is the recorded vendor'\''s, else its model'\''s word' '
	with_cpu - "$HYGON" old-hygon.json &&
	"$VMTAX" report old-hygon.json | grep -q "NPT off + THP always host" &&
	with_cpu GenuineIntel "AMD EPYC Processor" intel.json &&
	"$VMTAX" report intel.json | grep -q "EPT off + THP always host" &&
	with_cpu - "Intel(R) Xeon(R) CPU X5650 @ 2.67GHz" old-intel.json &&
	"$VMTAX" report old-intel.json | grep -q "EPT off + THP always host" &&
	with_cpu CentaurHauls "AMD EPYC Processor" none.json &&
	"$VMTAX" report none.json >none.txt &&
	grep -q "guest, shadow + THP always host" none.txt &&
	! grep -q "[EN]PT off" none.txt
'

test_expect_success 'the recorded identity passes the results schema' '
	for c in kvm pvm physical xen hyperv noflags; do
		python3 "$TOP/tests/check-results.py" in-$c.json >/dev/null || exit 1
	done
'

# the demo run as if its metric were a constant count (the old worked
# example of docs/adding-a-workload.md): every cell reads +0.00%
constant() {
	jq '.workload.metric = "regex" | .workload.unit = "count" |
	    .workload.better = "higher" |
	    .cells[].samples[] |= (if .status == "ok" then .metric = '"$1"' else . end)' \
		"$F/results-demo.json"
}
W="the metric is 20000 count in every ok sample of every cell, while the cells' mean elapsed times range from 1.91 s to 17.6 s: it cannot tell the cells apart"
test_expect_success 'a constant metric is warned about in every format' '
	constant 20000 >const.json &&
	"$VMTAX" report const.json >const.text &&
	grep -qF "warning: $W" const.text &&
	grep -q "slowdown +0.00%" const.text &&
	"$VMTAX" report --format md const.json | grep -qF -- "- **warning**: $W" &&
	"$VMTAX" report --format csv const.json | grep -qF "warning,,,,\"$W" &&
	"$VMTAX" report --format json const.json >const.out.json &&
	jq -e --arg w "$W" ".metric_warning | startswith(\$w)" const.out.json >/dev/null &&
	"$VMTAX" report --format html const.json >const.html &&
	grep -qF "<tr><th>&#9888; warning</th><td>$(echo "$W" | sed "s/'"'"'/\&#39;/g")" const.html
'

test_expect_success 'a metric that varies, or the elapsed metric, has no warning' '
	jq "(.workload.metric = \"regex\") | .cells[0].samples[0].metric = 20001" const.json >vary.json &&
	! "$VMTAX" report vary.json | grep -q "^warning:" &&
	! "$VMTAX" report "$F/results-demo.json" | grep -q "^warning:" &&
	! "$VMTAX" report --format csv "$F/results-demo.json" | grep -q "^warning,"
'

test_done
