#!/bin/sh
# host: exclusive, waits
# The fleet's mode = split and --resume of a fleet run (docs/fleet.md), over
# the fake ssh and scp of t0610 (tests/tools/fake-ssh.sh: each "host" a
# directory of this machine, its vmtax this one).  Bare-metal cells at this
# host's own THP setting: nothing changes.
#
# Split: like hosts share one matrix's cells, round robin; each host runs
# its share ([run] cells, the others skipped there), and this run's
# results.json is one matrix whose every cell comes from the one host that
# ran it (observed.host), its report one matrix with each cell's host named.
# Refused up front: fewer cells than hosts, a [run] target, unlike hosts
# (the key that runs them anyway named); with [fleet] allow_unlike = on
# unlike hosts run, each difference a warning, recorded in results.json's
# fleet.unlike and said in the report.
#
# --resume of a fleet run: a host cut off mid-run (its connection dropped
# once its run has taken two samples, the run there killed) is named and
# the run exits 1, interrupted, the other host finishing; 'vmtax run --resume RUN' then takes up the cut
# host's run there ('vmtax run --resume' of its run) and runs only what is
# missing, no sample repeated, and the host that had finished is not run
# again nor copied again.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-fleet.sh"

cat >"$TRASH/wl/val.ini" <<'EOF'
[workload]
description = prints its value after a nap
run = sleep $NAP; echo "value: $V"
metric = regex
metric_regex = value: ([0-9]+)
unit = points
better = higher

[param.V]
default = 42
description = the value

[param.NAP]
default = 0
description = seconds before it
EOF
cat >"$TRASH/split.ini" <<EOF
[run]
name = t0611
repeat = 2
order = cells
[matrix]
where = bare-metal
host_thp = $thp_now
[workload]
dir = $TRASH/wl
name = val
V = 40, 41, 42
EOF

host alpha mid-alpha
host root@beta mid-beta

test_expect_success 'split: each host runs its share, each cell from the host that ran it' '
	"$VMTAX" run split.ini --host alpha --host root@beta --set fleet.mode=split --out split >out 2>err &&
	cat err &&
	grep "^alpha| " err &&
	grep "^root@beta| " err &&
	grep -F " -- alpha " fleet/argv.log | grep -qF -- "--set '"'"'run.cells=0,2'"'"'" &&
	grep -F " -- root@beta " fleet/argv.log | grep -qF -- "--set '"'"'run.cells=1'"'"'" &&
	jq -e ".fleet.mode == \"split\" and ([.fleet.hosts[].status] == [\"ok\", \"ok\"])" split/results.json &&
	jq -e ".run.status == \"complete\" and (.cells | length) == 3" split/results.json &&
	jq -e "[.cells[].status] == [\"ok\", \"ok\", \"ok\"]" split/results.json &&
	jq -e "[.cells[].observed.host] == [\"alpha\", \"root@beta\", \"alpha\"]" split/results.json &&
	jq -e "[.cells[] | .samples | length] == [2, 2, 2]" split/results.json &&
	jq -e "[.cells[] | .samples[0].metric] == [40, 41, 42]" split/results.json &&
	jq -e ".cells[1].observed.hosts | keys == [\"root@beta\"] and .[\"root@beta\"].samples == 2" split/results.json &&
	jq -e "[.cells[].status] == [\"ok\", \"skipped\", \"ok\"]" split/hosts/alpha/results.json &&
	jq -e ".cells[1].reason | startswith(\"another host'"'"'s share of a split fleet\")" split/hosts/alpha/results.json &&
	jq -e ".cells[1].samples == [] and .run.config.run.cells == [0, 2]" split/hosts/alpha/results.json &&
	jq -e "[.cells[].status] == [\"skipped\", \"ok\", \"skipped\"]" "split/hosts/root@beta/results.json" &&
	jq -e ".run.config.run | has(\"cells\") | not" split/results.json &&
	grep "ran on alpha" split/report.txt &&
	grep "ran on root@beta" split/report.txt &&
	! grep "^A: run" split/report.txt &&
	"$VMTAX" report split >plain &&
	cmp plain split/report.txt
'

test_expect_success 'split: fewer cells than hosts, or a target: refused up front' '
	: >fleet/argv.log &&
	test_expect_code 2 "$VMTAX" run split.ini --host alpha --host root@beta --set fleet.mode=split --set workload.V=40 --out few 2>err-few &&
	grep -F "fleet: mode = split: 1 cells for 2 hosts" err-few &&
	test_expect_code 2 "$VMTAX" run split.ini --host alpha --host root@beta --set fleet.mode=split --set run.target=5% --out tgt 2>err-tgt &&
	grep -F "fleet: mode = split with [run] target" err-tgt &&
	! grep -q " run config.ini" fleet/argv.log
'

host zeta mid-zeta '.cpu_model = "Other CPU"'

test_expect_success 'split on unlike hosts: refused naming the key; allow_unlike = on runs, recorded, said' '
	test_expect_code 2 "$VMTAX" run split.ini --host alpha --host zeta --set fleet.mode=split --out unlike-no 2>err-unlike-no &&
	grep -F "error: fleet: mode = split needs like hosts: '"'"'zeta'"'"' differs from '"'"'alpha'"'"' in cpu_model (" err-unlike-no |
		grep -F "'"'"'Other CPU'"'"') (set [fleet] allow_unlike = on to run anyway)" &&
	test ! -e unlike-no/results.json &&
	"$VMTAX" run split.ini --host alpha --host zeta --set fleet.mode=split --set fleet.allow_unlike=on --out unlike >out 2>err-unlike &&
	cat err-unlike &&
	test "$(grep -c "warning: fleet: mode = split needs like hosts: '"'"'zeta'"'"' differs from '"'"'alpha'"'"' in cpu_model (.*Other CPU.*) (\[fleet\] allow_unlike = on: it runs anyway)$" err-unlike)" = 1 &&
	jq -e ".run.status == \"complete\" and [.cells[].observed.host] == [\"alpha\", \"zeta\", \"alpha\"]" unlike/results.json &&
	jq -e ".run.config.fleet.allow_unlike == true" unlike/results.json &&
	jq -e ".fleet.unlike | length == 1 and .[0].host == \"zeta\" and .[0].differs_from == \"alpha\" and .[0].fields == [\"cpu_model\"]" unlike/results.json &&
	jq -e ".fleet.unlike[0].text | startswith(\"cpu_model (\") and endswith(\" vs '"'"'Other CPU'"'"')\")" unlike/results.json &&
	python3 "$TOP/tests/check-results.py" unlike/results.json &&
	grep -F "unlike hosts: the cells ran on hosts that differ ([fleet] allow_unlike = on): a difference between cells of two hosts is theirs too: '"'"'zeta'"'"' differs from '"'"'alpha'"'"' in cpu_model (" unlike/report.txt &&
	grep "ran on zeta" unlike/report.txt &&
	"$VMTAX" report unlike --format md >unlike.md &&
	grep -F -- "- **unlike hosts**: the cells ran on hosts that differ" unlike.md &&
	jq -e ".fleet | has(\"unlike\") | not" split/results.json &&
	! grep "unlike hosts" split/report.txt
'

test_expect_success '[run] cells is not in --help; an index past the matrix is refused' '
	"$VMTAX" run --help >help &&
	! grep "^ *cells " help &&
	test_expect_code 2 "$VMTAX" run split.ini --set run.cells=3 --dry-run 2>err-cells &&
	grep -F "cell 3: the matrix has 3 cells (0 to 2)" err-cells
'

cat >"$TRASH/resume.ini" <<EOF
[run]
name = t0611r
repeat = 4
order = cells
[matrix]
where = bare-metal
host_thp = $thp_now
[workload]
dir = $TRASH/wl
name = val
NAP = 0.5
EOF

host eta mid-eta

test_expect_success 'a host cut mid-run: named, the run interrupted, the other finishes' '
	echo "sample 3/4" >fleet/hosts/eta/dropat &&
	test_expect_code 1 "$VMTAX" run resume.ini --host alpha --host eta --out cut >out 2>err-cut &&
	cat err-cut &&
	grep -F "warning: fleet: host '"'"'eta'"'"': the connection was lost (ssh exited 255)" err-cut &&
	jq -e ".run.status == \"interrupted\"" cut/results.json &&
	jq -e "[.fleet.hosts[].status] == [\"ok\", \"failed\"]" cut/results.json &&
	jq -e "[.cells[].host.name] == [\"alpha\", \"eta\"] and .cells[0].status == \"ok\"" cut/results.json &&
	jq -e ".cells[1].status == \"pending\" and (.cells[1].reason | startswith(\"host '"'"'eta'"'"': the connection was lost\"))" cut/results.json &&
	jq -e "(.cells[0].samples | length) == 4 and (.cells[1].samples | length) <= 2" cut/results.json &&
	jq -e ".run.status == \"complete\" and (.cells[0].samples | length) == 4" cut/hosts/alpha/results.json &&
	jq -e ".run.status == \"running\" and .cells[0].status == \"pending\"" cut/hosts/eta/results.json &&
	test "$(grep -c "\"sample\"" fleet/hosts/eta/vmtax-fleet/cut/run/samples.jsonl)" = 2 &&
	cp cut/hosts/alpha/results.json alpha-before.json
'

test_expect_success '--resume: only the cut host runs, only what it missed' '
	rm fleet/hosts/eta/dropat &&
	: >fleet/argv.log &&
	"$VMTAX" run --resume cut >out 2>err-resume &&
	cat err-resume &&
	grep -F "fleet: host '"'"'alpha'"'"': its run ended ok: its results are taken as they are" err-resume &&
	grep "^eta| .*resuming" err-resume &&
	! grep "^alpha| " err-resume &&
	! grep -F -- "-- alpha " fleet/argv.log | grep -v "host probe" | grep -v "^ssh .* -O exit" &&
	! grep "^scp .* -- alpha:" fleet/argv.log &&
	grep -F -- "-- eta " fleet/argv.log | grep -F "run --resume run" &&
	cmp alpha-before.json cut/hosts/alpha/results.json &&
	jq -e ".run.status == \"complete\" and (.run.resumed | length) == 1" cut/results.json &&
	jq -e "[.fleet.hosts[].status] == [\"ok\", \"ok\"]" cut/results.json &&
	jq -e "[.axes[].name][:2] == [\"where\", \"host\"] and (.cells | length) == 2" cut/results.json &&
	jq -e ".cells[1].status == \"ok\" and .cells[1].observed.hosts.eta.samples == 4" cut/results.json &&
	jq -e "[.cells[].id] == [\"bare-metal/host=alpha/host-thp=$thp_now\", \"bare-metal/host=eta/host-thp=$thp_now\"]" cut/results.json &&
	jq -e "[.cells[1].samples[].index] == [0, 1, 2, 3]" cut/results.json &&
	jq -e ".run.status == \"complete\" and (.run.resumed | length) == 1" cut/hosts/eta/results.json &&
	jq -e "[.cells[0].samples[].index] == [0, 1, 2, 3]" cut/hosts/eta/results.json &&
	test "$(grep -c "sample [0-9]/4" fleet/hosts/eta/vmtax-fleet/cut/run.log)" -le 5 &&
	grep "^ A 42.000 points -> B 42.000 points" cut/report.txt
'

test_expect_success 'split, cut and resumed: each cell from its host, none repeated' '
	echo "sample 3/4" >fleet/hosts/eta/dropat &&
	test_expect_code 1 "$VMTAX" run resume.ini --host alpha --host eta --set fleet.mode=split --set workload.V=40,41 --out scut >out 2>err-scut &&
	jq -e ".run.status == \"interrupted\" and .cells[1].status == \"pending\"" scut/results.json &&
	jq -e ".fleet.hosts[1].reason | startswith(\"the connection was lost\")" scut/results.json &&
	jq -e ".cells[1].observed.host == \"eta\" and (.cells[1].samples | length) <= 2" scut/results.json &&
	cp scut/hosts/alpha/results.json salpha-before.json &&
	rm fleet/hosts/eta/dropat &&
	"$VMTAX" run --resume scut >out 2>err-sresume &&
	cat err-sresume &&
	cmp salpha-before.json scut/hosts/alpha/results.json &&
	jq -e ".run.status == \"complete\" and .fleet.mode == \"split\"" scut/results.json &&
	jq -e "[.cells[].status] == [\"ok\", \"ok\"] and [.cells[].observed.host] == [\"alpha\", \"eta\"]" scut/results.json &&
	jq -e "[.cells[1].samples[].index] == [0, 1, 2, 3] and [.cells[1].samples[].metric] == [41, 41, 41, 41]" scut/results.json &&
	jq -e "[.cells[0].samples[].metric] == [40, 40, 40, 40]" scut/results.json &&
	grep "ran on eta" scut/report.txt
'

test_expect_success '--resume of a complete fleet run: nothing to resume' '
	test_expect_code 2 "$VMTAX" run --resume cut 2>err-again &&
	grep "the run is complete; nothing to resume" err-again
'

test_done
