#!/bin/sh
# host: exclusive
# The fleet on two real hosts of this machine (issue 25, "Two real hosts on
# this machine"): two lab hosts ('vmtax lab up', docs/lab.md), each its own
# kernel, THP, kvm module and libvirtd, each running sshd, reached only
# through a port of 127.0.0.1 forwarded by QEMU's user network (restrict=on:
# the labs reach nothing).  The test's own ssh key and ssh config
# ([fleet] ssh_config: Host lab1 -> 127.0.0.1:PORT, the lab's host key,
# gathered through its agent, in its own known_hosts; StrictHostKeyChecking
# stays yes).  A tiny bare-metal config runs with --host lab1 --host lab2 in
# mode each: both runs come back into RUN/hosts/lab1 and lab2, and
# 'vmtax report RUN --rows host' puts them side by side.  Mode split: run
# where it is built, else skipped with the reason vmtax gives.  Both labs
# down at the end, no vmtax domain left, this host's THP as before.  Each
# lab: 1 vCPU, 1 GiB (TCG, two at once on this host).  Times are printed
# (# lines): labs up, the run, labs down.  Measured here (2 cores, load
# from other jobs): labs up 48 s, the run 8 s, labs down 4 s, 69 s in all.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"
. "$TOP/tests/lib-faults.sh"

test_need ROOT "the lab image and libvirt need root"
test_need LIBVIRT
for t in ssh ssh-keygen jq ss; do
	command -v $t >/dev/null || skip_all "no $t"
done
(cd "$TOP" && "$VMTAX" image build --kind lab --check) 2>&1 |
	grep -q "host lacks" && skip_all "this host lacks the lab's packages (openssh-server, iproute2, ...: make deps-check)"
virsh -q domcapabilities --virttype qemu 2>/dev/null | grep -q "<model.*>EPYC<" ||
	skip_all "this libvirt/QEMU offers no EPYC CPU model to TCG guests"
no_vmtax_domains || skip_all "a vmtax domain runs already"

thp_before=$(thp_get enabled)
defrag_before=$(thp_get defrag)
# Two free ports of 127.0.0.1.
free_port() {
	p=$1
	while [ -n "$(ss -Hltn "sport = :$p")" ]; do p=$((p + 1)); done
	echo $p
}
P1=$(free_port $((20000 + $$ % 20000)))
P2=$(free_port $((P1 + 1)))

ssh-keygen -q -t ed25519 -N '' -C vmtax-t0630 -f "$TRASH/id" || exit 1
mkdir -p "$TRASH/wl"
cat >"$TRASH/wl/nap.ini" <<'EOF'
[workload]
description = sleeps 3 s (the split's wall time then has something to share), then prints a number
run = sleep 3; echo "value: 42"
metric = regex
metric_regex = value: ([0-9]+)
unit = points
better = higher
EOF
cat >"$TRASH/ssh.conf" <<EOF
Host lab1
	HostName 127.0.0.1
	Port $P1
	User root
	IdentityFile $TRASH/id
	IdentitiesOnly yes
	UserKnownHostsFile $TRASH/lab1/known_hosts
Host lab2
	HostName 127.0.0.1
	Port $P2
	User root
	IdentityFile $TRASH/id
	IdentitiesOnly yes
	UserKnownHostsFile $TRASH/lab2/known_hosts
EOF
cat >"$TRASH/run.ini" <<EOF
[run]
name = t0630
repeat = 2
[matrix]
where = bare-metal
host_thp = madvise
[workload]
dir = $TRASH/wl
name = nap
[lab]
vcpus = 1
memory = 1G
[fleet]
ssh_config = $TRASH/ssh.conf
EOF

# The labs go down with the test, whatever happens to it.
labs_down() {
	for n in 1 2; do
		[ -s "$TRASH/lab$n.pid" ] && kill -TERM "$(cat "$TRASH/lab$n.pid")" 2>/dev/null
	done
	for n in 1 2; do
		i=0
		while [ -s "$TRASH/lab$n.pid" ] && kill -0 "$(cat "$TRASH/lab$n.pid")" 2>/dev/null &&
		      [ $i -lt 120 ]; do
			sleep 1
			i=$((i + 1))
		done
	done
}
trap labs_down EXIT

# lab_up N PORT: lab N up in the background ($TRASH/labN.pid, labN.out)
lab_up() {
	"$VMTAX" lab up run.ini --dir lab$1 --ssh-port $2 \
		--authorized-key id.pub >lab$1.out 2>&1 &
	echo $! >lab$1.pid
}
# lab_ready N: wait (20 minutes at most) for lab N's known_hosts
lab_ready() {
	i=0
	until [ -s lab$1/known_hosts ]; do
		kill -0 "$(cat lab$1.pid)" 2>/dev/null &&
		[ $i -lt 1200 ] || { cat lab$1.out; return 1; }
		i=$((i + 1))
		sleep 1
	done
}

# labs_thp_as_before: each lab's THP mode as it was before the runs
labs_thp_as_before() {
	for n in 1 2; do
		ssh -F ssh.conf -o BatchMode=yes lab$n \
			"cat /sys/kernel/mm/transparent_hugepage/enabled" >thp$n || return 1
		cmp thp$n.before thp$n || return 1
	done
}

test_expect_success 'two labs up, each reached over ssh on its port of 127.0.0.1 only' '
	t0=$(date +%s) &&
	lab_up 1 $P1 &&
	lab_up 2 $P2 &&
	lab_ready 1 &&
	lab_ready 2 &&
	echo "# labs up in $(( $(date +%s) - t0 )) s" >&3 &&
	grep "^\[127.0.0.1\]:$P1 ssh-ed25519 " lab1/known_hosts &&
	grep "^\[127.0.0.1\]:$P2 ssh-ed25519 " lab2/known_hosts &&
	! cmp -s lab1/known_hosts lab2/known_hosts &&
	for n in 1 2; do
		ssh -F ssh.conf -o BatchMode=yes -o StrictHostKeyChecking=yes \
			lab$n "id -u; vmtax --version; cat /etc/machine-id" >id$n &&
		test "$(head -n 1 id$n)" = 0 || exit 1
	done &&
	test "$(sed -n 2p id1)" = "$("$VMTAX" --version)" &&
	test "$(sed -n 3p id1)" != "$(sed -n 3p id2)" &&
	for port in $P1 $P2; do
		ss -Hltn "sport = :$port" | grep -q "127.0.0.1:$port" &&
		! ss -Hltn "sport = :$port" | grep -v "127.0.0.1:$port" || exit 1
	done &&
	! ssh -F ssh.conf -o BatchMode=yes -o PreferredAuthentications=password \
		-o PubkeyAuthentication=no lab1 true 2>nopw &&
	grep -i "permission denied" nopw &&
	for n in 1 2; do
		ssh -F ssh.conf -o BatchMode=yes lab$n \
			"cat /sys/kernel/mm/transparent_hugepage/enabled" >thp$n.before || exit 1
	done
' 3>&1

test_expect_success 'mode each: both labs run the matrix, come back, side by side' '
	t0=$(date +%s) &&
	"$VMTAX" run run.ini --host lab1 --host lab2 --out each >out 2>err &&
	echo "# the run on two labs: $(( $(date +%s) - t0 )) s" >&3 &&
	grep "^lab1| " err &&
	grep "^lab2| " err &&
	jq -e ".fleet.mode == \"each\"" each/results.json &&
	jq -e "[.fleet.hosts[].name] == [\"lab1\", \"lab2\"]" each/results.json &&
	jq -e "[.fleet.hosts[].status] == [\"ok\", \"ok\"]" each/results.json &&
	jq -e "[.cells[].status] == [\"ok\", \"ok\"] and [.cells[].host.name] == [\"lab1\", \"lab2\"]" each/results.json &&
	jq -e "[.axes[].name][:2] == [\"where\", \"host\"]" each/results.json &&
	jq -e ".cells[0].observed.hosts.lab1.samples == 2 and (.cells[0].samples | length) == 2" each/results.json &&
	jq -e ".cells[1].observed.hosts.lab2.samples == 2 and (.cells[1].samples | length) == 2" each/results.json &&
	jq -e "[.cells[].host.fingerprint | type] == [\"object\", \"object\"]" each/results.json &&
	for n in 1 2; do
		jq -e ".cells[0].status == \"ok\"" each/hosts/lab$n/results.json || exit 1
	done &&
	"$VMTAX" report each --rows host >rows &&
	cat rows &&
	grep "hosts/lab1/results.json" rows &&
	grep "hosts/lab2/results.json" rows &&
	labs_thp_as_before
' 3>&1

# Split: two cells (the labs' THP madvise and never), one on each lab, and
# the same config on one lab alone, for the wall times.
test_expect_success 'mode split: two cells on two labs, each on one; against one lab running both' '
	t0=$(date +%s) &&
	"$VMTAX" run run.ini --host lab1 --host lab2 --set fleet.mode=split \
		--set matrix.host_thp=madvise,never --out split >sout 2>serr &&
	t1=$(date +%s) &&
	jq -e ".fleet.mode == \"split\" and (.cells | length == 2)" split/results.json &&
	jq -e ".cells | all(.status == \"ok\")" split/results.json &&
	jq -e "[.cells[].observed.host] | sort == [\"lab1\", \"lab2\"]" split/results.json &&
	"$VMTAX" report split >srep &&
	grep "ran on lab1" srep &&
	grep "ran on lab2" srep &&
	"$VMTAX" run run.ini --host lab1 --set matrix.host_thp=madvise,never \
		--out one >oout 2>oerr &&
	t2=$(date +%s) &&
	jq -e "(.cells | length == 2) and (.cells | all(.status == \"ok\"))" one/results.json &&
	echo "# split on two labs: $((t1 - t0)) s; the same 2 cells on lab1 alone: $((t2 - t1)) s" >&3 &&
	labs_thp_as_before
' 3>&1

# Refused up front on real hosts, each named, exit 2, nothing changed on
# either: lab2's host key unknown here (its own known_hosts empty), and
# lab2's vmtax another build (a wrapper that says another build id; lab1's
# is this vmtax), and lab2 logged into as a user that is not root (tester,
# the same key; its password field '*', not '!': the lab's sshd has UsePAM
# no, and refuses a locked account).
test_expect_success 'refused up front on real hosts: unknown host key, another build of vmtax, not root; neither lab changed' '
	sed "s|$TRASH/lab2/known_hosts|$TRASH/empty_known_hosts|" ssh.conf >ssh-nokey.conf &&
	: >empty_known_hosts &&
	test_expect_code 2 "$VMTAX" run run.ini --host lab1 --host lab2 \
		--set fleet.ssh_config="$TRASH/ssh-nokey.conf" --out nokey >out 2>nokey.err &&
	cat nokey.err &&
	grep -F "fleet: host '"'"'lab2'"'"': its host key is not known here or has changed" nokey.err &&
	! grep -F "host '"'"'lab1'"'"'" nokey.err &&
	ssh -F ssh.conf -o BatchMode=yes lab1 "ln -sf vmtax /usr/local/bin/vmtax-other" &&
	ssh -F ssh.conf -o BatchMode=yes lab2 "printf '"'"'#!/bin/sh\n/usr/local/bin/vmtax \"\$@\" | sed s/fnv1a64:[0-9a-f]*/fnv1a64:0123456789abcdef/\n'"'"' >/usr/local/bin/vmtax-other && chmod 755 /usr/local/bin/vmtax-other" &&
	test_expect_code 2 "$VMTAX" run run.ini --host lab1 --host lab2 \
		--set fleet.vmtax=vmtax-other --out otherbuild >out 2>other.err &&
	cat other.err &&
	grep -F "fleet: host '"'"'lab2'"'"': another build of vmtax" other.err &&
	grep -F "build fnv1a64:0123456789abcdef there" other.err &&
	! grep -F "host '"'"'lab1'"'"'" other.err &&
	ssh -F ssh.conf -o BatchMode=yes lab2 "useradd -m -s /bin/sh -p \\* tester && mkdir -p ~tester/.ssh && cp /root/.ssh/authorized_keys ~tester/.ssh/ && chown -R tester: ~tester/.ssh && id -u tester" >tester.uid &&
	awk -v p="Port $P2" '"'"'$0 ~ p { lab2 = 1 } lab2 && /User root/ { sub("root", "tester") } { print }'"'"' ssh.conf >ssh-user.conf &&
	grep -c "User tester" ssh-user.conf | grep -qx 1 &&
	test_expect_code 2 "$VMTAX" run run.ini --host lab1 --host lab2 \
		--set fleet.ssh_config="$TRASH/ssh-user.conf" --out notroot >out 2>notroot.err &&
	cat notroot.err &&
	grep -F "fleet: host '"'"'lab2'"'"': not root (uid $(cat tester.uid) there)" notroot.err &&
	! grep -F "host '"'"'lab1'"'"'" notroot.err &&
	for n in 1 2; do
		ssh -F ssh.conf -o BatchMode=yes lab$n \
			"test ! -e /root/vmtax-fleet/nokey && test ! -e /root/vmtax-fleet/otherbuild && test ! -e /root/vmtax-fleet/notroot && ! ls ~tester/vmtax-fleet 2>/dev/null && cat /sys/kernel/mm/transparent_hugepage/enabled" >thp$n || exit 1
		cmp thp$n.before thp$n || exit 1
	done
'

# cut_bg: the run of the cut, its exit status into cut.rc (in the background)
# (the body's set -e holds in it: the status is caught, not exited on)
cut_bg() {
	rc=0
	"$VMTAX" run run.ini --host lab1 --host lab2 --set run.repeat=4 \
		--out cut >cout 2>cerr || rc=$?
	echo $rc >cut.rc
}

# A connection cut mid-run, for real: lab2 paused (its sshd and its run
# frozen) until ssh's keepalive gives up (ServerAliveInterval 15 x 4), then
# resumed; lab1 finishes meanwhile.  --resume takes lab2's run up (it went
# on when the lab did) and leaves lab1's results as they were.
test_expect_success 'a connection cut mid-run (lab2 paused): lab1 finishes, lab2 named; --resume completes it' '
	dom=vmtax-lab-$(cat lab2.pid)-up &&
	virsh -q domstate $dom | grep running || exit 1
	cut_bg &
	wait_for cerr "^lab2\| .*sample 2/4" 300 &&
	virsh -q suspend $dom &&
	t0=$(date +%s) &&
	wait_for cut.rc . 300 &&
	echo "# lab2 paused: the run ended $(( $(date +%s) - t0 )) s later" >&3 &&
	virsh -q resume $dom &&
	cat cerr &&
	test "$(cat cut.rc)" = 1 &&
	grep -F "fleet: host '"'"'lab2'"'"': the connection was lost" cerr &&
	jq -e ".run.status == \"interrupted\"" cut/results.json &&
	jq -e "[.fleet.hosts[].status] == [\"ok\", \"failed\"]" cut/results.json &&
	jq -e "[.cells[0].samples[].index] == [0, 1, 2, 3]" cut/hosts/lab1/results.json &&
	cp cut/hosts/lab1/results.json lab1-before.json &&
	"$VMTAX" run --resume cut >rout 2>rerr &&
	cat rerr &&
	cmp lab1-before.json cut/hosts/lab1/results.json &&
	jq -e ".run.status == \"complete\"" cut/results.json &&
	jq -e "[.fleet.hosts[].status] == [\"ok\", \"ok\"]" cut/results.json &&
	jq -e "[.cells[0].samples[].index] == [0, 1, 2, 3]" cut/hosts/lab2/results.json &&
	jq -e ".cells[1].observed.hosts.lab2.samples == 4 and .cells[1].host.name == \"lab2\"" cut/results.json &&
	labs_thp_as_before
' 3>&1

test_expect_success 'both labs down: no vmtax domain left, this host as it was' '
	t0=$(date +%s) &&
	labs_down &&
	for n in 1 2; do
		! kill -0 "$(cat lab$n.pid)" 2>/dev/null &&
		grep "lab up: stopping the lab" lab$n.out || exit 1
	done &&
	echo "# labs down in $(( $(date +%s) - t0 )) s" >&3 &&
	no_vmtax_domains &&
	test -z "$(ss -Hltn "sport = :$P1")" &&
	test -z "$(ss -Hltn "sport = :$P2")" &&
	test "$(thp_get enabled)" = "$thp_before" &&
	test "$(thp_get defrag)" = "$defrag_before" &&
	! pgrep -x sshd
' 3>&1

test_done
