#!/bin/sh
# host: exclusive, waits
# (the "remote" host's THP is this host's, read through the fake ssh: a
# test beside it that sets THP would change what it reads)
# Guests on a remote libvirt ([guest] uri = qemu+ssh://USER@HOST/system,
# docs/fleet.md), what is refused before anything runs: exit status 2, the
# row's own reason, no run directory, nothing asked of the remote host for
# a config that cannot run there.  The "remote" host is this machine behind
# a fake ssh (tests/tools/fake-ssh-here.sh); no guest boots here.
. "$(dirname "$0")/lib-test.sh"
test_need JQ

thp_now=$(thp_get enabled)
case $thp_now in always) thp_other=never ;; *) thp_other=always ;; esac
FAKE_SSH_LOG=$TRASH/ssh.log
export FAKE_SSH_LOG
fake_ssh_on_path fake-ssh-here.sh || exit 1

cat >"$TRASH/run.ini" <<EOF
[run]
name = t0620
repeat = 1
[guest]
uri = qemu+ssh://root@fakebox/system
[matrix]
where = guest
host_thp = $thp_now
guest_thp = never
[workload]
dir = $TOP/configs/workloads
name = randwalk
EOF

# refused SET WANT: 'vmtax run --set SET' exits 2 saying WANT (a fixed
# string), makes no run directory and runs no ssh
refused() {
	rm -f "$FAKE_SSH_LOG" &&
	test_expect_code 2 "$VMTAX" run run.ini --out out --set "$1" 2>err &&
	cat err &&
	grep -qF -- "$2" err &&
	test ! -e out &&
	test ! -e "$FAKE_SSH_LOG"
}

test_expect_success 'bare-metal cells need [fleet]' '
	refused matrix.where=bare-metal,guest \
		"'\''bare-metal'\'' with guests on the remote libvirt of '\''fakebox'\'': bare-metal cells would run on this host, not there; that needs [fleet]"
'

test_expect_success 'a host_thp axis needs [fleet]' '
	refused matrix.host_thp=always,never \
		"host_thp is an axis (2 modes) with guests on the remote libvirt of '\''fakebox'\'': its THP is not set from here; that needs [fleet]"
'

test_expect_success 'a [host] knob needs [fleet]' '
	refused host.thp.defrag=never \
		"[host] thp.defrag with guests on the remote libvirt of '\''fakebox'\'': its knobs are not set from here; that needs [fleet]"
'

test_expect_success 'npt (a kvm module reload there) needs [fleet]' '
	refused matrix.npt=on,off \
		"npt with guests on the remote libvirt of '\''fakebox'\'': it reloads the kvm module there; that needs [fleet]"
'

test_expect_success 'paging = shadow needs [fleet]' '
	refused matrix.paging=shadow \
		"'\''shadow'\'' with guests on the remote libvirt of '\''fakebox'\'': paging is set by reloading the kvm module there; that needs [fleet]"
'

test_expect_success 'hugetlb backing needs [fleet]' '
	refused matrix.backing=thp,hugetlb-2M \
		"'\''hugetlb-2M'\'' with guests on the remote libvirt of '\''fakebox'\'': its hugetlbfs pool is not reserved from here; that needs [fleet]"
'

test_expect_success 'a debian image is not refused: it goes there when the run starts' '
	debian_layout dl &&
	dl/vmtax run run.ini --dry-run --set guest.image=debian >deb.txt 2>deb.err &&
	cat deb.err &&
	grep -q "on the remote libvirt of '\''fakebox'\''" deb.txt &&
	grep -q "^guest files: .*, disk $TRASH/dl/images/$DEBIAN_STANDIN.qcow2$" deb.txt
'

test_expect_success 'pin names this host'\''s CPUs' '
	refused guest.pin=auto \
		"pin = auto with guests on the remote libvirt of '\''fakebox'\'': it names this host'\''s CPUs"
'

test_expect_success 'a command= URI is refused' '
	refused "guest.uri=qemu+ssh://root@fakebox/system?command=/tmp/x" \
		"refusing libvirt URI '\''qemu+ssh://root@fakebox/system?command=/tmp/x'\'': parameter '\''command='\'' names a program for libvirt to run"
'

test_expect_success 'an ssh option as the host is refused' '
	refused "guest.uri=qemu+ssh://root@-oProxyCommand=x/system" \
		"host '\''-oProxyCommand=x'\'' starts with '\''-'\'' (ssh would take it as an option)"
'

test_expect_success 'a remote /session and the tcp transport are refused' '
	refused "guest.uri=qemu+ssh://root@fakebox/session" \
		"a remote '\''/session'\'' is the ssh user'\''s own libvirtd" &&
	refused "guest.uri=qemu+tcp://fakebox/system" \
		"transport '\''tcp'\'' is unencrypted and unauthenticated"
'

test_expect_success 'a host_thp other than the remote host'\''s is refused (asked over ssh)' '
	test_expect_code 2 "$VMTAX" run run.ini --out out \
		--set matrix.host_thp=$thp_other 2>err &&
	cat err &&
	grep -qF "host_thp = $thp_other, but '\''fakebox'\'' (the remote libvirt'\''s host) runs THP $thp_now: its THP is not set from here (that needs [fleet]); give host_thp = $thp_now" err &&
	test ! -e out &&
	grep -q "^ssh .*-o BatchMode=yes .*-o StrictHostKeyChecking=yes .*-- root@fakebox echo thp=" "$FAKE_SSH_LOG"
'

# A guest larger than the remote host (issue 37): its CPUs and available
# memory, asked over ssh, refuse it with both figures.
ncpus=$(getconf _NPROCESSORS_ONLN)
total_gib=$(awk '/^MemTotal:/ { print int($2 / 1048576) + 1 }' /proc/meminfo)
test_expect_success 'a guest with more vCPUs than the remote host has CPUs is refused' '
	test_expect_code 2 "$VMTAX" run run.ini --dry-run \
		--set guest.vcpus=$((ncpus + 1)) 2>err &&
	cat err &&
	grep -qF "cell '\''guest/host-thp=$thp_now/guest-thp=never'\'' asks for $((ncpus + 1)) vCPUs, and '\''fakebox'\'' (the remote libvirt'\''s host) has $ncpus CPUs online: give [guest] vcpus $ncpus or fewer" err
'
test_expect_success 'a guest larger than the remote host'\''s available memory is refused' '
	test_expect_code 2 "$VMTAX" run run.ini --dry-run \
		--set guest.memory=${total_gib}G 2>err &&
	cat err &&
	grep -qE "cell .guest/host-thp=$thp_now/guest-thp=never. asks for a $total_gib.0 GiB guest, and .fakebox. \(the remote libvirt.s host\) has [0-9.]+ GiB available \(MemAvailable\): lower \[guest\] memory" err
'

test_expect_success 'an unreachable remote host is refused, named' '
	test_expect_code 2 "$VMTAX" run run.ini --out out \
		--set guest.uri=qemu+ssh://root@otherbox/system 2>err &&
	cat err &&
	grep -qF "cannot reach '\''root@otherbox'\'', the remote libvirt'\''s host, over ssh: ssh: Could not resolve hostname otherbox" err &&
	test ! -e out
'

# probe VENDOR: what the remote host says with FAKE_SSH_PROBE (its THP this
# host's, /dev/kvm, CPU vendor_id VENDOR)
probe() {
	printf "thp=%s\nkvm=yes\nvendor=%s\nhostname=farhost\n" \
		"$(cat /sys/kernel/mm/transparent_hugepage/enabled)" "$1" >"$TRASH/probe"
}

test_expect_success 'a KVM host of no known CPU vendor is refused: its guests'\'' paging has no name' '
	probe CentaurHauls &&
	FAKE_SSH_PROBE=$TRASH/probe test_expect_code 2 "$VMTAX" run run.ini --out out 2>err &&
	cat err &&
	grep -qxF "run.ini: cannot tell which paging KVM guests get on '\''fakebox'\'' (the remote libvirt'\''s host): its CPU vendor '\''CentaurHauls'\'' is none of GenuineIntel, AuthenticAMD, HygonGenuine" err &&
	test ! -e out
'

test_expect_success 'a Hygon KVM host is not refused (its paging is npt)' '
	probe HygonGenuine &&
	FAKE_SSH_PROBE=$TRASH/probe "$VMTAX" run run.ini --dry-run >hygon.txt 2>hygon.err &&
	cat hygon.err &&
	! grep -q "cannot tell" hygon.err &&
	grep -q "on the remote libvirt of '\''fakebox'\''" hygon.txt
'

test_expect_success 'the dry run says where the guests run' '
	"$VMTAX" run run.ini --dry-run >out.txt &&
	grep -q "on the remote libvirt of '\''fakebox'\''" out.txt
'

# A run whose guests ran on a remote libvirt, as results.json records it
# (run.remote_libvirt, docs/results-format.md): a fixture's cells with it
# added, rendered in every format; nothing runs.
line="guest cells ran on farhost ('fakebox', qemu+ssh://root@fakebox/system); the host above is the machine that drove them"
jq '.run.remote_libvirt = {uri: "qemu+ssh://root@fakebox/system",
	host: "fakebox", ssh: "root@fakebox", hostname: "farhost",
	thp: "never", files_copied: 2, files_reused: 0,
	note: "the guest cells ran on this libvirt'"'"'s host; run.host is the machine that drove them"}' \
	"$TOP/tests/fixtures/results-kvm.json" >"$TRASH/remote-results.json"

test_expect_success 'every report format says the guests ran on the remote libvirt' '
	for f in text md csv json html; do
		"$VMTAX" report remote-results.json --format $f >remote.$f || return 1
	done &&
	grep -qxF "remote libvirt: $line" remote.text &&
	grep -qxF -- "- **remote libvirt**: $line" remote.md &&
	grep -qF "<tr><th>remote libvirt</th><td>guest cells ran on farhost (&#39;fakebox&#39;, qemu+ssh://root@fakebox/system); the host above is the machine that drove them</td></tr>" remote.html &&
	grep -q "^remote_libvirt,,\"guest cells ran on farhost (.fakebox., qemu+ssh://root@fakebox/system); the host above is the machine that drove them\",,," remote.csv &&
	test "$(grep -c "^remote_libvirt," remote.csv)" = 1 &&
	python3 -c "
import csv, sys
rows = list(csv.reader(open(\"remote.csv\")))
row = [r for r in rows if r[0] == \"remote_libvirt\"][0]
sys.exit(not (len(row) == len(rows[0]) and row[2] == sys.argv[1]))" "$line" &&
	jq -e ".remote_libvirt.summary == \"$line\" and .remote_libvirt.host == \"fakebox\"" remote.json &&
	"$VMTAX" report "$TOP/tests/fixtures/results-kvm.json" --format csv >plain.csv &&
	! grep -q "^remote_libvirt" plain.csv
'

test_done
