#!/bin/sh
# make bench: figures, not asserts.  Prints each command it times.
#  1. the runner's overhead: randwalk timed by vmtax vs run directly, A B A B
#  2. domain start to agent hello, vs plain qemu-system-x86_64 direct boot of
#     the same kernel, initramfs and command line, under the same accel,
#     split into libvirt start, QEMU + firmware, kernel, module loading and
#     the agent's hello, each with its ratio to plain QEMU's; then boot to
#     hello through the kernel's PVH entry against the bzImage (the reference)
#  3. a small matrix's wall time against the sum of its workload times
#  4. peak RSS of vmtax and of the guest agent
#  5. the profile run's overhead (docs/profile.md): unprofiled sample vs the
#     profiled run right after it, bare metal A B A B (PAIRS), and a guest
#     cell's samples vs its profile run (GRUNS guests), and pairs of runs in
#     one guest in alternating order (GBOOTS boots x GPAIRS pairs, through
#     tests/agent-drive); the last line sums up
#  6. the lab (docs/lab.md): its image built from scratch from this host's
#     packages in a scratch tree, against supermin --prepare/--build of the
#     same packages (the reference, in the same run; skipped where the host
#     lacks them); then, when the lab image is built: one run of
#     configs/lab-npt.ini cut to NPT on, THP always, with the inner guest's
#     kernel command line as an axis (vmtax's, loglevel=5, against
#     loglevel=7, every console line: the reference, in the same run),
#     LBOOTS boots each: the lab's boot to hello and to ready, each inner
#     guest's boot to hello (the reference: a plain QEMU boot of the same
#     kernel and tiny image in the lab, LBOOTS times, timed to the agent's
#     start), and the run's wall time against its samples';
#     before it, lab ready restored vs booted ([lab] restore = on, off)
#  7. make check per test: one run of tests/run-shell-tests.sh (CHECK_J at a
#     time, default its own; CHECK_T filters as its T=) with the sanitized
#     vmtax 'make check' uses (build/san/vmtax, else build/vmtax): each
#     test's wall time, its lane (host: one at a time, or beside them) and
#     that time in tiny-guest boots, the reference: one guest cell's boot to
#     hello (observed.boot_to_hello_s), measured just before in this run; then
#     the runner's wall against the sum of its tests' times and against the
#     host lane's sum (the least it can take)
#  8. the statistics: the hierarchical bootstrap's time against the same
#     resampling draws summed (tests/bench-stats.c), in the same run
#  9. the run's estimate (docs/estimate.md) against its measured wall:
#     'vmtax run CONFIG --dry-run' (this host's figures, from its last runs),
#     then the run, timed; its error.  configs/demo.ini always; the lab
#     table (EST_LAB_CONFIG, default configs/lab-npt.ini) and
#     configs/kbuild-small.ini only with EST_SLOW=1 (tens of minutes each:
#     their estimates are printed all the same), each skipped with the
#     reason where this host cannot run it (its dry run's refusal)
# 10. the profiler's symbolizer (docs/profile.md): what one profile's user
#     frames of a binary cost to name, per binary (tests/bench-symbolize.c):
#     a fresh symbolizer per round reads the symbol table (libelf) and names
#     20000 file offsets; best and mean of 20 rounds, and a hash of the names
#     (the same build before and after a change names the same)
# SECTIONS="2 3" runs only those.
set -eu
TOP=$(cd "$(dirname "$0")/.." && pwd)
VMTAX=${VMTAX:-$TOP/build/vmtax}
BIN=$TOP/build/bin
PAIRS=${PAIRS:-5}
BOOTS=${BOOTS:-3}
GRUNS=${GRUNS:-4}
GBOOTS=${GBOOTS:-3}
GPAIRS=${GPAIRS:-10}
LBOOTS=${LBOOTS:-3}
W=$(mktemp -d /tmp/vmtax-bench.XXXXXX)
# KEEP=DIR keeps the scratch directory (run directories, consoles) there.
trap 'if [ -n "${KEEP:-}" ]; then rm -rf "$KEEP"; mv "$W" "$KEEP"; else rm -rf "$W"; fi' EXIT
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
now() { date +%s.%N; }
want() { case " ${SECTIONS:-1 2 3 4 5 6 7 8 9 10} " in *" $1 "*) return 0 ;; esac; return 1; }

# The cells the sections run (section 5 reuses 1's and 2's): written
# first, so that any SECTIONS works on its own.
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

if want 1; then
echo "== 1. runner overhead (randwalk --size-mib 256 --reads 1500000, host THP $thp)"
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

fi
if want 2; then
echo "== 2. domain start to agent hello vs plain QEMU, where the time goes ($BOOTS boots each)"
# vmtax boots through libvirt; the reference is qemu-system-x86_64 started
# directly with the same kernel, initramfs and kernel command line.  Both
# consoles print guest uptimes at /init's start and at the agent's start
# (mkinitramfs-tiny.sh); the agent's hello carries its uptime and start
# (observed.boot_breakdown), and the host times the rest.
kernel=$("$VMTAX" image path kernel)
initrd=$("$VMTAX" image path initrd)
# guest uptime at a console line: "... 1.23 s since boot" / "... at 1.23 s"
up_init() { sed -n 's/.*vmtax-init: start, .*, \([0-9.]*\) s since boot.*/\1/p' "$1" | head -n 1; }
up_agent() { sed -n 's/.*vmtax-init: modules loaded, starting .* at \([0-9.]*\) s.*/\1/p' "$1" | head -n 1; }
waitfor() { # FILE PATTERN: poll every 10 ms, at most 120 s
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 12000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
}
sum() { echo "$1 + $2" | bc -l; }
echo "   A: /usr/bin/time -f %M $VMTAX run guest.ini   (observed.boot_breakdown, console)"
b=0 nobd=0
V_X=0 V_L=0 V_F=0 V_K=0 V_M=0 V_H=0 V_T=0 Q_F=0 Q_K=0 Q_M=0 Q_I=0 Q_T=0
while [ $b -lt "$BOOTS" ]; do
	/usr/bin/time -f '%M' -o "$W/rss" "$VMTAX" run "$W/guest.ini" --out "$W/g$b" >/dev/null 2>&1
	bd=".cells[0].observed.boot_breakdown"
	con=$(ls "$W/g$b"/logs/*.console.log | head -n 1)
	ui=$(up_init "$con") ua=$(up_agent "$con")
	if [ "$(jq "$bd.firmware_s != null" "$W/g$b/results.json")" != true ]; then
		# a vmtax without the breakdown: only the total
		nobd=1
		V_T=$(sum $V_T "$(jq ".cells[0].observed.boot_to_hello_s" "$W/g$b/results.json")")
	else
	V_L=$(sum $V_L "$(jq "$bd.libvirt_start_s" "$W/g$b/results.json")")
	V_F=$(sum $V_F "$(jq "$bd.firmware_s" "$W/g$b/results.json")")
	V_K=$(sum $V_K "$ui")
	V_M=$(sum $V_M "$(echo "$ua - $ui" | bc -l)")
	V_X=$(sum $V_X "$(jq "$bd.kernel_to_agent_s - $ua" "$W/g$b/results.json")")
	V_H=$(sum $V_H "$(jq "$bd.agent_to_hello_s" "$W/g$b/results.json")")
	V_T=$(sum $V_T "$(jq "$bd.total_s" "$W/g$b/results.json")")
	fi
	cmdline=$(jq -r '.cells[0].observed.guest_cmdline // "console=ttyS0 panic=-1"' "$W/g$b/results.json")
	accel=$(jq -r '.run.host.accel' "$W/g$b/results.json")
	[ $b -gt 0 ] || echo "   B: qemu-system-x86_64 -machine q35,accel=$accel -m 1G -smp 2 -kernel $kernel -initrd $initrd -append '$cmdline' -serial file:LOG -display none -no-reboot -nodefaults"
	rm -f "$W/qemu.log"
	t0=$(now)
	qemu-system-x86_64 -machine "q35,accel=$accel" -m 1G -smp 2 -kernel "$kernel" \
		-initrd "$initrd" -append "$cmdline" -serial "file:$W/qemu.log" \
		-display none -no-reboot -nodefaults &
	qpid=$!
	waitfor "$W/qemu.log" "vmtax-init: start"
	t1=$(now)
	waitfor "$W/qemu.log" "vmtax-init: modules loaded"
	t2=$(now)
	kill "$qpid" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
	qi=$(up_init "$W/qemu.log") qa=$(up_agent "$W/qemu.log")
	Q_I=$(sum $Q_I "$(echo "$t1 - $t0" | bc -l)")
	Q_T=$(sum $Q_T "$(echo "$t2 - $t0" | bc -l)")
	Q_F=$(sum $Q_F "$(echo "$t1 - $t0 - $qi" | bc -l)")
	Q_K=$(sum $Q_K "$qi")
	Q_M=$(sum $Q_M "$(echo "$qa - $qi" | bc -l)")
	b=$((b + 1))
done
row() { # NAME VMTAX_SUM QEMU_SUM (sums over the boots; "-" for none)
	if [ "$3" = - ]; then
		printf '   %-34s %7.2f s %9s\n' "$1" "$(echo "$2 / $BOOTS" | bc -l)" -
	else
		printf '   %-34s %7.2f s %7.2f s %6.2fx\n' "$1" "$(echo "$2 / $BOOTS" | bc -l)" \
			"$(echo "$3 / $BOOTS" | bc -l)" "$(echo "$2 / $3" | bc -l)"
	fi
}
printf '   %-34s %9s %9s %7s   (means over %d boots, %s)\n' "" vmtax "qemu" ratio "$BOOTS" "$accel"
if [ $nobd = 0 ]; then
row "libvirt start (XML to running)" "$V_L" -
row "QEMU + firmware to guest clock" "$V_F" "$Q_F"
row "kernel to /init" "$V_K" "$Q_K"
row "/init: module loading" "$V_M" "$Q_M"
row "/init: exec of the agent" "$V_X" -
row "agent: port, connect, hello" "$V_H" -
row "start to agent start" "$(echo "$V_T - $V_H - $V_X" | bc -l)" "$Q_T"
fi
row "start to hello (vmtax) / to /init" "$V_T" "$Q_I"
printf '   vmtax: domain start -> agent hello %.2f s; qemu: process start -> /init %.2f s: %.2fx\n' \
	"$(echo "$V_T / $BOOTS" | bc -l)" "$(echo "$Q_I / $BOOTS" | bc -l)" "$(echo "$V_T / $Q_I" | bc -l)"
# The boot above is through the kernel's PVH entry (docs/guest-image.md);
# the reference: the same guest booted from the bzImage (kernel = VMLINUZ,
# how every guest booted before), BOOTS boots each, alternated.
vmlinuz=$("$VMTAX" image path vmlinuz)
if [ "$vmlinuz" != "$kernel" ]; then
	sed "s|^\[guest\]|[guest]\nkernel = $vmlinuz|" "$W/guest.ini" >"$W/guest-bz.ini"
	echo "   PVH vs bzImage: $VMTAX run guest.ini (kernel = auto: $(basename "$kernel")) vs guest-bz.ini (kernel = $vmlinuz), observed.boot_to_hello_s"
	b=0 P_T=0 Z_T=0
	while [ $b -lt "$BOOTS" ]; do
		"$VMTAX" run "$W/guest.ini" --out "$W/p$b" >/dev/null 2>&1
		"$VMTAX" run "$W/guest-bz.ini" --out "$W/z$b" >/dev/null 2>&1
		p=$(jq '.cells[0].observed.boot_to_hello_s' "$W/p$b/results.json")
		z=$(jq '.cells[0].observed.boot_to_hello_s' "$W/z$b/results.json")
		printf '   boot %d: PVH %.2f s  bzImage %.2f s\n' "$b" "$p" "$z"
		P_T=$(sum $P_T "$p") Z_T=$(sum $Z_T "$z")
		b=$((b + 1))
	done
	printf '   boot to hello: PVH %.2f s, bzImage %.2f s (the reference): %.2fx\n' \
		"$(echo "$P_T / $BOOTS" | bc -l)" "$(echo "$Z_T / $BOOTS" | bc -l)" "$(echo "$P_T / $Z_T" | bc -l)"
else
	echo "   PVH vs bzImage: the guest kernel boots as a bzImage here ($kernel): no comparison"
fi

fi
if want 3; then
echo "== 3. a matrix's wall time against its workloads' time"
# One bare-metal and two guest cells, 2 samples each: the gap between the
# wall time and the samples' own elapsed_s is the harness (boots, setup,
# shutdown, host changes); compared with guest cells x (boot + 2 s).
cat >"$W/matrix.ini" <<EOF2
[run]
name = benchm
repeat = 2
[guest]
vcpus = 2
memory = 1G
[matrix]
where = bare-metal, guest
host_thp = $thp
guest_thp = always, never
[workload]
dir = $TOP/configs/workloads
name = randwalk
SIZE_MIB = 64
READS = 200000
EOF2
echo "   $VMTAX run matrix.ini (3 cells x 2 samples)"
t0=$(now)
"$VMTAX" run "$W/matrix.ini" --out "$W/m" >/dev/null 2>&1
t1=$(now)
wall=$(echo "$t1 - $t0" | bc -l)
work=$(jq '[.cells[].samples[].elapsed_s] | add' "$W/m/results.json")
nguest=$(jq '[.cells[] | select(.env.where == "guest")] | length' "$W/m/results.json")
boot=$(jq '[.cells[].observed.boot_to_hello_s // empty] | add / length' "$W/m/results.json")
gap=$(echo "$wall - $work" | bc -l)
model=$(echo "$nguest * ($boot + 2)" | bc -l)
printf '   wall %.2f s, workloads %.2f s, gap %.2f s; guest cells x (boot %.2f s + 2 s) = %.2f s; gap - that = %.2f s\n' \
	"$wall" "$work" "$gap" "$boot" "$model" "$(echo "$gap - $model" | bc -l)"

fi
if want 4 && want 2; then
echo "== 4. peak RSS"
printf '   vmtax run (one guest cell): %s kB (GNU time %%M)\n' "$(cat "$W/rss")"
printf '   vmtax-agent in the guest:   %s kB (getrusage in the agent)\n' \
	"$(jq '.cells[0].observed.agent_max_rss_kb' "$W/g0/results.json")"
fi
if want 5; then
echo "== 5. profile overhead (docs/profile.md): the profiled run vs an unprofiled one"
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
bare_e=$(echo "($sumb / $suma - 1) * 100" | bc -l)
bare_c=$(echo "($sumcb / $sumca - 1) * 100" | bc -l)
sed -e 's/^name = benchg/name = benchp/' -e 's/^repeat = 1/repeat = 4\nwarmup = 1\nprofile = on/' \
	-e 's/^SIZE_MIB = 16/SIZE_MIB = 256/' -e 's/^READS = 1000/READS = 1500000/' \
	"$W/guest.ini" >"$W/guestp.ini"
echo "   guest, $GRUNS times: $VMTAX run guestp.ini (randwalk 256 MiB, a warm-up, 4 samples, then"
echo "   the profile run at the default rate); A the mean of the 4 samples, B the profile run"
sga=0 sgb=0 sgca=0 sgcb=0
i=0
while [ $i -lt "$GRUNS" ]; do
	"$VMTAX" run "$W/guestp.ini" --out "$W/gp$i" >/dev/null 2>&1
	r="$W/gp$i/results.json"
	a=$(jq '[.cells[0].samples[].elapsed_s] | add / length' "$r")
	ca=$(jq '[.cells[0].samples[].counters["task-clock"]] | add / length / 1e9' "$r")
	b=$(jq '.cells[0].observed.profile.elapsed_s' "$r")
	cb=$(jq '.cells[0].observed.profile.task_clock_s' "$r")
	printf '   guest %d (%s): samples %s s, profile run %.4f s (cpu %.4f), %s samples of %s at %s Hz, %+.2f%%\n' \
		"$i" "$(jq -r .run.host.accel "$r")" \
		"$(jq -c '[.cells[0].samples[].elapsed_s * 1000 | round / 1000]' "$r")" \
		"$b" "$cb" "$(jq '.cells[0].observed.profile.samples' "$r")" \
		"$(jq -r '.cells[0].observed.profile.event' "$r")" \
		"$(jq '.cells[0].observed.profile.freq_hz' "$r")" \
		"$(jq '.cells[0].observed.profile.overhead * 100' "$r")"
	sga=$(echo "$sga + $a" | bc -l)
	sgb=$(echo "$sgb + $b" | bc -l)
	sgca=$(echo "$sgca + $ca" | bc -l)
	sgcb=$(echo "$sgcb + $cb" | bc -l)
	i=$((i + 1))
done
printf '   guest elapsed: mean A %.4f s, mean B %.4f s, overhead %+.2f%%\n' \
	"$(echo "$sga / $GRUNS" | bc -l)" "$(echo "$sgb / $GRUNS" | bc -l)" \
	"$(echo "($sgb / $sga - 1) * 100" | bc -l)"
# The profile run always comes last in its guest, so the figures above also
# carry whatever the position does; pairs in one guest, in alternating
# order, do not (docs/profile.md, Cost).
hz=$(jq '.cells[0].observed.profile.freq_hz' "$W/gp0/results.json")
echo "   guest pairs, $GBOOTS boots x $GPAIRS pairs: tests/agent-drive boots the tiny guest (2 vCPUs,"
echo "   1 GiB, THP always) and sends randwalk (256 MiB, 1.5 M reads) unprofiled (A) and profiled at"
echo "   $hz Hz (B) after a warm-up, in the order A B, B A, A B, ...; each boot's figure is the median"
echo "   of B/A - 1, and its mean with the standard error; the host's load average is printed beside it"
# Values of B/A - 1 on stdin, one a line: "median M, mean A +- SE (N pairs)".
# The median first: a burst of host noise moves a pair, not the median.
pair_stats() {
	grep . | sort -g | awk '
		{ v[NR] = $1; s += $1; ss += $1 * $1 }
		END {
			n = NR
			if (n < 2) { print "n/a"; exit }
			med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			m = s / n; sd = sqrt((ss - n * m * m) / (n - 1))
			printf "median %+.2f%%, mean %+.2f%% +- %.2f%% (%d pairs)", med * 100, m * 100, sd / sqrt(n) * 100, n
		}'
}
RW="/opt/vmtax/bin/randwalk --size-mib 256 --reads 1500000 --seed 1"
allq=""
i=0
while [ $i -lt "$GBOOTS" ]; do
	req="$W/pairs$i.req"
	{
		echo '{"type":"set-thp","enabled":"always"}'
		echo "{\"type\":\"run\",\"cmd\":\"$RW\"}"
		j=0
		while [ $j -lt "$GPAIRS" ]; do
			a="{\"type\":\"run\",\"cmd\":\"$RW\"}"
			b="{\"type\":\"run\",\"cmd\":\"$RW\",\"profile\":true,\"profile_hz\":$hz}"
			if [ $((j % 2)) = 0 ]; then echo "$a"; echo "$b"; else echo "$b"; echo "$a"; fi
			j=$((j + 1))
		done
	} >"$req"
	load=$(cut -d' ' -f1 /proc/loadavg)
	rc=0
	"$TOP/build/tests/agent-drive" "$("$VMTAX" image path kernel)" \
		"$("$VMTAX" image path initrd)" 2 1024 "console=ttyS0 panic=-1" \
		"$W/pairs$i.console" <"$req" >"$W/pairs$i.ans" 2>"$W/pairs$i.err" || rc=$?
	# B/A - 1 for each answered pair: the answers after hello, set-thp and
	# the warm-up, two by two; B is the profiled one of each two.
	q=$(jq -r 'select(.type == "run") | .result.elapsed_s // "x"' "$W/pairs$i.ans" |
		tail -n +2 | awk -v n="$GPAIRS" '
		{ t[NR] = $1 }
		END {
			for (j = 0; j < n && 2 * j + 2 <= NR; j++) {
				a = t[2 * j + 1]; b = t[2 * j + 2]
				if (a == "x" || b == "x") break
				if (j % 2) { x = a; a = b; b = x }
				printf "%.6f\n", b / a - 1
			}
		}')
	allq="$allq $q"
	st=$(echo "$q" | pair_stats)
	if [ "$st" = "n/a" ]; then
		printf '   boot %d: fewer than 2 pairs answered (agent-drive exit %d)\n' "$i" "$rc"
	else
		printf '   boot %d (load %s): B/A - 1 = %s at %s Hz\n' "$i" "$load" "$st" "$hz"
	fi
	if [ "$rc" != 0 ]; then
		echo "     agent-drive exit $rc: the guest stopped answering; its console says:"
		grep -m1 -A3 'soft lockup\|BUG:\|Kernel panic' "$W/pairs$i.console" | sed 's/^/     console: /' || true
	fi
	i=$((i + 1))
done
pairs=$(echo "$allq" | tr ' ' '\n' | pair_stats)
echo "   guest pairs, all boots: B/A - 1 = $pairs"
printf '   profile overhead: bare metal %+.2f%% elapsed, %+.2f%% cpu; guest (%s) pairs %s; guest profile run vs samples %+.2f%% elapsed, %+.2f%% cpu\n' \
	"$bare_e" "$bare_c" "$(jq -r .run.host.accel "$W/gp0/results.json")" "$pairs" \
	"$(echo "($sgb / $sga - 1) * 100" | bc -l)" "$(echo "($sgcb / $sgca - 1) * 100" | bc -l)"
fi

if want 6; then
echo "== 6. the lab image from scratch, from this host's packages, vs supermin of the same packages"
# A scratch tree (vmtax, bin/, guest-image/build/*.sh, configs/workloads, the kernel
# cache linked) and a scratch image cache (VMTAX_IMAGE_CACHE: the lab image
# is otherwise shared by every checkout, guest-image/build/guest-files.h): both start
# empty, so the build is from scratch and the shared cache is left alone.
L=$W/labtree
LC=$W/labcache
mkdir -p "$L/build" "$L/guest-image/build" "$L/configs"
cp "$VMTAX" "$L/build/vmtax"
cp -a "$TOP/build/bin" "$L/build/bin"
ln -s "$TOP/build/kernel" "$L/build/kernel"
cp "$TOP"/guest-image/build/*.sh "$L/guest-image/build/"
cp -a "$TOP/configs/workloads" "$L/configs/workloads"
if ! (cd "$L" && VMTAX_IMAGE_CACHE=$LC build/vmtax image build --kind lab --check) 2>&1 | grep -q "the host's packages"; then
	echo "   skipped: this host cannot build the lab from its own packages:"
	(cd "$L" && VMTAX_IMAGE_CACHE=$LC build/vmtax image build --kind lab --check) 2>&1 | grep "debootstrap instead" | sed 's/^/   /'
else
	echo "   (cd SCRATCH && VMTAX_IMAGE_CACHE=SCRATCH_CACHE build/vmtax image build --kind lab)"
	load=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(now)
	(cd "$L" && VMTAX_IMAGE_CACHE=$LC build/vmtax image build --kind lab) >"$W/labimg.out" 2>&1 ||
		{ tail -20 "$W/labimg.out"; exit 1; }
	host_s=$(echo "$(now) - $t0" | bc -l)
	# A second checkout (another directory, the same sources) finds it
	# built in the shared cache: its recipe names contents, not paths.
	cp -a "$L" "$L.2" && rm -rf "$L.2/build/images"
	t0=$(now)
	(cd "$L.2" && VMTAX_IMAGE_CACHE=$LC build/vmtax image build --kind lab) >"$W/labimg2.out" 2>&1 ||
		{ tail -20 "$W/labimg2.out"; exit 1; }
	second_s=$(echo "$(now) - $t0" | bc -l)
	grep -q "image: lab: up to date" "$W/labimg2.out" || second_s="rebuilt ($second_s s): not shared"
	step() { sed -n "s/.*image: host disk: $1 in \([0-9.]*\) s.*/\1/p" "$W/labimg.out" | tail -n 1; }
	rec=$(ls "$LC"/lab-*.recipe)
	npkg=$(grep -c '^host-package ' "$rec")
	kver=$(sed -n 's/^kernel \([^ ]*\)$/\1/p' "$rec")
	# The reference: supermin (the tool the issue suggested) over the same
	# roots (libguestfs0 whole: supermin cannot take its libraries only),
	# with depmod'ed modules of the same kernel, then the same qemu-img.
	roots=$(sed -n 's/^roots //p' "$rec" | sed 's/:libs//g')
	echo "   reference: depmod; supermin --prepare ROOTS; supermin --build -f ext2 --size 8G; qemu-img convert"
	if ! command -v supermin >/dev/null; then
		ref="skipped (supermin is not installed)"
	else
		t0=$(now)
		mkdir -p "$W/smk/lib/modules"
		if cp -al "$TOP/build/kernel/lib/modules/$kver" "$W/smk/lib/modules/" &&
			depmod -b "$W/smk" "$kver" &&
			supermin --prepare -o "$W/sm.d" $roots >"$W/sm.out" 2>&1 &&
			SUPERMIN_KERNEL=$TOP/build/kernel/boot/vmlinuz-$kver \
				SUPERMIN_MODULES=$W/smk/lib/modules/$kver \
				supermin --build -f ext2 --size 8G -o "$W/sm.b" "$W/sm.d" >>"$W/sm.out" 2>&1 &&
			qemu-img convert -f raw -O qcow2 "$W/sm.b/root" "$W/sm.qcow2"; then
			sm_s=$(echo "$(now) - $t0" | bc -l)
			ref=$(printf '%.1f s (the same %s roots, its own resolution): %.2fx' "$sm_s" \
				"$(wc -l <"$W/sm.d/packages")" "$(echo "$host_s / $sm_s" | bc -l)")
		else
			ref="failed: $(tail -n 1 "$W/sm.out" 2>/dev/null || true)"
		fi
		rm -rf "$W/sm.b" "$W/sm.qcow2" "$W/smk"
	fi
	printf '   lab image from scratch (load %s): host packages %.1f s (%s packages; tree %s s, mke2fs -d %s s, qemu-img %s s); supermin %s\n' \
		"$load" "$host_s" "$npkg" "$(step 'tree done')" "$(step 'mke2fs -d')" \
		"$(step 'qemu-img convert')" "$ref"
	case $second_s in
	rebuilt*) echo "   lab image, a second checkout of the same sources: $second_s" ;;
	*) printf '   lab image, a second checkout of the same sources: up to date in %.2f s (the shared cache)\n' "$second_s" ;;
	esac
fi
rm -rf "$L" "$L.2" "$LC"

echo "== 6. the lab: ready, and an inner guest's boot to hello ($LBOOTS boots of each cmdline)"
if ! "$VMTAX" image build --kind lab --check 2>&1 | grep -q "up to date"; then
	echo "   skipped: the lab image is not built ('$VMTAX image build --kind lab': seconds from this host's packages, about 7 min through debootstrap)"
else
	# lab ready, restored vs booted: bare-metal lab runs of one small
	# sample, [lab] restore = on (saves a state when none fits), off
	# (booted), on (restored)
	LBM="--set matrix.where=bare-metal --set matrix.host_thp=always --set run.repeat=1 --set run.boots=1 --set run.baseline= --set workload.PROCS=10 --set workload.TOUCH_KIB=1024"
	echo "   $VMTAX run configs/lab-npt.ini $LBM --set lab.restore=on, then off, then on"
	for m in on off on2; do
		(cd "$TOP" && "$VMTAX" run configs/lab-npt.ini --out "$W/lr-$m" $LBM \
			--set lab.restore="${m%2}") >"$W/lr-$m.out" 2>&1 ||
			{ tail -20 "$W/lr-$m.out"; exit 1; }
	done
	rb=$(jq .lab.ready_s "$W/lr-off/results.json")
	rr=$(jq .lab.ready_s "$W/lr-on2/results.json")
	jq -e '.lab.restored' "$W/lr-on2/results.json" >/dev/null ||
		echo "   (the last run was not restored: see $W/lr-on2.out)"
	side=$(ls "$(dirname "$(readlink -f "$VMTAX")")"/images/overlays/lab-state-*.json | head -1)
	printf '   lab ready (restored vs booted): %.1f s vs %.1f s: %.2fx; its state: saved in %.1f s, %.2f GiB%s\n' \
		"$rr" "$rb" "$(echo "$rr / $rb" | bc -l)" "$(jq .save_s "$side")" \
		"$(echo "$(jq .state_bytes "$side") / 1073741824" | bc -l)" \
		"$(jq -e .lab.state_saved "$W/lr-on/results.json" >/dev/null &&
			printf '; saved by the first run, ready %.1f s with the boot and the save' \
				"$(jq .lab.ready_s "$W/lr-on/results.json")")"
	echo "   $VMTAX run configs/lab-npt.ini --set matrix.where=guest --set matrix.npt=on"
	echo "     --set matrix.host_thp=always --set matrix.guest_thp=always --set run.repeat=$LBOOTS"
	echo "     --set run.boots=$LBOOTS --set run.baseline= --set 'guest.cmdline=\"\",loglevel=7'"
	t0=$(now)
	(cd "$TOP" && "$VMTAX" run configs/lab-npt.ini --out "$W/lab" \
		--set matrix.where=guest --set matrix.npt=on --set matrix.host_thp=always \
		--set matrix.guest_thp=always --set run.repeat="$LBOOTS" --set run.boots="$LBOOTS" \
		--set run.baseline= --set 'guest.cmdline="",loglevel=7') >"$W/lab.out" 2>&1 ||
		{ tail -20 "$W/lab.out"; exit 1; }
	wall=$(echo "$(now) - $t0" | bc -l)
	R=$W/lab/results.json
	printf '   lab: hello %.1f s, ready %.1f s after its start (restored: %s)\n' \
		"$(jq .lab.boot_to_hello_s "$R")" "$(jq .lab.boot_to_ready_s "$R")" "$(jq .lab.restored "$R")"
	# each boot's time to hello: the inner run's progress lines, boot to
	# boot, include a sample; the cell's last boot has its breakdown
	a=$(jq '.cells[0].observed.boot_to_hello_s' "$R")
	b=$(jq '.cells[1].observed.boot_to_hello_s' "$R")
	printf '   inner guest to hello (last boot): loglevel=5 (vmtax) %.1f s, loglevel=7 (every line) %.1f s: %.2fx\n' \
		"$a" "$b" "$(echo "$a / $b" | bc -l)"
	# The reference: a plain QEMU in the lab (no libvirt, no firmware
	# choice of vmtax's), KVM, the same kernel, tiny image (the lab's own,
	# GUEST_LAB_IMAGES) and command line (VM_CMDLINE_BASE), 1 vCPU and
	# 768 MiB as lab-npt.ini's guests, timed from its start to /init and
	# to the agent's start on the console, by a workload run on the lab
	# itself (a bare-metal cell of the lab, NPT on as the lab booted).
	mkdir -p "$W/wl"
	# (an INI line is at most 198 characters and a comma makes a list:
	# the script is written by setup from its lines, one parameter each)
	cat >"$W/wl/qemuboot.ini" <<'EOF2'
[workload]
description = bench: a plain QEMU boot of the lab's kernel and tiny image to the agent's start
setup = printf '%s\n' "$L1" "$L2 $L3" "$L4" "$L5" "$L6" >"$VMTAX_WORKDIR/qemuboot.sh"
run = sh -e "$VMTAX_WORKDIR/qemuboot.sh"
metric = regex
metric_regex = to_agent_s=([0-9.]+)
unit = s
better = lower
[param.L1]
default = K=$(uname -r); rm -f q.log; s=$(date +%s%N)
[param.L2]
default = qemu-system-x86_64 -machine q35 -accel kvm -cpu host -m 768M -smp 1 -kernel /boot/vmlinuz-$K -initrd /opt/vmtax/images/tiny-$K.cpio.gz
[param.L3]
default = -append "console=ttyS0 panic=-1 loglevel=5" -serial file:q.log -display none -no-reboot -nodefaults & p=$!
[param.L4]
default = n=0; w() { until grep -q "vmtax-init: $1" q.log 2>/dev/null || [ $n -ge 1200 ]; do sleep 0.1; n=$((n + 1)); done; date +%s%N; }
[param.L5]
default = a=$(w start); b=$(w "modules loaded"); kill -9 $p; wait $p || true; grep -q "vmtax-init: modules loaded" q.log
[param.L6]
default = awk -v s=$s -v a=$a -v b=$b 'BEGIN { print "to_init_s=" (a - s) / 1e9 " to_agent_s=" (b - s) / 1e9 }'
EOF2
	cat >"$W/qboot.ini" <<EOF2
[run]
name = bench-qemuboot
executor = lab
repeat = $LBOOTS
warmup = 0
timeout = 300
[lab]
cpu = EPYC
cpu_features = +svm +npt
vcpus = 2
memory = 3G
[matrix]
where = bare-metal
host_thp = always
[workload]
dir = $W/wl
name = qemuboot
EOF2
	echo "   reference: $VMTAX run qboot.ini: a plain qemu-system-x86_64 -machine q35 -accel kvm -cpu host -m 768M -smp 1"
	echo "     -kernel /boot/vmlinuz-KVER -initrd /opt/vmtax/images/tiny-KVER.cpio.gz -append 'console=ttyS0 panic=-1 loglevel=5'"
	echo "     in the lab, $LBOOTS boots, timed to the console's 'vmtax-init: start' and 'modules loaded'"
	if "$VMTAX" run "$W/qboot.ini" --out "$W/qb" >"$W/qb.out" 2>&1; then
		QB=$W/qb/results.json
		qa=$(jq '[.cells[0].samples[].metric] | add / length' "$QB")
		qall=$(jq -r '[.cells[0].samples[].metric | . * 10 | round / 10 | tostring] | join(", ")' "$QB")
		# to /init: from the samples' output the lab's logs brought back
		qi=$(grep -rhoa 'to_init_s=[0-9.]*' "$W/qb" 2>/dev/null | sort -u |
			awk -F= '{ s += $2; n++ } END { if (n) printf "%.1f", s / n; else printf "-" }')
		printf '   inner guest to hello (vmtax, loglevel=5, last boot) %.1f s vs a plain inner QEMU boot of the same kernel to the agent'"'"'s start %.1f s (mean of %s s; to /init %s s): %.2fx\n' \
			"$a" "$qa" "$qall" "$qi" "$(echo "$a / $qa" | bc -l)"
	else
		echo "   the plain inner QEMU run failed:"
		tail -n 5 "$W/qb.out" | sed 's/^/     /'
	fi
	work=$(jq '[.cells[].samples[].elapsed_s] | add' "$R")
	printf '   lab run: wall %.1f s, samples %.1f s: %.1fx\n' "$wall" "$work" "$(echo "$wall / $work" | bc -l)"
fi
fi

if want 7; then
echo "== 7. make check per test, against a tiny guest's boot to hello in this run"
CV=$TOP/build/san/vmtax
[ -x "$CV" ] || CV=$VMTAX
echo "   reference: $VMTAX run guest.ini (one guest cell, randwalk 16 MiB, 1 sample)"
"$VMTAX" run "$W/guest.ini" --out "$W/ref7" >/dev/null 2>&1 || { echo "   the reference run failed"; exit 1; }
boot=$(jq '.cells[0].observed.boot_to_hello_s' "$W/ref7/results.json")
echo "   VMTAX=$CV T=${CHECK_T:-} J=${CHECK_J:-} sh tests/run-shell-tests.sh (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
rc=0
VMTAX=$CV T=${CHECK_T:-} J=${CHECK_J:-} sh "$TOP/tests/run-shell-tests.sh" >"$W/check.out" 2>&1 || rc=$?
printf '   %-28s %8s %6s  %s\n' test seconds boots lane
sed -n 's/^== \(t[0-9]*-[^:]*\.sh\): \([0-9][0-9]*\)s\( .*\)\{0,1\}$/\1 \2/p' "$W/check.out" | sort |
	while read -r t secs; do
		lane=beside
		grep -q '^# host: exclusive' "$TOP/tests/$t" && lane=host
		printf '   %-28s %8d %6.1f  %s\n' "$t" "$secs" "$(echo "$secs / $boot" | bc -l)" "$lane"
	done
wall=$(sed -n 's/^== wall: \([0-9]*\)s with -j \([0-9]*\)$/\1/p' "$W/check.out")
j=$(sed -n 's/^== wall: \([0-9]*\)s with -j \([0-9]*\)$/\2/p' "$W/check.out")
sum=$(sed -n 's/^== t[0-9]*-[^:]*\.sh: \([0-9][0-9]*\)s\( .*\)\{0,1\}$/\1/p' "$W/check.out" | awk '{ s += $1 } END { print s + 0 }')
hostsum=$(sed -n 's/^== \(t[0-9]*-[^:]*\.sh\): \([0-9][0-9]*\)s\( .*\)\{0,1\}$/\1 \2/p' "$W/check.out" |
	while read -r t secs; do grep -q '^# host: exclusive' "$TOP/tests/$t" && echo "$secs"; done |
	awk '{ s += $1 } END { print s + 0 }')
grep '^shell-tests: ' "$W/check.out" | sed 's/^/   /'
[ "$rc" = 0 ] || { grep -A3 '^failed:' "$W/check.out" | sed 's/^/   /'; echo "   (the runner exited $rc)"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
printf '   reference: boot to hello %.2f s (%s); runner wall %d s (-j %s) = %s boots; sum of tests %d s = %sx the wall; host lane %d s = %sx the wall (load after: %s)\n' \
	"$boot" "$(jq -r .run.host.accel "$W/ref7/results.json")" "$wall" "$j" \
	"$(ratio "$wall" "$boot")" "$sum" "$(ratio "$sum" "$wall")" \
	"$hostsum" "$(ratio "$hostsum" "$wall")" "$(cut -d' ' -f1-3 /proc/loadavg)"
fi
if want 8; then
echo "== 8. the hierarchical bootstrap against its least work (tests/bench-stats.c)"
echo "   $TOP/build/tests/bench-stats"
"$TOP/build/tests/bench-stats"
fi
if want 9; then
echo "== 9. the run's estimate against its measured wall (docs/estimate.md)"
# The seconds of an estimate line: "estimate: 45 s (", "7.5 min (",
# "23 min (", "2 h 05 min (".
est_secs() {
	sed -n 's/^estimate: \([^(]*\) (.*/\1/p' "$1" | head -n 1 |
		awk '$2 == "s" { print $1 } $2 == "min" { print $1 * 60 }
		     $2 == "h" { print $1 * 3600 + $3 * 60 }'
}
EST_ROWS=
# NAME CONFIG RUN: the estimate, and with RUN = yes the run and its error
est_one() {
	if ! "$VMTAX" run "$2" --dry-run >"$W/est-$1.dry" 2>"$W/est-$1.err"; then
		echo "   $1: skipped, this host cannot run it: $(grep -v '^  ' "$W/est-$1.err" | tail -n 1)"
		return 0
	fi
	echo "   $VMTAX run $2 --dry-run"
	grep '^estimate: ' "$W/est-$1.dry" | sed 's/^/     /'
	e=$(est_secs "$W/est-$1.dry")
	if [ "$3" != yes ]; then
		printf '   %s: estimate %.0f s; not run (EST_SLOW=1 runs it)\n' "$1" "$e"
		return 0
	fi
	echo "   $VMTAX run $2 --out DIR (timed by the shell; load before: $(cut -d' ' -f1-3 /proc/loadavg))"
	t0=$(now)
	rc=0
	"$VMTAX" run "$2" --out "$W/est-$1" >"$W/est-$1.out" 2>&1 || rc=$?
	t1=$(now)
	wall=$(echo "$t1 - $t0" | bc -l)
	err=$(echo "($e - $wall) * 100 / $wall" | bc -l)
	printf '   %s: estimate %.0f s, measured %.0f s (exit %d, load after: %s): error %+.1f%%\n' \
		"$1" "$e" "$wall" "$rc" "$(cut -d' ' -f1-3 /proc/loadavg)" "$err"
	EST_ROWS="$EST_ROWS$(printf '%-14s %8.0f s %8.0f s %+7.1f%%' "$1" "$e" "$wall" "$err")
"
}
slow=no
[ -n "${EST_SLOW:-}" ] && slow=yes
est_one demo "$TOP/configs/demo.ini" yes
if virsh -c qemu:///system version >/dev/null 2>&1; then
	est_one lab "${EST_LAB_CONFIG:-$TOP/configs/lab-npt.ini}" "$slow"
else
	echo "   lab: skipped, this host cannot run it: libvirtd is not reachable"
fi
est_one kbuild-small "$TOP/configs/kbuild-small.ini" "$slow"
if [ -n "$EST_ROWS" ]; then
	printf '   %-14s %10s %10s %8s\n' config estimate measured error
	printf '%s' "$EST_ROWS" | sed 's/^/   /'
fi
fi
if want 10; then
echo "== 10. the symbolizer: one profile's user frames of a binary named (tests/bench-symbolize.c)"
set -- "$BIN/randwalk" "$(readlink -f "$VMTAX")"
for f in /lib/x86_64-linux-gnu/libc.so.6 "$(gcc -print-prog-name=cc1 2>/dev/null)"; do
	if [ -f "$f" ]; then set -- "$@" "$f"; fi
done
echo "   $TOP/build/tests/bench-symbolize -r 20 $*"
"$TOP/build/tests/bench-symbolize" -r 20 "$@"
fi
