# tests/lib-faults.sh - helpers for the fault-injection tests (t02xx).
# Source after lib-test.sh.
#
#   wait_host_free [SECS]      wait until no other vmtax holds the host lock
#   wait_for FILE ERE [SECS]   wait until FILE has a line matching ERE
#   run_domains NAME           vmtax-NAME-* domains still defined or running
#   qemu_pid NAME              the QEMU pid of the running vmtax-NAME-* domain
#   vmtax_bg CONFIG DIR [ARG..] start 'vmtax run CONFIG --out DIR ARG..' in the
#                              background (DIR.stdout, DIR.stderr); its pid
#                              in $VPID (call it directly, not in $(...));
#                              waits first for another vmtax to finish
#   vmtax_wait PID DIR [SECS]  wait for it (killed after SECS), exit status
#                              in DIR.rc, seconds taken in DIR.secs
#   res DIR JQ                 jq -e JQ on DIR/results.json
#
# Domain checks use the run's own name (vmtax-NAME-CELL-PID), so another
# vmtax on the same machine cannot make them fail; each test's run names
# are unique.

STATE_DIR=/var/lib/vmtax

wait_host_free() {
	_n=0
	while _p=$(cat "$STATE_DIR/lock" 2>/dev/null) && [ -n "$_p" ] &&
		[ "$_p" != $$ ] && kill -0 "$_p" 2>/dev/null; do
		_n=$((_n + 1))
		[ "$_n" -le "${1:-900}" ] || return 1
		sleep 1
	done
}

# FILE PATTERN [SECONDS]: a bound against a hang, not a duration asserted;
# times WAIT_SCALE (3 unless set), so that a 2-core host loaded several
# times over (make check beside other builds) does not trip it.
wait_for() {
	_end=$(($(date +%s) + ${3:-120} * ${WAIT_SCALE:-3}))
	until grep -Eq "$2" "$1" 2>/dev/null; do
		[ "$(date +%s)" -lt "$_end" ] || {
			echo "timed out waiting for /$2/ in $1"
			return 1
		}
		sleep 0.2
	done
}

run_domains() {
	virsh -c qemu:///system list --all --name 2>/dev/null | grep "^vmtax-$1-"
}

qemu_pid() {
	for _f in /run/libvirt/qemu/vmtax-"$1"-*.pid; do
		[ -f "$_f" ] && cat "$_f" && return 0
	done
	return 1
}

vmtax_bg() {
	_c=$1 _d=$2
	shift 2
	wait_host_free 600 || echo "another vmtax still holds the host lock"
	date +%s >"$_d.t0"
	"$VMTAX" run "$_c" --out "$_d" "$@" >"$_d.stdout" 2>"$_d.stderr" &
	VPID=$!
}

vmtax_wait() {
	_end=$(($(date +%s) + ${3:-600}))
	while kill -0 "$1" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$_end" ]; then
			echo "vmtax (pid $1) still running after ${3:-600} s: killing it"
			kill -TERM "$1"
			sleep 5
			kill -KILL "$1" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	_rc=0
	wait "$1" || _rc=$?
	echo $_rc >"$2.rc"
	echo $(($(date +%s) - $(cat "$2.t0"))) >"$2.secs"
}

res() {
	jq -e "$2" "$1/results.json" >/dev/null || {
		echo "results.json of $1 fails: $2"
		jq -c '.run.status, (.cells[] | {id, status, reason,
			samples: [.samples[] | {index, status, exit_status, reason}]})' \
			"$1/results.json"
		return 1
	}
}
