#!/bin/sh
# host: exclusive
# Any setting is an axis: a workload parameter and a host knob on bare metal,
# guest keys (vcpus, cmdline) and a guest knob in real tiny guests.  Each
# cell gets its own value, records what it asked for and what was read back,
# and the host is left as found.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root to set host knobs"

thp_before=$(thp_get enabled)
defrag_before=$(thp_get defrag)
swappiness_before=$(cat /proc/sys/vm/swappiness)
mkdir -p "$TRASH/wl"
cat >"$TRASH/wl/echo.ini" <<'EOF2'
[workload]
description = prints its parameter and the host's swappiness
run = echo "n: $N"; echo "swappiness: $(cat /proc/sys/vm/swappiness)"
metric = regex
metric_regex = n: ([0-9]+)
unit = points
better = higher
[param.N]
default = 1
EOF2
cat >"$TRASH/bare.ini" <<EOF2
[run]
name = t0240
repeat = 1
[matrix]
where = bare-metal
host_thp = always
[host]
thp.defrag = never, madvise
sysctl.vm.swappiness = 33
[workload]
dir = $TRASH/wl
name = echo
N = 3, 5
EOF2

test_expect_success 'a host knob list and a parameter list make four bare-metal cells' '
	"$VMTAX" run bare.ini --out bare >out 2>err &&
	jq -r ".cells[].id" bare/results.json >ids &&
	cat >ids.want <<-\EOF2 &&
	bare-metal/host.thp.defrag=never/host-thp=always/N=3
	bare-metal/host.thp.defrag=never/host-thp=always/N=5
	bare-metal/host.thp.defrag=madvise/host-thp=always/N=3
	bare-metal/host.thp.defrag=madvise/host-thp=always/N=5
	EOF2
	test_cmp ids.want ids
'

test_expect_success 'each cell ran with its own parameter and knob values, read back' '
	for i in 0 1 2 3; do
		n=$(jq -r ".cells[$i].env.params.N" bare/results.json) &&
		test "$(jq ".cells[$i].samples[0].metric" bare/results.json)" = "$n" &&
		d=$(jq -r ".cells[$i].axes[\"host.thp.defrag\"]" bare/results.json) &&
		test "$(jq -r ".cells[$i].observed.host_knobs[\"thp.defrag\"]" bare/results.json)" = "$d" &&
		test "$(jq -r ".cells[$i].observed.host_knobs[\"sysctl.vm.swappiness\"]" bare/results.json)" = 33 || exit 1
	done &&
	grep -q "swappiness: 33" bare/logs/bare-metal_host.thp.defrag_never_host-thp_always_N_3.sample-0.out
'

test_expect_success 'results.json carries the axes and follows the schema' '
	jq -e ".axes | map(.name) == [\"where\", \"host.thp.defrag\", \"host-thp\", \"guest-thp\", \"N\"]" bare/results.json &&
	jq -e ".axes[4].numeric and .axes[4].numbers == [3, 5]" bare/results.json &&
	python3 "$TOP/tests/check-results.py" bare/results.json
'

test_expect_success 'vmtax compare --by a parameter axis' '
	# the pivot is the subject here, not the verdict (exit 1 on a
	# significant change): --exit-zero
	"$VMTAX" compare --exit-zero bare --by N >cmp &&
	grep -q "N=5" cmp
'

test_expect_success 'the host knobs are as before' '
	test "$(thp_get defrag)" = "$defrag_before" &&
	test "$(cat /proc/sys/vm/swappiness)" = "$swappiness_before"
'

if test_prereq LIBVIRT && test_prereq TINY; then
cat >"$TRASH/guest.ini" <<EOF2
[run]
name = t0240g
repeat = 1
boot_timeout = 180
[guest]
vcpus = 1, 2
memory = 1G
cmdline = "", "vmtax.t0240=a,b"
sysctl.vm.swappiness = 11
[matrix]
where = guest
host_thp = always
guest_thp = never
exclude = guest/*/vcpus=2/cmdline=
[workload]
dir = $TRASH/wl
name = echo
EOF2

test_expect_success 'guest keys and a guest knob as axes in real guests' '
	"$VMTAX" run guest.ini --out guest >out 2>err &&
	jq -r ".cells[].id" guest/results.json >ids &&
	cat >ids.want <<-\EOF2 &&
	guest/host-thp=always/guest-thp=never/vcpus=1/cmdline=
	guest/host-thp=always/guest-thp=never/vcpus=1/cmdline=vmtax.t0240=a,b
	guest/host-thp=always/guest-thp=never/vcpus=2/cmdline=vmtax.t0240=a,b
	EOF2
	test_cmp ids.want ids &&
	test "$(jq "[.cells[] | select(.status == \"ok\")] | length" guest/results.json)" = 3
'

test_expect_success 'each guest saw its vCPUs, its command line and its knob' '
	for i in 0 1 2; do
		v=$(jq -r ".cells[$i].env.vcpus" guest/results.json) &&
		test "$(jq -r ".cells[$i].observed.guest_cpus" guest/results.json)" = "$v" &&
		c=$(jq -r ".cells[$i].env.cmdline" guest/results.json) &&
		jq -r ".cells[$i].observed.guest_cmdline" guest/results.json | grep -qF -- "$c" &&
		test "$(jq -r ".cells[$i].observed.guest_knobs[\"sysctl.vm.swappiness\"]" guest/results.json)" = 11 &&
		jq -e ".cells[$i].observed.guest_directmap_kb[\"2M\"] > 0" guest/results.json &&
		test "$(jq -r ".cells[$i].observed.guest_userland" guest/results.json)" = busybox || exit 1
	done &&
	grep -q "swappiness: 11" guest/logs/*vcpus_2*.sample-0.out &&
	python3 "$TOP/tests/check-results.py" guest/results.json
'

test_expect_success 'every guest sample says why there are no KVM stats here' '
	test "$(jq "[.cells[].samples[] | select(.kvm == null and (.kvm_why | length) > 0)] | length" guest/results.json)" = 3
'
else
	test_skip LIBVIRT,TINY 'guest axes'
fi

test_expect_success 'host THP is as before and no vmtax domain is left' '
	test "$(thp_get enabled)" = "$thp_before" &&
	test -z "$(virsh -c qemu:///system list --name 2>/dev/null | grep vmtax- || true)"
'
test_done
