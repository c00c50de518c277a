#!/bin/sh
# lockup-loop.sh [BOOTS] - boot the tiny TCG guest BOOTS times and exec a
# workload EXECS times in each boot; count the boots whose kernel logs a soft
# or hard lockup, an RCU stall or an oops (docs/tcg-lockup.md, issue 21).
#
# DRIVER=agent (default): as 'vmtax run' does it.  build/tests/agent-drive
#   boots the tiny image through libvirt (the domain vmtax makes: q35, TCG,
#   the CPU libvirt gives, qemu64 unless CPU/FEATURES say), sets the guest's
#   THP, then sends EXECS "run" requests of /opt/vmtax/bin/$WL $WL_ARGS with
#   the perf counters on, each run a fork, 'sh -c', an exec of the workload;
#   it watches the console as vmtax does and gives up on a lockup there.
# DRIVER=qemu: plain qemu-system-x86_64 (as tests/bench.sh section 2) with
#   the tiny image plus /loop.sh as its init, which runs 'sh -c "$WL
#   $WL_ARGS"' EXECS times: no agent, no libvirt, no perf counters.
# Knobs (environment):
#   CPU       QEMU CPU model (default: none given, libvirt's/QEMU's qemu64)
#   FEATURES  CPU features, vmtax's spelling: "-erms -fsrm" (agent) or QEMU's
#             ",-erms,-fsrm" appended to -cpu (qemu)
#   SMP       vCPUs (2)            MEM  MiB (2048)
#   GTHP      guest THP enabled: always, madvise, never (never)
#   HTHP      host THP enabled during the loop (default: as found; restored)
#   EXECS     runs per boot (10)   BOOT_S  seconds a boot may take (600)
#   WL, WL_ARGS  the workload (randwalk --size-mib 1024 --reads 1000 --seed 1)
#   APPEND    extra kernel command line
#   INITRD    the tiny image to boot (default: vmtax image path initrd)
#   KEEP      a directory to keep the consoles of boots that locked up in
# Prints one line a boot and a last line:
#   lockups L in B boots (N runs; DRIVER ..., CPU ..., SMP .., GTHP .., ...)
# Exit status 0 whatever the count, 1 on a setup error.  Boots guests and may
# set host THP: run it under the host lock (flock -o /tmp/vmtax-host.lock).
set -eu
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
VMTAX=${VMTAX:-$TOP/build/vmtax}
DRIVE=${DRIVE:-$TOP/build/tests/agent-drive}
BOOTS=${1:-20}
DRIVER=${DRIVER:-agent}
CPU=${CPU:-}
FEATURES=${FEATURES:-}
SMP=${SMP:-2}
MEM=${MEM:-2048}
GTHP=${GTHP:-never}
EXECS=${EXECS:-10}
BOOT_S=${BOOT_S:-600}
WL=${WL:-randwalk}
WL_ARGS=${WL_ARGS:---size-mib 1024 --reads 1000 --seed 1}
APPEND=${APPEND:-}
kernel=$("$VMTAX" image path kernel)
initrd=${INITRD:-$("$VMTAX" image path initrd)}
# QEMU (libvirt-qemu) reads the scratch directory: 0755.
W=$(mktemp -d /tmp/vmtax-lockup.XXXXXX)
chmod 755 "$W"
pid=
THP=/sys/kernel/mm/transparent_hugepage/enabled
hthp_before=$(sed 's/.*\[\(.*\)\].*/\1/' $THP)
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; echo "$hthp_before" >$THP; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
[ -z "${HTHP:-}" ] || echo "$HTHP" >$THP
hthp=$(sed 's/.*\[\(.*\)\].*/\1/' $THP)
bad='soft lockup|hard LOCKUP|self-detected stall|detected stalls on CPUs|Oops:|BUG: unable|BUG: kernel NULL|Kernel panic'

case $DRIVER in
agent)
	[ -x "$DRIVE" ] || { echo "no $DRIVE (make)" >&2; exit 1; }
	cmdline="console=ttyS0 panic=-1 $APPEND"
	{
		echo "{\"type\":\"set-thp\",\"enabled\":\"$GTHP\"}"
		i=0
		while [ $i -lt "$EXECS" ]; do
			echo "{\"type\":\"run\",\"cmd\":\"/opt/vmtax/bin/$WL $WL_ARGS\",\"counters\":true,\"heartbeat_s\":1,\"timeout_s\":600,\"cwd\":\"/tmp\"}"
			i=$((i + 1))
		done
	} >"$W/requests"
	echo "# AGENT_DRIVE_CPU='$CPU' AGENT_DRIVE_CPU_FEATURES='$FEATURES' $DRIVE $kernel $initrd $SMP $MEM '$cmdline' CONSOLE <requests ($EXECS runs of $WL $WL_ARGS, guest THP $GTHP)"
	;;
qemu)
	mkdir -p "$W/root"
	cat >"$W/root/loop.sh" <<'EOF'
#!/bin/sh
export PATH=/opt/vmtax/bin:/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mount -t tmpfs -o mode=1777 tmpfs /tmp
n=1 thp=never wl=randwalk args=
for a in $(cat /proc/cmdline); do
	case $a in
	loop.execs=*) n=${a#*=} ;;
	loop.thp=*) thp=${a#*=} ;;
	loop.wl=*) wl=${a#*=} ;;
	loop.args=*) args=$(echo "${a#*=}" | tr : ' ') ;;
	esac
done
echo "$thp" >/sys/kernel/mm/transparent_hugepage/enabled
echo "loop: start, $n execs of $wl $args, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
i=0
while [ $i -lt "$n" ]; do
	/bin/sh -c "$wl $args" >/dev/null || echo "loop: exec $i exited $?"
	i=$((i + 1))
done
echo "loop: done $i"
poweroff -f
EOF
	chmod 755 "$W/root/loop.sh"
	(cd "$W/root" && echo loop.sh | cpio --quiet -o -H newc -R 0:0) | gzip -n >"$W/loop.cpio.gz"
	cat "$initrd" "$W/loop.cpio.gz" >"$W/initrd"
	chmod 644 "$W/initrd"
	args=$(echo "$WL_ARGS" | tr ' ' :)
	cmdline="console=ttyS0 panic=-1 rdinit=/loop.sh loop.execs=$EXECS loop.thp=$GTHP loop.wl=$WL loop.args=$args $APPEND"
	cpuopt=
	[ -z "$CPU$FEATURES" ] || cpuopt="-cpu ${CPU:-qemu64}$FEATURES"
	echo "# qemu-system-x86_64 -machine q35,accel=tcg $cpuopt -m $MEM -smp $SMP -kernel $kernel -initrd INITRD+loop.cpio.gz -append '$cmdline'"
	;;
*)
	echo "DRIVER is agent or qemu" >&2
	exit 1
	;;
esac

conds="DRIVER $DRIVER, initrd $(basename "$(readlink -f "$initrd")"), CPU ${CPU:-default}${FEATURES:+ $FEATURES}, SMP $SMP, MEM $MEM, guest THP $GTHP, host THP $hthp, $EXECS runs of $WL $WL_ARGS${APPEND:+, $APPEND}"
b=0 locked=0 failed=0 runs=0
while [ "$b" -lt "$BOOTS" ]; do
	con=$W/console.$b
	rm -f "$con"
	t0=$(date +%s)
	if [ "$DRIVER" = agent ]; then
		AGENT_DRIVE_CPU=$CPU AGENT_DRIVE_CPU_FEATURES=$FEATURES \
			"$DRIVE" "$kernel" "$initrd" "$SMP" "$MEM" "$cmdline" "$con" \
			<"$W/requests" >"$W/answers" 2>"$W/err" &
	else
		# shellcheck disable=SC2086
		qemu-system-x86_64 -machine q35,accel=tcg $cpuopt -m "$MEM" -smp "$SMP" \
			-kernel "$kernel" -initrd "$W/initrd" -append "$cmdline" \
			-serial "file:$con" -display none -no-reboot -nodefaults &
	fi
	pid=$!
	what=failed
	while kill -0 "$pid" 2>/dev/null; do
		# agent-drive gives up by itself on a lockup in the console
		if [ "$DRIVER" = qemu ] && grep -Eq "$bad" "$con" 2>/dev/null; then
			break
		fi
		if [ $(($(date +%s) - t0)) -gt "$BOOT_S" ]; then
			what=timeout
			break
		fi
		sleep 1
	done
	kill "$pid" 2>/dev/null || true
	rc=0
	wait "$pid" 2>/dev/null || rc=$?
	pid=
	if [ "$DRIVER" = agent ]; then
		n=$(grep -c '"type": *"run", *"ret": *0' "$W/answers" || true)
		[ "$rc" = 0 ] && [ "$n" = "$EXECS" ] && what=ok
	else
		n=$(sed -n 's/^loop: done //p' "$con" 2>/dev/null | head -n 1)
		[ "${n:-0}" = "$EXECS" ] && what=ok
	fi
	grep -Eq "$bad" "$con" 2>/dev/null && what=lockup
	runs=$((runs + ${n:-0}))
	case $what in
	lockup)
		locked=$((locked + 1))
		if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$con" "$KEEP/console.$$.$b"; fi ;;
	ok) ;;
	*)
		failed=$((failed + 1))
		[ "$DRIVER" = qemu ] || sed 's/^/#   /' "$W/err"
		if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$con" "$KEEP/failed.$$.$b" &&
			cp "$W/answers" "$KEEP/failed.$$.$b.answers"; fi 2>/dev/null || true ;;
	esac
	echo "boot $b: $what after ${n:-0} runs in $(($(date +%s) - t0)) s$(grep -Em1 "$bad" "$con" 2>/dev/null | sed 's/^/: /')"
	b=$((b + 1))
done
echo "lockups $locked in $BOOTS boots ($runs runs, $failed failed otherwise; $conds)"
