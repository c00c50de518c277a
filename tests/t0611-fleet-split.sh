#!/bin/sh
# host: exclusive
# The fleet's mode = split (docs/fleet.md), over
# the fake ssh and scp of t0610 (tests/tools/fake-ssh.sh: each "host" a
# directory of this machine, its vmtax this one).  Bare-metal cells at this
# host's own THP setting: nothing changes.
#
# Split: like hosts share one matrix's cells, round robin; each host runs
# its share ([run] cells, the others skipped there), and this run's
# results.json is one matrix whose every cell comes from the one host that
# ran it (observed.host), its report one matrix with each cell's host named.
# Refused up front: fewer cells than hosts, a [run] target.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-faults.sh"
test_prereq ROOT || skip_all "needs root (the hosts' bare-metal runs take the host lock)"
command -v jq >/dev/null || skip_all "no jq"
command -v flock >/dev/null || skip_all "no flock"
wait_host_free 900 || skip_all "another vmtax held the host lock for 15 minutes"

thp_now=$(thp_get enabled)
FAKE_FLEET=$TRASH/fleet
export FAKE_FLEET
mkdir -p "$FAKE_FLEET/hosts" "$TRASH/bin" "$TRASH/wl"
ln -s "$TOP/tests/tools/fake-ssh.sh" "$TRASH/bin/ssh"
ln -s "$TOP/tests/tools/fake-ssh.sh" "$TRASH/bin/scp"
PATH=$TRASH/bin:$PATH
export PATH

# host NAME MACHINE-ID: a fake host whose vmtax is this one (as t0610's)
host() {
	mkdir -p "$FAKE_FLEET/hosts/$1/bin" &&
	cat >"$FAKE_FLEET/hosts/$1/bin/vmtax" <<EOF &&
#!/bin/sh
case "\$1" in
host) "$VMTAX" "\$@" | jq ".host.machine_id = \"$2\"" ;;
run) exec flock "$FAKE_FLEET/lock" "$VMTAX" "\$@" ;;
*) exec "$VMTAX" "\$@" ;;
esac
EOF
	chmod +x "$FAKE_FLEET/hosts/$1/bin/vmtax"
}

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

test_expect_success '[run] cells is not in --help; an index past the matrix is refused' '
	"$VMTAX" run --help >help &&
	! grep "^ *cells " help &&
	test_expect_code 2 "$VMTAX" run split.ini --set run.cells=3 --dry-run 2>err-cells &&
	grep -F "cell 3: the matrix has 3 cells (0 to 2)" err-cells
'

test_done
