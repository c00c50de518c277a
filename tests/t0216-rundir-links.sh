#!/bin/sh
# host: exclusive, waits
# Links in and to run directories, and the state directory's hard links
# (docs/security.md, "The run directory"; issue 33): a --out that is
# another user's symbolic link is refused, nothing written where it points,
# and one of root's own is followed; the lock and the journal refuse a hard
# link, the file it shares left as it was; 'vmtax report' of a foreign run
# directory reads no profile or results.json through a symbolic link and
# does not hang on a FIFO.  Every node is made here, in $TRASH.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-faults.sh"
test_prereq ROOT || skip_all "needs root (chown -h to nobody; the run takes the host lock)"
NOBODY=$(id -u nobody 2>/dev/null) || skip_all "no user nobody"
wait_host_free 900 || skip_all "another vmtax held the host lock for 15 minutes"

thp_now=$(thp_get enabled)
mkdir "$TRASH/wl"
cat >"$TRASH/wl/nap.ini" <<'EOF2'
[workload]
description = prints a number
run = echo "value: 42"
metric = regex
metric_regex = value: ([0-9]+)
unit = points
better = higher
EOF2
cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0216
repeat = 1
warmup = 0
[matrix]
where = bare-metal
host_thp = $thp_now
[workload]
dir = $TRASH/wl
name = nap
EOF2
# a root-only secret, as a key would be: its last word is what the folded
# parser quoted ("bad count '...'") when it read the file through a link
SECRET=AAAAC3NzaC1lZDI1NTE5t0216s3cr3tKEY
printf 'ssh-ed25519 %s\n' "$SECRET" >"$TRASH/secret"
chmod 600 "$TRASH/secret"
F="$TOP/tests/fixtures"
A=profiles/bare-metal_host-thp_always.folded
N=profiles/bare-metal_host-thp_never.folded

# foreign DIR: a copy of the profiled fixture's run directory, nobody's
foreign() {
	mkdir "$1" &&
	cp "$F/results-profile.json" "$1/results.json" &&
	cp -r "$F/profiles" "$1/" &&
	chown -R "$NOBODY" "$1"
}

test_expect_success "--out: another user's symlink is refused, nothing written where it points" '
	mkdir target &&
	ln -s "$TRASH/target" theirs && chown -h $NOBODY theirs &&
	test_expect_code 2 "$VMTAX" run run.ini --out theirs >out 2>err &&
	cat err &&
	grep -F "cannot create run directory '"'"'theirs'"'"': it is a symbolic link owned by uid $NOBODY, not by root: not followed" err &&
	test -z "$(ls -A target)"
'

test_expect_success "--out: another user's symlink on the way, the missing rest not made" '
	mkdir par && ln -s "$TRASH/target" par/up && chown -h $NOBODY par/up &&
	test_expect_code 2 "$VMTAX" run run.ini --out par/up/a/b >out 2>err &&
	grep -F "'"'"'par/up'"'"' is a symbolic link owned by uid $NOBODY, not by root: not followed" err &&
	test -z "$(ls -A target)"
'

test_expect_success "--out through root's own symlink: followed, each missing part made" '
	mkdir mine &&
	ln -s "$TRASH/mine" ours &&
	"$VMTAX" run run.ini --out ours/a/b >/dev/null 2>err &&
	jq -e ".run.status == \"complete\"" mine/a/b/results.json &&
	test -d mine/a/b/logs &&
	test -f mine/a/b/report.txt &&
	test -L ours
'

test_expect_success "--resume: another user's symlink to a run is refused" '
	ln -s "$TRASH/mine/a/b" theirs-run && chown -h $NOBODY theirs-run &&
	test_expect_code 2 "$VMTAX" run --resume theirs-run >out 2>err &&
	grep -F "cannot resume '"'"'theirs-run'"'"': it is a symbolic link owned by uid $NOBODY" err
'

test_expect_success '--resume: a results.json that is a FIFO does not hang' '
	mkdir fifo-run && chmod 755 fifo-run && mkfifo fifo-run/results.json &&
	test_expect_code 2 timeout 60 "$VMTAX" run --resume fifo-run >out 2>err &&
	grep -F "fifo-run/results.json'"'"': not a regular file" err
'

test_expect_success 'the lock: a hard link is refused, its other file left as it was' '
	mkdir state && printf "precious\n" >precious && chmod 600 precious &&
	ln precious state/lock &&
	test_expect_code 1 "$VMTAX" host restore --state-dir "$TRASH/state" 2>err &&
	cat err &&
	grep -F "the lock '"'"'$TRASH/state/lock'"'"' is a hard link (2 names)" err &&
	test "$(cat precious)" = precious
'

test_expect_success 'the journal: a hard link is refused, not replayed, its other file as it was' '
	rm state/lock &&
	printf "sysctl.vm.swappiness\t1\n" >journal && chmod 600 journal &&
	ln journal state/host-journal &&
	test_expect_code 1 "$VMTAX" host restore --state-dir "$TRASH/state" 2>err &&
	cat err &&
	grep -F "the journal '"'"'$TRASH/state/host-journal'"'"' is a hard link (2 names)" err &&
	grep -F "not replayed" err &&
	test "$(cat journal)" = "$(printf "sysctl.vm.swappiness\t1")"
'

test_expect_success 'report: a profile that is a symlink to a secret is not read' '
	foreign linked &&
	rm linked/$A && ln -s "$TRASH/secret" linked/$A && chown -h $NOBODY linked/$A &&
	"$VMTAX" report linked >out 2>err &&
	"$VMTAX" report -f json linked >out.json 2>>err &&
	cat err &&
	grep -F "no profile: cannot read '"'"'$A'"'"': a symbolic link (not followed)" out &&
	! grep -F "$SECRET" out out.json err &&
	! grep -F t0216s3cr3t out out.json err
'

test_expect_success 'report: a profile that is a FIFO does not hang' '
	foreign fifo &&
	rm fifo/$N && mkfifo fifo/$N && chown -h $NOBODY fifo/$N &&
	timeout 60 "$VMTAX" report fifo >out 2>err &&
	grep -F "no profile: cannot read '"'"'$N'"'"': not a regular file (a FIFO, a device or a socket)" out &&
	grep -F "profiles/guest_host-thp_always_guest-thp_always.folded" out
'

test_expect_success 'report and compare: a results.json that is a FIFO or a symlink is refused' '
	foreign fifo2 && rm fifo2/results.json && mkfifo fifo2/results.json &&
	test_expect_code 2 timeout 60 "$VMTAX" report fifo2 >out 2>err &&
	grep -F "cannot read '"'"'fifo2/results.json'"'"': not a regular file" err &&
	test_expect_code 2 timeout 60 "$VMTAX" compare fifo2 "$F/results-profile.json" >out 2>err &&
	grep -F "cannot read '"'"'fifo2/results.json'"'"': not a regular file" err &&
	foreign lres && rm lres/results.json &&
	ln -s "$TRASH/secret" lres/results.json && chown -h $NOBODY lres/results.json &&
	test_expect_code 2 "$VMTAX" report lres >out 2>err &&
	grep -F "cannot read '"'"'lres/results.json'"'"': it is a symbolic link owned by uid $NOBODY" err &&
	! grep -F t0216s3cr3t out err
'

test_expect_success "report: another user's symlink to a run directory is not followed" '
	ln -s "$TRASH/linked" theirs-report && chown -h $NOBODY theirs-report &&
	test_expect_code 2 "$VMTAX" report theirs-report >out 2>err &&
	grep -F "cannot read '"'"'theirs-report'"'"': it is a symbolic link owned by uid $NOBODY, not by root: not followed" err
'

test_expect_success 'host THP as it was' '
	test "$(thp_get enabled)" = "$thp_now"
'

test_done
