#!/bin/sh
# Install what vmtax needs from Debian and start libvirtd/virtlogd.
# Used by 'make deps' and by .ci/run.  Idempotent; fast when all is there.
# Arguments are more packages to install (make deps-workloads).
set -e
PKGS="build-essential pkg-config clang libvirt-daemon-system libvirt-daemon-driver-qemu
libvirt-clients libvirt-dev qemu-system-x86 qemu-utils libkmod-dev libjansson-dev
libiberty-dev libinih-dev libcmocka-dev libxml2-dev busybox-static linux-image-amd64
cpio gzip linux-perf procps chromium python3 python3-jsonschema jq bc time
libguestfs-dev debootstrap debhelper lintian dpkg-dev fakeroot $*"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ] || [ -n "$VMTAX_APT_UPDATE" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "vmtax: deps: missing packages:$missing" >&2
		echo "vmtax: deps: run: sudo apt-get update && sudo apt-get install -y$missing" >&2
		exit 1
	fi
	echo "vmtax: deps: installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends $PKGS
fi

if [ "$(id -u)" = 0 ]; then
	# hugetlb-backed guests need hugetlbfs mounts, and libvirtd looks for
	# them only when it starts: mount first (no memory is reserved by it).
	mounted=""
	if ! grep -q ' /dev/hugepages hugetlbfs' /proc/mounts; then
		mkdir -p /dev/hugepages
		mount -t hugetlbfs -o pagesize=2M hugetlbfs /dev/hugepages && mounted=1
	fi
	if grep -qw pdpe1gb /proc/cpuinfo && [ -d /sys/kernel/mm/hugepages/hugepages-1048576kB ] &&
	   ! grep -q ' /dev/hugepages1G hugetlbfs' /proc/mounts; then
		mkdir -p /dev/hugepages1G
		mount -t hugetlbfs -o pagesize=1G hugetlbfs /dev/hugepages1G && mounted=1
	fi
	if [ -n "$mounted" ] && pgrep -x libvirtd >/dev/null; then
		echo "vmtax: deps: restarting libvirtd so that it sees the hugetlbfs mounts" >&2
		pkill -x libvirtd
		while pgrep -x libvirtd >/dev/null; do sleep 0.2; done
	fi
	pgrep -x virtlogd >/dev/null || virtlogd -d
	pgrep -x libvirtd >/dev/null || libvirtd -d
	# libvirtd answers once its socket is up.
	i=0
	while ! virsh -c qemu:///system version >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] || { echo "vmtax: deps: libvirtd does not answer" >&2; exit 1; }
		sleep 0.2
	done
fi
