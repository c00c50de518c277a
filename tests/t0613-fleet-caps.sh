#!/bin/sh
# host: exclusive, waits
# What a fleet host's run directory may bring back is capped
# (FLEET_COPY_BYTES_MAX, lib/caps.h; docs/fleet.md), over the fake ssh and
# scp of tests/lib-fleet.sh.  Three hosts run a tiny bare-metal matrix;
# after their runs, alpha's and beta's run directories hold a sparse 5 GiB
# file (no disk used).  alpha's du says so: refused before a byte is
# copied, named with the size and the cap.  beta's du lies (1 byte): its
# copy is stopped or counted when it lands, removed, and named the same
# way.  gamma's comes back, and no 5 GiB file is left here.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-fleet.sh"

cat >"$TRASH/wl/nap.ini" <<'EOW'
[workload]
description = prints a number
run = echo "value: 42"
metric = regex
metric_regex = value: ([0-9]+)
unit = points
better = higher
EOW
cat >"$TRASH/run.ini" <<EOC
[run]
name = t0613
repeat = 2
[matrix]
where = bare-metal
host_thp = $thp_now
[workload]
dir = $TRASH/wl
name = nap
EOC

big_after_run() {
	printf '#!/bin/sh\ntruncate -s 5G run/logs/big\n' >"fleet/hosts/$1/after-run" &&
	chmod +x "fleet/hosts/$1/after-run"
}

test_expect_success 'a host whose run directory is past the cap: refused before the copy, or removed after it' '
	host alpha mid-alpha &&
	host beta mid-beta &&
	host gamma mid-gamma &&
	big_after_run alpha &&
	big_after_run beta &&
	printf "#!/bin/sh\nprintf \"1\\\\t%%s\\\\n1\\\\t%%s\\\\n\" x x\n" >fleet/hosts/beta/bin/du &&
	chmod +x fleet/hosts/beta/bin/du &&
	test_expect_code 1 "$VMTAX" run run.ini --host alpha --host beta --host gamma --out caps >out 2>err &&
	cat err &&
	grep "warning: fleet: host .alpha.: its run directory there is [0-9]* bytes in [0-9]* files, over FLEET_COPY_BYTES_MAX (4294967296 bytes): not copied$" err &&
	! grep "^scp .* -- alpha:" fleet/argv.log &&
	test ! -e caps/hosts/alpha &&
	grep "^scp .* -- beta:" fleet/argv.log &&
	grep "warning: fleet: host .beta.: its copy came to [0-9]* bytes in [0-9]* files, over FLEET_COPY_BYTES_MAX (4294967296 bytes): removed$" err &&
	test ! -e caps/hosts/beta &&
	jq -e "[.fleet.hosts[].status] == [\"failed\", \"failed\", \"ok\"]" caps/results.json &&
	jq -e ".fleet.hosts[0].reason | test(\"^its run directory there is [0-9]+ bytes in [0-9]+ files, over FLEET_COPY_BYTES_MAX\")" caps/results.json &&
	jq -e ".fleet.hosts[1].reason | test(\"^its copy came to [0-9]+ bytes in [0-9]+ files, over FLEET_COPY_BYTES_MAX\")" caps/results.json &&
	jq -e "[.cells[].status] == [\"failed\", \"failed\", \"ok\"]" caps/results.json &&
	jq -e ".run.status == \"complete\"" caps/hosts/gamma/results.json &&
	test -z "$(find caps -size +100M)"
'

test_expect_success 'host THP untouched' '
	test "$(thp_get enabled)" = "$thp_now"
'

test_done
