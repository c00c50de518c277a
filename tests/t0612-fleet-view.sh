#!/bin/sh
# A fleet run's hosts against another axis (docs/fleet.md): 'vmtax report
# RUN --rows host --cols AXIS' (or --rows AXIS --cols host) of a fleet run
# of mode each lays its hosts' cells out as one matrix, the host its
# outermost axis, each cell's samples its own host's.  The fleet runs here
# are made from fixtures (two hosts' results of one matrix); nothing runs.
# "run" is as a vmtax recorded it before the host was an axis of
# results.json (the report makes the matrix from RUN/hosts/*); "rec" as
# one records it now (the host an axis of its results.json, every host's
# cells in it, orchestrator/fleet/fleet-merge.c): both give the same report.
# 'vmtax compare RUN --by host' of a split run (its cells each from one
# host) is refused saying so; a split run's fleet.unlike (hosts that
# differ, [fleet] allow_unlike = on) is said by the text, md and html
# reports.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX
test_need JQ

F=$TOP/tests/fixtures
mkdir -p "$TRASH/run/hosts/alpha" "$TRASH/run/hosts/root@beta"
cp "$F/results-kvm.json" "$TRASH/run/hosts/alpha/results.json"
cp "$F/results-kvm-b.json" "$TRASH/run/hosts/root@beta/results.json"
jq '. + {fleet: {mode: "each", hosts: [
	{name: "alpha", status: "ok", results: "hosts/alpha/results.json"},
	{name: "root@beta", status: "ok", results: "hosts/root@beta/results.json"}]}}
	| .cells |= map(.samples = [])' "$F/results-kvm.json" >"$TRASH/run/results.json"

test_expect_success '--rows host --cols host-thp: the hosts against an axis' '
	"$VMTAX" report run --rows host --cols host-thp >view &&
	cat view &&
	grep "^axes: where=bare-metal|guest, host=alpha|root@beta, " view &&
	grep "^metric: .*baseline: THP always host, host=alpha (bare-metal/host=alpha/host-thp=always)" view &&
	grep "^ host       where       paging            host-thp=always          host-thp=never$" view &&
	grep "^ alpha      bare-metal  -                        baseline  13.72%\* \[12.18, 15.29\]$" view &&
	grep "^ root@beta  bare-metal  -             0.40% \[-1.07, 1.89\]  14.17%\* \[12.63, 15.75\]$" view &&
	grep "^ root@beta  guest       shadow  135.12%\* \[128.20, 142.13\]                       -$" view &&
	grep "^ bare metal  9.24% over 3 cells$" view &&
	grep "^ NPT off     143.80% over 2 cells$" view
'

test_expect_success 'each cell is its own host'"'"'s: never pooled' '
	"$VMTAX" report run --rows host --cols host-thp --format json >view.json &&
	jq -e "[.cells[].id] | length == 10" view.json &&
	a=$(jq "[.cells[0].samples[].metric]" run/hosts/alpha/results.json) &&
	b=$(jq "[.cells[0].samples[].metric]" "run/hosts/root@beta/results.json") &&
	test "$a" != "$b" &&
	test "$(jq ".cells[] | select(.id == \"bare-metal/host=alpha/host-thp=always\") | .samples_ok" view.json)" = "$(jq "[.cells[0].samples[] | select(.status == \"ok\")] | length" run/hosts/alpha/results.json)"
'

test_expect_success '--rows AXIS --cols host, and every format' '
	"$VMTAX" report run --rows host-thp --cols host >cols &&
	grep "host=alpha  *host=root@beta" cols &&
	for f in text md csv json html; do
		"$VMTAX" report run --rows host --cols paging --format $f >out.$f || return 1
	done &&
	grep -F "host=root@beta" out.csv
'

test_expect_success 'the plain report, --rows host alone and other --rows are as before' '
	"$VMTAX" report run >plain &&
	grep "^A: run .lab-npt. (.*hosts/alpha/results.json)" plain &&
	"$VMTAX" report run --rows host >rows &&
	cmp plain rows &&
	test_expect_code 2 "$VMTAX" report run --rows where 2>err &&
	grep -F "side by side (--rows host), or against one other axis (--rows host --cols AXIS)" err
'

test_expect_success 'a host axis in a run that is not a fleet'"'"'s: refused' '
	test_expect_code 2 "$VMTAX" report run/hosts/alpha --rows host --cols where 2>err-one &&
	cat err-one &&
	grep -i "host" err-one
'

test_expect_success 'compare --by host of a split run: nothing to compare within it, said plainly' '
	mkdir -p split &&
	jq ".fleet.mode = \"split\"" run/results.json >split/results.json &&
	test_expect_code 2 "$VMTAX" compare split --by host 2>err-split &&
	cat err-split &&
	grep -F "a split fleet run: each of its cells ran on one host, so there is nothing to compare by host within it (to compare hosts, run the config with [fleet] mode = each, or compare two runs: vmtax compare RUN_A RUN_B)" err-split &&
	test_expect_code 2 "$VMTAX" compare run/hosts/alpha --by host 2>err-notfleet &&
	grep -F "not a fleet run: --by host compares the hosts of a fleet run" err-notfleet
'

test_expect_success 'a split run on unlike hosts: text, md and html say what differs' '
	mkdir -p unlike &&
	jq ". + {fleet: {mode: \"split\", hosts: [], unlike: [{host: \"root@beta\", differs_from: \"alpha\", fields: [\"cpu_model\"], text: \"cpu_model (\u0027EPYC\u0027 vs \u0027Other <CPU>\u0027)\"}]}}" "$F/results-kvm.json" >unlike/results.json &&
	"$VMTAX" report unlike >unlike.txt &&
	grep -Fx "unlike hosts: the cells ran on hosts that differ ([fleet] allow_unlike = on): a difference between cells of two hosts is theirs too: '"'"'root@beta'"'"' differs from '"'"'alpha'"'"' in cpu_model ('"'"'EPYC'"'"' vs '"'"'Other <CPU>'"'"')" unlike.txt &&
	"$VMTAX" report unlike --format md >unlike.md &&
	grep -F -- "- **unlike hosts**: the cells ran on hosts that differ" unlike.md &&
	"$VMTAX" report unlike --format html >unlike.html &&
	grep -F "<tr><th>unlike hosts</th><td>the cells ran on hosts that differ ([fleet] allow_unlike = on): a difference between cells of two hosts is theirs too: &#39;root@beta&#39; differs from &#39;alpha&#39; in cpu_model (&#39;EPYC&#39; vs &#39;Other &lt;CPU&gt;&#39;)</td></tr>" unlike.html &&
	"$VMTAX" report run/hosts/alpha >alpha.txt &&
	! grep "unlike hosts" alpha.txt
'

# The record of a fleet run of mode each: the host just after where, every
# host's cells host by host, each with its id, axes and "host" (name and
# fingerprint), its samples its own host's.
mkdir -p "$TRASH/rec"
cp -R "$TRASH/run/hosts" "$TRASH/rec/"
jq --slurpfile b "$F/results-kvm-b.json" '
	def hosted($n; $fp): .id |= sub("^(?<w>[^/]+)"; "\(.w)/host=\($n)")
		| .axes.host = $n | .host = {name: $n, fingerprint: $fp};
	def entry($n): {name: $n, status: "ok", reason: null, exit_status: 0,
		results: "hosts/\($n)/results.json", host: null,
		cells: {ok: 5, failed: 0, skipped: 0, pending: 0}};
	. + {fleet: {mode: "each", hosts: [entry("alpha"), entry("root@beta")]}}
	| .axes |= (.[:1] + [{name: "host", key: "fleet.hosts", values: ["alpha", "root@beta"],
		numeric: false, applies: "all"}] + .[1:])
	| .baseline |= sub("^(?<w>[^/]+)"; "\(.w)/host=alpha")
	| .cells = ([.cells[] | hosted("alpha"; {cpu_model: "A"})]
		+ [$b[0].cells[] | hosted("root@beta"; {cpu_model: "B"})])' \
	"$F/results-kvm.json" >"$TRASH/rec/results.json"

test_expect_success 'the record: valid, the host its outermost axis' '
	if python3 -c "import jsonschema" 2>/dev/null
	then
		python3 "$TOP/tests/check-results.py" rec/results.json
	fi &&
	jq -e "[.axes[].name][:2] == [\"where\", \"host\"]" rec/results.json &&
	jq -e "[.cells[].axes.host] | . == ([.[] | select(. == \"alpha\")] + [.[] | select(. == \"root@beta\")]) and length == 10" rec/results.json
'

test_expect_success 'the record: --rows host --cols AXIS from results.json itself, as before' '
	"$VMTAX" report rec --rows host --cols host-thp >rec-view &&
	cmp view rec-view &&
	"$VMTAX" report rec --rows host-thp --cols host >rec-cols &&
	cmp cols rec-cols &&
	"$VMTAX" report rec --rows host --cols host-thp --format json >rec-view.json &&
	jq -e "[.cells[].id] == $(jq -c "[.cells[].id]" view.json)" rec-view.json
'

test_expect_success 'the record: the plain report, --rows host and compare --by host put the hosts side by side' '
	"$VMTAX" report rec >rec-plain &&
	grep "^A: run .lab-npt. (rec/hosts/alpha/results.json)" rec-plain &&
	grep "^B: run .lab-npt. (rec/hosts/root@beta/results.json)" rec-plain &&
	"$VMTAX" report rec --rows host >rec-rows &&
	cmp rec-plain rec-rows &&
	test_expect_code 1 "$VMTAX" compare rec --by host >rec-by &&
	cmp rec-plain rec-by
'

test_expect_success 'the record: any other axes, the host among them (never pooled)' '
	"$VMTAX" report rec --rows where --cols host-thp >rec-where &&
	cat rec-where &&
	grep "^ where       host       paging            host-thp=always          host-thp=never$" rec-where &&
	grep "^ bare-metal  root@beta  -             0.40% \[-1.07, 1.89\]  14.17%\* \[12.63, 15.75\]$" rec-where
'

test_done
