#!/bin/sh
# make bench: figures, not asserts.  Prints each command it times.
#  1. the runner's overhead: randwalk timed by vmtax vs run directly, A B A B
#  2. domain start to agent hello, vs plain qemu-system-x86_64 direct boot of
#     the same kernel and initramfs to /init, under the same accel
#  3. peak RSS of vmtax and of the guest agent
#  4. the profile run's overhead (docs/profile.md): unprofiled sample vs the
#     profiled run right after it, bare metal A B A B, and one guest cell
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
VMTAX=${VMTAX:-$TOP/build/vmtax}
BIN=$TOP/build/bin
PAIRS=${PAIRS:-5}
W=$(mktemp -d /tmp/vmtax-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
now() { date +%s.%N; }

echo "== 1. runner overhead (randwalk --size-mib 256 --reads 1500000, host THP $thp)"
cat >"$W/bare.ini" <<EOF2
[run]
name = bench
repeat = 1
[matrix]
where = bare-metal
host_thp = $thp
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 256
READS = 1500000
EOF2
echo "   A: $VMTAX run bare.ini (elapsed_s of the sample)"
echo "   B: $BIN/randwalk --size-mib 256 --reads 1500000 --seed 1 (timed by the shell)"
suma=0 sumb=0
i=0
while [ $i -lt "$PAIRS" ]; do
	"$VMTAX" run "$W/bare.ini" --out "$W/a$i" >/dev/null 2>&1
	a=$(jq '.cells[0].samples[0].elapsed_s' "$W/a$i/results.json")
	t0=$(now)
	"$BIN/randwalk" --size-mib 256 --reads 1500000 --seed 1 >/dev/null
	t1=$(now)
	b=$(echo "$t1 - $t0" | bc -l)
	printf '   pair %d: A %.4f s  B %.4f s\n' "$i" "$a" "$b"
	suma=$(echo "$suma + $a" | bc -l)
	sumb=$(echo "$sumb + $b" | bc -l)
	i=$((i + 1))
done
printf '   mean A %.4f s, mean B %.4f s, A/B = %.4f\n' \
	"$(echo "$suma / $PAIRS" | bc -l)" "$(echo "$sumb / $PAIRS" | bc -l)" \
	"$(echo "$suma / $sumb" | bc -l)"

echo "== 2. domain start to agent hello vs plain QEMU boot to /init"
cat >"$W/guest.ini" <<EOF2
[run]
name = benchg
repeat = 1
[guest]
vcpus = 2
memory = 1G
[matrix]
where = guest
host_thp = $thp
guest_thp = always
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 16
READS = 1000
EOF2
echo "   A: /usr/bin/time -f %M $VMTAX run guest.ini   (observed.boot_to_hello_s)"
/usr/bin/time -f '%M' -o "$W/rss" "$VMTAX" run "$W/guest.ini" --out "$W/g" >/dev/null 2>&1
hello=$(jq '.cells[0].observed.boot_to_hello_s' "$W/g/results.json")
accel=$(jq -r '.run.host.accel' "$W/g/results.json")
kernel=$("$VMTAX" image path kernel)
initrd=$("$VMTAX" image path initrd)
echo "   B: qemu-system-x86_64 -machine q35,accel=$accel -m 1G -smp 2 -kernel $kernel -initrd $initrd -append console=ttyS0 -serial file:LOG -display none"
t0=$(now)
qemu-system-x86_64 -machine "q35,accel=$accel" -m 1G -smp 2 -kernel "$kernel" \
	-initrd "$initrd" -append "console=ttyS0 panic=-1" -serial "file:$W/qemu.log" \
	-display none -no-reboot -nodefaults &
qpid=$!
i=0
while ! grep -q "vmtax-init: start" "$W/qemu.log" 2>/dev/null && [ $i -lt 1200 ]; do
	sleep 0.05
	i=$((i + 1))
done
t1=$(now)
kill "$qpid" 2>/dev/null || true
wait "$qpid" 2>/dev/null || true
printf '   vmtax: domain start -> agent hello %.2f s (libvirt, %s)\n' "$hello" "$accel"
printf '   qemu:  process start -> /init running %.2f s (%s)\n' "$(echo "$t1 - $t0" | bc -l)" "$accel"

echo "== 3. peak RSS"
printf '   vmtax run (one guest cell): %s kB (GNU time %%M)\n' "$(cat "$W/rss")"
printf '   vmtax-agent in the guest:   %s kB (getrusage in the agent)\n' \
	"$(jq '.cells[0].observed.agent_max_rss_kb' "$W/g/results.json")"

echo "== 4. profile overhead (docs/profile.md): the profiled run vs an unprofiled one"
echo "   each pair: $VMTAX run bare.ini --set run.profile=on --set run.warmup=1: A the sample,"
echo "   B the profile run right after it (sampled at 997 Hz with call chains);"
echo "   elapsed, and task-clock (CPU time: less sensitive to a busy host)"
suma=0 sumb=0 sumca=0 sumcb=0
i=0
while [ $i -lt "$PAIRS" ]; do
	"$VMTAX" run "$W/bare.ini" --set run.profile=on --set run.warmup=1 --out "$W/p$i" >/dev/null 2>&1
	r="$W/p$i/results.json"
	a=$(jq '.cells[0].samples[0].elapsed_s' "$r")
	b=$(jq '.cells[0].observed.profile.elapsed_s' "$r")
	ca=$(jq '.cells[0].samples[0].counters["task-clock"] / 1e9' "$r")
	cb=$(jq '.cells[0].observed.profile.task_clock_s' "$r")
	printf '   pair %d: A %.4f s (cpu %.4f)  B %.4f s (cpu %.4f), %s samples of %s\n' \
		"$i" "$a" "$ca" "$b" "$cb" "$(jq '.cells[0].observed.profile.samples' "$r")" \
		"$(jq -r '.cells[0].observed.profile.event' "$r")"
	suma=$(echo "$suma + $a" | bc -l)
	sumb=$(echo "$sumb + $b" | bc -l)
	sumca=$(echo "$sumca + $ca" | bc -l)
	sumcb=$(echo "$sumcb + $cb" | bc -l)
	i=$((i + 1))
done
printf '   elapsed: mean A %.4f s, mean B %.4f s, overhead %+.2f%%\n' \
	"$(echo "$suma / $PAIRS" | bc -l)" "$(echo "$sumb / $PAIRS" | bc -l)" \
	"$(echo "($sumb / $suma - 1) * 100" | bc -l)"
printf '   cpu:     mean A %.4f s, mean B %.4f s, overhead %+.2f%%\n' \
	"$(echo "$sumca / $PAIRS" | bc -l)" "$(echo "$sumcb / $PAIRS" | bc -l)" \
	"$(echo "($sumcb / $sumca - 1) * 100" | bc -l)"
sed -e 's/^name = benchg/name = benchp/' -e 's/^repeat = 1/repeat = 3\nwarmup = 1\nprofile = on/' \
	-e 's/^SIZE_MIB = 16/SIZE_MIB = 256/' -e 's/^READS = 1000/READS = 1500000/' \
	"$W/guest.ini" >"$W/guestp.ini"
echo "   guest: $VMTAX run guestp.ini (randwalk 256 MiB, 3 samples then the profile run)"
"$VMTAX" run "$W/guestp.ini" --out "$W/gp" >/dev/null 2>&1
r="$W/gp/results.json"
printf '   guest (%s): samples %s s, profile run %.4f s, %s samples of %s\n' \
	"$accel" "$(jq -c '[.cells[0].samples[].elapsed_s * 1000 | round / 1000]' "$r")" \
	"$(jq '.cells[0].observed.profile.elapsed_s' "$r")" \
	"$(jq '.cells[0].observed.profile.samples' "$r")" \
	"$(jq -r '.cells[0].observed.profile.event' "$r")"
printf '   guest overhead: elapsed %+.2f%%, cpu %+.2f%%\n' \
	"$(jq '.cells[0].observed.profile.overhead * 100' "$r")" \
	"$(jq '.cells[0].observed.profile.overhead_cpu * 100' "$r")"
