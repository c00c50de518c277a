#!/usr/bin/env bash
# Record the kvm-stats fixtures (tests/fixtures/kvm/) in the nested lab host:
# a TCG guest with emulated AMD-V (-cpu EPYC,+svm,+npt) that is itself a KVM
# host (adapted from the shared lab probe, /work/shared/lab-probe/run.sh).
# Inside it, for npt=1 then npt=0, a second-level busybox guest runs under
# `qemu -accel kvm`; at two points of its life (s0: its init says hello, s1:
# after it wrote 256 MiB to a tmpfs) the lab host dumps to the console every
# file of /sys/kernel/debug/kvm, the kvm_exit hist file (two triggers: one
# filtered to the guest QEMU's task ids, one keyed on common_pid), the QEMU
# task ids and comms, and kvm_amd's npt parameter, as "@@ PATH<TAB>LINE" lines.
# tests/tools/kvm-lab-unpack.py rebuilds the trees from the log.
#
# With MODE=sample it dumps nothing; instead tests/tools/kvm-sample (host/
# kvm-stats.c linked statically) takes one sample of each guest from hello
# to the end of the write, through the live kernel, and prints it as a
# "@@J npt=N JSON" line.
#
#   sudo flock /tmp/vmtax-host.lock tests/tools/kvm-lab-fixtures.sh LOG
set -euo pipefail
LOG=${1:?usage: kvm-lab-fixtures.sh LOG}
MODE=${MODE:-dump}
src=$(cd "$(dirname "$0")/../.." && pwd)
KV=${KV:-$(ls /boot/vmlinuz-* | sed 's,.*/vmlinuz-,,' | sort -V | tail -1)}
W=$(mktemp -d); chmod 755 "$W"; trap 'rm -rf "$W"' EXIT; cd "$W"
mkdir -p root/bin root/mods root/l2 root/usr/bin root/usr/share root/proc root/sys root/dev root/tmp l2/bin
cp /bin/busybox root/bin/; cp /bin/busybox l2/bin/
for m in kernel/virt/lib/irqbypass.ko kernel/drivers/crypto/ccp/ccp.ko kernel/arch/x86/kvm/kvm.ko kernel/arch/x86/kvm/kvm-amd.ko; do cp /lib/modules/$KV/$m root/mods/; done
cat > l2/init <<'EOT'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /mnt /dev; /bin/busybox mount -t proc proc /proc; /bin/busybox mount -t devtmpfs dev /dev
echo "L2 hello after $(/bin/busybox cut -d" " -f1 /proc/uptime)s uptime"
/bin/busybox sleep 4
/bin/busybox mount -t tmpfs -o size=320m t /mnt
/bin/busybox dd if=/dev/zero of=/mnt/f bs=1M count=256 2>&1 | /bin/busybox grep copied
echo "L2 work done after $(/bin/busybox cut -d" " -f1 /proc/uptime)s uptime"
/bin/busybox sleep 3
/bin/busybox poweroff -f
EOT
chmod +x l2/init
(cd l2 && find . | cpio -o -H newc 2>/dev/null | gzip -1 > ../root/l2/l2.cpio.gz)
cp /boot/vmlinuz-$KV root/l2/vmlinuz
if [ "$MODE" = sample ]; then
	gcc -std=c11 -O2 -D_GNU_SOURCE -I"$src/host" -I"$src/lib" -static -o root/bin/kvm-sample \
		"$src/tests/tools/kvm-sample.c" "$src/host/kvm-stats.c" "$src/host/kvm-exits.c" \
		"$src/host/cpu.c" "$src/lib/util.c" "$src/lib/untrusted.c" -ljansson
fi
echo "$MODE" > root/mode
Q=$(command -v qemu-system-x86_64); cp "$Q" root/usr/bin/
for l in $(ldd "$Q" | grep -o '/[^ ]*'); do mkdir -p root$(dirname $l); cp -L $l root$l; done
cp -r /usr/share/qemu /usr/share/seabios root/usr/share/
cat > root/init <<'EOT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug; mount -t tracefs tracefs /sys/kernel/tracing
for m in irqbypass ccp kvm kvm-amd; do insmod /mods/$m.ko; done
T=/sys/kernel/tracing/events/kvm/kvm_exit
# "@@ PATH<TAB>LINE" for every line of FILE (PATH is FILE under CASE)
# ("@@0 PATH" for an empty FILE, "@@! PATH" for one that cannot be read)
dumpf() { if [ -r "$2" ] && [ ! -s "$2" ]; then printf '@@0 %s%s\t\n' "$1" "$2"; return; fi
  while IFS= read -r line || [ -n "$line" ]; do printf '@@ %s%s\t%s\n' "$1" "$2" "$line"; done < "$2" 2>/dev/null || printf '@@! %s%s\tunreadable\n' "$1" "$2"; }
snap() { # CASE PID
  c=$1; echo "== snap $c at $(cut -d' ' -f1 /proc/uptime)"
  for f in $(find /sys/kernel/debug/kvm -type f | sort); do dumpf "$c" "$f"; done
  dumpf "$c" $T/hist; dumpf "$c" $T/trigger
  dumpf "$c" /sys/module/kvm_amd/parameters/npt
  for t in /proc/$2/task/*; do dumpf "$c" $t/comm; done
  echo "== snap $c done at $(cut -d' ' -f1 /proc/uptime)"
}
for npt in 1 0; do
  rmmod kvm_amd; insmod /mods/kvm-amd.ko npt=$npt
  echo "== npt=$(cat /sys/module/kvm_amd/parameters/npt)"
  echo 'hist:keys=common_pid,exit_reason:vals=hitcount' >> $T/trigger
  rm -f /tmp/l2.log
  /usr/bin/qemu-system-x86_64 -machine q35,accel=kvm -cpu host -m 512 -smp 1 -kernel /l2/vmlinuz -initrd /l2/l2.cpio.gz -append "console=ttyS0 quiet panic=-1" -display none -no-reboot -nodefaults -serial file:/tmp/l2.log &
  pid=$!
  n=0; until grep -q 'L2 hello' /tmp/l2.log 2>/dev/null; do sleep 0.2; n=$((n+1)); [ $n -gt 1500 ] && break; done
  if [ "$(cat /mode)" = sample ]; then
    /bin/kvm-sample $pid /tmp/l2.log 'L2 work done' | sed "s/^/@@J npt=$npt /"
    echo '!hist:keys=common_pid,exit_reason:vals=hitcount' >> $T/trigger
    wait $pid; echo "== triggers left: $(grep -vc '^#' $T/trigger)"
    continue
  fi
  f=; for t in /proc/$pid/task/*; do f="${f}common_pid==${t##*/}||"; done; f=${f%||}
  spec="hist:keys=exit_reason:vals=hitcount if $f"
  echo "== pid $pid trigger: $spec"
  echo "$spec" >> $T/trigger || echo "== trigger write failed"
  snap npt$npt-s0 $pid
  n=0; until grep -q 'L2 work done' /tmp/l2.log 2>/dev/null; do sleep 0.2; n=$((n+1)); [ $n -gt 1500 ] && break; done
  snap npt$npt-s1 $pid
  echo "!$spec" >> $T/trigger
  echo '!hist:keys=common_pid,exit_reason:vals=hitcount' >> $T/trigger
  wait $pid
  sed 's/^/== l2: /' /tmp/l2.log | grep -E 'L2|copied'
  echo "== triggers left: $(grep -vc '^#' $T/trigger)"
done
echo DONE
poweroff -f
EOT
chmod +x root/init
(cd root && find . | cpio -o -H newc 2>/dev/null | gzip -1 > ../l1.cpio.gz)
timeout 1800 qemu-system-x86_64 -machine q35,accel=tcg -cpu EPYC,+svm,+npt -m 3072 -smp 1 \
	-kernel /boot/vmlinuz-$KV -initrd l1.cpio.gz -append "console=ttyS0 quiet panic=-1" \
	-nographic -no-reboot 2>&1 | tr -d '\r' > "$LOG"
grep -E '^==|DONE' "$LOG" || true
