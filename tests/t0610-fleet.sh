#!/bin/sh
# host: exclusive, waits
# The fleet ([run] executor = fleet, docs/fleet.md) over a fake ssh and scp
# (tests/tools/fake-ssh.sh): each "host" is a directory of this machine
# with a vmtax of its own (this one, through a wrapper), and nothing else
# is ever contacted.  A tiny bare-metal matrix at this host's own THP
# setting (nothing changes) runs on two hosts in mode each: both come back
# into RUN/hosts/, every cell says how it went on each host, progress lines
# are prefixed with the host.  Refused up front, exit status 2, one line
# naming each failing host, nothing run anywhere: a host whose user is not
# root, a host whose key ssh does not know, an unknown host, two entries
# that are one machine, mode = split across unlike hosts.  A host whose
# connection drops mid-run is named, its cells failed with the reason, and
# the other host finishes.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-fleet.sh"

cat >"$TRASH/wl/nap.ini" <<'EOF'
[workload]
description = prints a number
run = echo "value: 42"
metric = regex
metric_regex = value: ([0-9]+)
unit = points
better = higher
EOF
cat >"$TRASH/run.ini" <<EOF
[run]
name = t0610
repeat = 2
[matrix]
where = bare-metal
host_thp = $thp_now
[workload]
dir = $TRASH/wl
name = nap
EOF

test_expect_success 'two hosts, mode each: both run the matrix and come back' '
	host alpha mid-alpha &&
	host root@beta mid-beta &&
	"$VMTAX" run run.ini --host alpha --host root@beta --out two >out 2>err &&
	cat err &&
	grep "^alpha| " err &&
	grep "^root@beta| " err &&
	jq -e ".run.host and .fleet.mode == \"each\"" two/results.json &&
	jq -e "[.fleet.hosts[].name] == [\"alpha\", \"root@beta\"]" two/results.json &&
	jq -e "[.fleet.hosts[].status] == [\"ok\", \"ok\"]" two/results.json &&
	jq -e "[.fleet.hosts[].host.fingerprint | type] == [\"object\", \"object\"]" two/results.json &&
	jq -e "[.cells[].status] == [\"ok\", \"ok\"]" two/results.json &&
	jq -e ".cells[0].observed.hosts.alpha | .status == \"ok\" and .samples == 2" two/results.json &&
	jq -e ".cells[1].observed.hosts[\"root@beta\"].samples == 2" two/results.json &&
	jq -e ".run.status == \"complete\" and (.cells[0].samples | length) == 2" two/hosts/alpha/results.json &&
	jq -e ".run.status == \"complete\"" two/hosts/root@beta/results.json &&
	jq -e ".run.config.run.executor == \"local\"" two/hosts/alpha/results.json &&
	test -d fleet/hosts/alpha/vmtax-fleet/two/run &&
	! grep "no reports written" err &&
	grep "^A: run .t0610. ($TRASH/two/hosts/alpha/results.json)" two/report.txt &&
	grep "^B: run .t0610. ($TRASH/two/hosts/root@beta/results.json)" two/report.txt &&
	grep "^ A 42.000 points -> B 42.000 points: delta +0.00%" two/report.txt &&
	"$VMTAX" report --format json two >two.json &&
	jq -e ".schema == \"vmtax-compare/1\" and (.runs | length) == 2" two.json &&
	"$VMTAX" report two --rows where >rows-where &&
	grep "^ where       host       " rows-where &&
	grep "^ bare-metal  root@beta  " rows-where &&
	"$VMTAX" report two --rows host >rows-host &&
	"$VMTAX" compare two --by host >by-host &&
	"$VMTAX" report two >plain &&
	cmp rows-host plain && cmp by-host plain &&
	grep "^B: run .t0610. (two/hosts/root@beta/results.json)" by-host
'

test_expect_success 'mode each: the host the outermost axis of results.json, each host'"'"'s cells in it' '
	if python3 -c "import jsonschema" 2>/dev/null
	then
		python3 "$TOP/tests/check-results.py" two/results.json
	fi &&
	jq -e "[.axes[].name][:3] == [\"where\", \"host\", \"host-thp\"]" two/results.json &&
	jq -e ".axes[1] | .values == [\"alpha\", \"root@beta\"] and .key == \"fleet.hosts\"" two/results.json &&
	jq -e ".baseline == \"bare-metal/host=alpha/host-thp=$thp_now\"" two/results.json &&
	jq -e "[.cells[].id] == [\"bare-metal/host=alpha/host-thp=$thp_now\", \"bare-metal/host=root@beta/host-thp=$thp_now\"]" two/results.json &&
	jq -e "[.cells[].axes.host] == [\"alpha\", \"root@beta\"] and [.cells[].host.name] == [\"alpha\", \"root@beta\"]" two/results.json &&
	for h in alpha root@beta; do
		jq -e --slurpfile own "two/hosts/$h/results.json" "
			[.cells[] | select(.host.name == \"$h\")] |
			length == 1 and
			(.[0].host.fingerprint | type) == \"object\" and
			.[0].host.fingerprint == \$own[0].run.host.fingerprint and
			.[0].samples == \$own[0].cells[0].samples" two/results.json || return 1
	done &&
	"$VMTAX" report two --rows host --cols where >view &&
	cat view &&
	grep "^ host       guest THP  " view &&
	grep "^ alpha      -  *baseline$" view &&
	grep "^ root@beta  -  *[-+0-9.]*%\*\{0,1\} \(unbounded\|\[[-0-9.]*, [-0-9.]*\]\)$" view &&
	"$VMTAX" compare two --by host >by &&
	grep "^A: run .t0610. (two/hosts/alpha/results.json)" by &&
	grep "^B: run .t0610. (two/hosts/root@beta/results.json)" by &&
	grep "^ A 42.000 points -> B 42.000 points: delta +0.00%" by
'

test_expect_success 'the ssh command lines: ControlMaster, BatchMode, strict host keys, -- before the host' '
	grep "^ssh .*-o BatchMode=yes.* -o StrictHostKeyChecking=yes .*-T -- alpha " fleet/argv.log &&
	grep "^scp -r -q .* -- alpha:vmtax-fleet/two/run $TRASH/two/hosts/alpha$" fleet/argv.log &&
	grep "^ssh .* -O exit -- root@beta$" fleet/argv.log &&
	! grep "fake-ssh: bad argv" err
'


# refused NAME 'message (grep -F)' ARGS: exit 2, nothing run anywhere
refused() {
	: >fleet/argv.log &&
	test_expect_code 2 "$VMTAX" run run.ini --out "out-$1" $3 >out 2>"err-$1" &&
	cat "err-$1" &&
	grep -F "$2" "err-$1" &&
	test ! -e "out-$1" &&
	! grep -q " run config.ini" fleet/argv.log &&
	! grep -q "^scp" fleet/argv.log
}

test_expect_success 'a host whose user is not root: refused, named' '
	host gamma mid-gamma &&
	printf "#!/bin/sh\necho 1000\n" >fleet/hosts/gamma/bin/id &&
	chmod +x fleet/hosts/gamma/bin/id &&
	refused uid "vmtax: error: fleet: host '"'"'gamma'"'"': not root (uid 1000 there): vmtax changes host settings; log in as root" "--host alpha --host gamma" &&
	test "$(grep -c "error: fleet: host" err-uid)" = 1
'

test_expect_success 'an unknown host key: refused, ssh said why' '
	host delta mid-delta &&
	touch fleet/hosts/delta/hostkey-unknown &&
	refused hostkey "fleet: host '"'"'delta'"'"': its host key is not known here or has changed (StrictHostKeyChecking=yes: check the key and add it to known_hosts): ssh: Host key verification failed." "--host delta --host alpha"
'

test_expect_success 'two failing hosts: one line each' '
	refused two-bad "fleet: host '"'"'nosuch'"'"': unreachable: ssh: Could not resolve hostname nosuch" "--host nosuch --host gamma --host alpha" &&
	test "$(grep -c "error: fleet: host" err-two-bad)" = 2
'

test_expect_success 'two entries that are one machine: refused' '
	host epsilon mid-alpha &&
	refused same "fleet: host '"'"'epsilon'"'"': the same machine as '"'"'alpha'"'"' (machine id mid-alpha)" "--host alpha --host epsilon"
'

test_expect_success 'mode = split across unlike hosts: refused, the difference named' '
	host zeta mid-zeta &&
	cat >fleet/hosts/zeta/bin/vmtax <<EOF &&
#!/bin/sh
case "\$1" in
host) "$VMTAX" "\$@" | jq ".host.machine_id = \"mid-zeta\" | .host.cpu_model = \"Other CPU\"" ;;
*) exec "$VMTAX" "\$@" ;;
esac
EOF
	refused split "fleet: mode = split needs like hosts: '"'"'zeta'"'"' differs from '"'"'alpha'"'"' in cpu_model (" "--host alpha --host zeta --set fleet.mode=split"
'

test_expect_success 'bad destinations: each refused with its reason' '
	for d in "-oProxyCommand=x" "a;b" "a b" "a\$(x)" "ssh://a" "a@b@c" "@a" ".."; do
		test_expect_code 2 "$VMTAX" run run.ini --host "$d" --dry-run 2>err-dest || return 1
		grep "bad ssh destination" err-dest || return 1
	done &&
	test_expect_code 2 "$VMTAX" run run.ini --host root@alpha --host alpha --dry-run 2>err-dup &&
	grep -F "'"'"'root@alpha'"'"' and '"'"'alpha'"'"' name the same host" err-dup
'

test_expect_success 'a host that drops mid-run: named, its cells failed, the other finishes' '
	host eta mid-eta &&
	cat >fleet/hosts/eta/bin/vmtax <<EOF &&
#!/bin/sh
case "\$1" in
host) "$VMTAX" "\$@" | jq ".host.machine_id = \"mid-eta\"" ;;
run) echo "vmtax: eta starts"; sleep 60 ;;
esac
EOF
	echo 3 >fleet/hosts/eta/drop &&
	test_expect_code 1 "$VMTAX" run run.ini --host alpha --host eta --out drop >out 2>err-drop &&
	cat err-drop &&
	grep "^eta| vmtax: eta starts" err-drop &&
	grep -F "warning: fleet: host '"'"'eta'"'"': the connection was lost (ssh exited 255): Connection to eta closed by remote host." err-drop &&
	jq -e ".fleet.hosts[0].status == \"ok\" and .fleet.hosts[1].status == \"failed\"" drop/results.json &&
	jq -e ".fleet.hosts[1].reason | startswith(\"the connection was lost\")" drop/results.json &&
	jq -e ".fleet.hosts[1].exit_status == null and .fleet.hosts[1].results == null" drop/results.json &&
	jq -e ".cells[0].status == \"ok\" and .cells[0].host.name == \"alpha\"" drop/results.json &&
	jq -e ".cells[1].status == \"failed\" and (.cells[1].reason | startswith(\"host '"'"'eta'"'"': the connection was lost\"))" drop/results.json &&
	jq -e ".cells[1] | .host.name == \"eta\" and .axes.host == \"eta\" and .samples == [] and (.host.fingerprint | type) == \"object\"" drop/results.json &&
	jq -e ".run.status == \"complete\"" drop/hosts/alpha/results.json &&
	test ! -e drop/hosts/eta &&
	grep "regex  42.000 points" drop/report.txt
'

test_expect_success 'a stop signal stops the run on every host, which says so' '
	host theta mid-theta &&
	cat >fleet/hosts/theta/bin/vmtax <<EOF &&
#!/bin/sh
case "\$1" in
host) "$VMTAX" "\$@" | jq ".host.machine_id = \"mid-theta\"" ;;
run) trap "kill \\\$!; echo theta stops; exit 130" TERM
	echo "theta starts"; sleep 60 & wait ;;
esac
EOF
	"$VMTAX" run run.ini --host theta --out stop >out 2>err-stop &
	pid=$! &&
	wait_for err-stop "^theta\| theta starts" 30 &&
	kill -INT $pid &&
	test_expect_code 1 wait $pid &&
	cat err-stop &&
	grep "fleet: stopping the run on every host" err-stop &&
	grep "^theta| theta stops" err-stop &&
	jq -e ".run.status == \"interrupted\"" stop/results.json &&
	jq -e ".fleet.hosts[0].reason == \"its vmtax run exited with status 130: theta stops\"" stop/results.json
'

test_done
