#!/bin/sh
# host: exclusive, waits
# The run directory is trusted only when this vmtax made it (docs/security.md):
# another user's directory, a world- or group-writable one, a symlinked logs/
# are refused with the reason and the fix, and nothing is written there or
# where a symlink points; '--resume DIR' takes config_path and sets only from
# a results.json this vmtax wrote (not another user's, not one writable by
# others), a lab run's too (its resume state is results.json's, written by
# this host: the lab's own results are kept apart).  A fresh directory still
# works.
. "$(dirname "$0")/lib-test.sh"
. "$(dirname "$0")/lib-faults.sh"
test_need ROOT "needs root (chown to nobody; the run takes the host lock)"
test_lazy_prereq NOBODY "no user nobody" 'id -u nobody'
test_need NOBODY
NOBODY=$(id -u nobody)
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
name = t0215
repeat = 1
warmup = 0
[matrix]
where = bare-metal
host_thp = $thp_now
[workload]
dir = $TRASH/wl
name = nap
EOF2

# refused DIR 'message (grep -F)': the run is refused before anything runs
refused() {
	test_expect_code 2 "$VMTAX" run run.ini --out "$1" >out 2>err &&
	cat err &&
	grep -F "$2" err
}

test_expect_success 'a fresh directory: made by vmtax, the run goes on' '
	"$VMTAX" run run.ini --out fresh >/dev/null 2>err &&
	jq -e ".run.status == \"complete\"" fresh/results.json &&
	test "$(stat -c %u fresh)" = 0 &&
	test -z "$(find fresh -perm /022 -newer run.ini)" &&
	! test -e fresh/host-journal
'

test_expect_success "another user's directory: refused, nothing written" '
	mkdir theirs && chown $NOBODY theirs &&
	refused theirs "run directory '"'"'$TRASH/theirs'"'"' is owned by uid $NOBODY, not by root: someone else could change what this run writes and reads there; give a new --out (vmtax creates it), or, if you trust it, '"'"'chown 0 $TRASH/theirs && chmod go-w $TRASH/theirs'"'"'" &&
	test -z "$(ls -A theirs)"
'

test_expect_success 'a world-writable directory: refused, nothing written' '
	mkdir open && chmod 1777 open &&
	refused open "is writable by others (mode 1777)" &&
	test -z "$(ls -A open)"
'

test_expect_success 'a group-writable directory: refused' '
	mkdir grp && chmod 775 grp &&
	refused grp "is writable by its group (mode 0775)" &&
	test -z "$(ls -A grp)"
'

test_expect_success 'a symlinked logs/: refused, nothing written where it points' '
	mkdir elsewhere sym && ln -s "$TRASH/elsewhere" sym/logs &&
	refused sym "'"'"'$TRASH/sym/logs'"'"' is not a directory (a symbolic link?): remove it, or give a new --out" &&
	test -z "$(ls -A elsewhere)" &&
	test "$(ls -A sym)" = logs
'

test_expect_success "--resume: another user's results.json is not taken" '
	cp -r fresh stolen && chown $NOBODY stolen/results.json &&
	jq ".run.status = \"running\" | .run.config_path = \"/tmp/t0215-evil.ini\"" \
		fresh/results.json >stolen/results.json.new &&
	cat stolen/results.json.new >stolen/results.json &&
	test_expect_code 2 "$VMTAX" run --resume stolen 2>err &&
	cat err &&
	grep -F "results.json'"'"' was not written by this vmtax (owned by uid $NOBODY, not by root): its config path and --set list are not taken" err &&
	! grep -F t0215-evil err
'

test_expect_success '--resume: a results.json writable by others is not taken' '
	cp -r fresh open2 &&
	jq ".run.status = \"running\"" fresh/results.json >open2/results.json &&
	chmod 666 open2/results.json &&
	test_expect_code 2 "$VMTAX" run --resume open2 2>err &&
	grep -F "(writable by others (mode 0666))" err
'

test_expect_success '--resume: a directory of another user is not taken' '
	cp -r fresh theirs2 &&
	jq ".run.status = \"running\"" fresh/results.json >theirs2/results.json &&
	chown $NOBODY theirs2 &&
	test_expect_code 2 "$VMTAX" run --resume theirs2 2>err &&
	grep -F "is owned by uid $NOBODY, not by root" err
'

test_expect_success '--resume: where a run resumes is its config'"'"'s, not a member the lab could write' '
	cp -r fresh labrun &&
	jq ".run.status = \"running\" | .lab = {\"emulated\": true}" \
		fresh/results.json >labrun/results.json &&
	"$VMTAX" run --resume labrun 2>err &&
	grep "resuming .*labrun.: 1 samples already measured" err &&
	! grep "lab:" err &&
	jq -e ".run.status == \"complete\" and .run.config.run.executor == \"local\"" labrun/results.json
'

test_expect_success "--resume of a lab run: another user's results.json is not taken" '
	cp -r fresh lab &&
	jq ".run.status = \"running\" | .run.config_path = \"/tmp/t0215-evil.ini\" | .run.sets = [\"run.executor=lab\", \"guest.uri=qemu+ext:///system?command=/tmp/x\"]" \
		fresh/results.json >lab/results.json &&
	chown $NOBODY lab/results.json &&
	test_expect_code 2 "$VMTAX" lab run --resume lab 2>err &&
	cat err &&
	grep -F "results.json'"'"' was not written by this vmtax (owned by uid $NOBODY, not by root)" err &&
	! grep -F t0215-evil err
'

test_expect_success 'host THP as it was' '
	test "$(thp_get enabled)" = "$thp_now"
'

test_done
