# tests/lib-fleet.sh - the fake fleet of the fleet tests (t0610, t0611),
# over tests/tools/fake-ssh.sh: each "host" a directory of this machine
# ($FAKE_FLEET/hosts/NAME) with a vmtax of its own (this one, through a
# wrapper); ssh and scp first on PATH are the fake.  Source after
# lib-test.sh, with VMTAX set: it skips the test where the fake fleet
# cannot run (not root, no jq or flock, the host lock held for 15 minutes),
# sources lib-faults.sh and sets thp_now (this host's THP mode, the fake
# hosts' too).
#
#   host NAME MACHINE-ID [JQ]
#                          a fake host whose vmtax is this one, its probe
#                          saying MACHINE-ID (and what jq filter JQ makes
#                          of its "host", e.g. '.cpu_model = "X"'), its
#                          runs one at a time (they share this machine's
#                          host lock); an executable
#                          $FAKE_FLEET/hosts/NAME/after-run runs after
#                          each run there, in the run's directory there

. "$(dirname "$0")/lib-faults.sh"
test_need ROOT "needs root (the hosts' bare-metal runs take the host lock)"
test_need JQ
test_need FLOCK
wait_host_free 900 || skip_all "another vmtax held the host lock for 15 minutes"

thp_now=$(thp_get enabled)
FAKE_FLEET=$TRASH/fleet
export FAKE_FLEET
mkdir -p "$FAKE_FLEET/hosts" "$TRASH/wl"
fake_ssh_on_path fake-ssh.sh || exit 1

host() {
	mkdir -p "$FAKE_FLEET/hosts/$1/bin" &&
	cat >"$FAKE_FLEET/hosts/$1/bin/vmtax" <<EOF &&
#!/bin/sh
case "\$1" in
host) "$VMTAX" "\$@" | jq --arg mid '$2' '.host.machine_id = \$mid | .host |= (${3:-.})' ;;
run) if [ -x "$FAKE_FLEET/hosts/$1/after-run" ]; then
	flock "$FAKE_FLEET/lock" "$VMTAX" "\$@"; rc=\$?
	"$FAKE_FLEET/hosts/$1/after-run"; exit \$rc
fi
exec flock "$FAKE_FLEET/lock" "$VMTAX" "\$@" ;;
*) exec "$VMTAX" "\$@" ;;
esac
EOF
	chmod +x "$FAKE_FLEET/hosts/$1/bin/vmtax"
}
