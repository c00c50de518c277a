#!/bin/sh
# Install what vmtax needs from Debian and start libvirtd/virtlogd.
#
#   sh .ci/deps.sh            what the demo needs ('make deps')
#   sh .ci/deps.sh --check    that, and the test tools ('make check', .ci/run)
#   sh .ci/deps.sh PKG...     that, and more packages ('make deps-workloads')
#
# Idempotent; fast when all is there.  Before it changes anything it prints
# every change it is about to make to this host (README.md, "What make deps
# changes"):
#   - the Debian packages it installs (only those missing);
#   - the guest kernel: Debian's linux-image package (the one the
#     linux-image-amd64 metapackage depends on) is downloaded with
#     'apt-get download' and unpacked with 'dpkg-deb -x' into vmtax's kernel
#     cache, build/kernel (guest-image/build/guest-kernel.h), and depmod -b run
#     there (its modules.dep, as the package's postinst would make):
#     never installed, so the host's /boot and what it boots next stay as
#     they were;
#   - an empty /lib/modules where there is none (a host that boots no
#     Debian kernel of its own): supermin, which builds libguestfs's
#     appliance for the debian image, copies the guest kernel's modules
#     under it and fails without it;
#   - hugetlbfs mounts at /dev/hugepages (and /dev/hugepages1G where the CPU
#     has 1G pages), which reserve no memory; made before libvirtd starts,
#     since libvirtd looks for them only then;
#   - no service a package brings is started (openssh-server's sshd, say):
#     apt-get runs with a policy-rc.d that exits 101 (invoke-rc.d's "not
#     allowed"), written for the install and removed after, where there is
#     none; one that is there is left as it is;
#   - libvirtd and virtlogd, started only when not running: through systemd
#     or the service's init script where there is one, else 'libvirtd -d'.
#     A running daemon is never stopped or killed.
set -e
TOP=$(cd "$(dirname "$0")/.." && pwd)
KCACHE=${VMTAX_KERNEL_CACHE:-$TOP/build/kernel}

# What the demo needs: build vmtax, run guests, build the tiny image.
DEMO_PKGS="build-essential pkg-config libvirt-daemon-system
libvirt-daemon-driver-qemu libvirt-clients libvirt-dev qemu-system-x86
qemu-utils libkmod-dev libjansson-dev libiberty-dev libinih-dev libxml2-dev
libguestfs-dev liblzma-dev libelf-dev busybox-static cpio gzip procps"
# What 'make check' adds: unit tests, fuzzing, the HTML check, the schema
# check, the Debian package and the lab and Debian images (the lab's sshd
# and ip(8): openssh-server and iproute2, for the fleet's two-lab test).
CHECK_PKGS="clang libcmocka-dev chromium python3 python3-jsonschema jq bc time
linux-perf debootstrap debhelper lintian dpkg-dev fakeroot openssh-server
iproute2"

PKGS=$DEMO_PKGS
if [ "$1" = --check ]; then
	shift
	PKGS="$PKGS $CHECK_PKGS"
fi
PKGS="$PKGS $*"

say() { echo "vmtax: deps: $*" >&2; }
root() { [ "$(id -u)" = 0 ]; }

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
# The guest kernel's package, as linux-image-amd64 names it today.
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
kver=${kpkg#linux-image-}
need_kernel=""
[ -n "$kpkg" ] && [ -r "$KCACHE/boot/vmlinuz-$kver" ] &&
	[ -r "$KCACHE/lib/modules/$kver/modules.dep" ] || need_kernel=1
# supermin (libguestfs's appliance, the debian image's build) copies the
# guest kernel's modules under the host's /lib/modules, which it lstat()s:
# a host that boots no Debian kernel of its own (a container, this VM) has
# none, and the build fails ("lstat: /lib/modules").
need_libmod=""
[ -e /lib/modules ] || need_libmod=1
mount_2m="" mount_1g=""
grep -q ' /dev/hugepages hugetlbfs' /proc/mounts || mount_2m=1
if grep -qw pdpe1gb /proc/cpuinfo && [ -d /sys/kernel/mm/hugepages/hugepages-1048576kB ] &&
   ! grep -q ' /dev/hugepages1G hugetlbfs' /proc/mounts; then
	mount_1g=1
fi
# How a daemon is started here: systemd, an init script, or by hand.
start_how() {
	if [ -d /run/systemd/system ]; then
		echo "systemctl start $1"
	elif [ -x "/etc/init.d/$1" ]; then
		echo "service $1 start"
	else
		echo "$1 -d"
	fi
}
start_lv="" start_vl=""
pgrep -x libvirtd >/dev/null || start_lv=$(start_how libvirtd)
pgrep -x virtlogd >/dev/null || start_vl=$(start_how virtlogd)

if [ -z "$missing$need_kernel$need_libmod$mount_2m$mount_1g$start_lv$start_vl" ] &&
   [ -z "$VMTAX_APT_UPDATE" ]; then
	exit 0
fi
if ! root; then
	[ -z "$missing" ] || say "missing packages:$missing"
	[ -z "$need_kernel" ] || say "no guest kernel in '$KCACHE'"
	[ -z "$need_libmod" ] || say "no /lib/modules (libguestfs's appliance needs one, even empty)"
	[ -z "$mount_2m$mount_1g" ] || say "no hugetlbfs mount (hugetlb-backed guests need one)"
	[ -z "$start_lv$start_vl" ] || say "libvirtd or virtlogd is not running"
	say "as root, 'make deps' does it (and says what it changes first)"
	[ -z "$missing$need_kernel" ] || exit 1
	exit 0
fi

say "this changes the host as follows:"
[ -z "$missing" ] || say "  install packages:$missing (no service they bring is started: policy-rc.d)"
[ -z "$need_kernel" ] ||
	say "  unpack ${kpkg:-Debian's linux-image (the package linux-image-amd64 depends on)} into '$KCACHE' (apt-get download + dpkg-deb -x + depmod -b; /boot is not touched)"
[ -z "$need_libmod" ] ||
	say "  make an empty /lib/modules (supermin, libguestfs's appliance builder, needs one to copy the guest kernel's modules)"
[ -z "$mount_2m" ] || say "  mount hugetlbfs (pagesize 2M) on /dev/hugepages (reserves no memory)"
[ -z "$mount_1g" ] || say "  mount hugetlbfs (pagesize 1G) on /dev/hugepages1G (reserves no memory)"
[ -z "$start_vl" ] || say "  start virtlogd: $start_vl"
[ -z "$start_lv" ] || say "  start libvirtd: $start_lv"

# Mounts first: libvirtd (whoever starts it, apt included) sees them.
if [ -n "$mount_2m" ]; then
	mkdir -p /dev/hugepages
	mount -t hugetlbfs -o pagesize=2M hugetlbfs /dev/hugepages
fi
if [ -n "$mount_1g" ]; then
	mkdir -p /dev/hugepages1G
	mount -t hugetlbfs -o pagesize=1G hugetlbfs /dev/hugepages1G
fi
if [ -n "$missing" ] || [ -n "$VMTAX_APT_UPDATE" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# No service a package brings starts here (sshd, say): its postinst
	# asks invoke-rc.d, which asks policy-rc.d; 101 is "not allowed".
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\n# written by vmtax .ci/deps.sh for one apt-get install\nexit 101\n' >$policy
		chmod 755 $policy
		trap 'rm -f "$policy"' EXIT
	fi
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $PKGS
	[ -z "$policy" ] || { rm -f "$policy"; trap - EXIT; }
fi

if [ -n "$need_kernel" ]; then
	[ -n "$kpkg" ] || kpkg=$(apt-cache depends linux-image-amd64 |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$kpkg" ] || { say "no linux-image-amd64 in the package lists"; exit 1; }
	kver=${kpkg#linux-image-}
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$kpkg" >&2)
	mkdir -p "$KCACHE.new"
	dpkg-deb -x "$tmp"/"$kpkg"_*.deb "$KCACHE.new"
	rm -rf "$tmp"
	[ -r "$KCACHE.new/boot/vmlinuz-$kver" ] && [ -d "$KCACHE.new/lib/modules/$kver" ] ||
		{ say "$kpkg holds no boot/vmlinuz-$kver and lib/modules/$kver"; exit 1; }
	# What the package's postinst would do: modules.dep and the rest,
	# which libguestfs's appliance (supermin) reads.
	depmod -b "$KCACHE.new" "$kver"
	# libvirt's QEMU (user libvirt-qemu) reads the kernel: world-readable.
	chmod -R a+rX "$KCACHE.new"
	rm -rf "$KCACHE.old"
	[ ! -e "$KCACHE" ] || mv "$KCACHE" "$KCACHE.old"
	mv "$KCACHE.new" "$KCACHE"
	rm -rf "$KCACHE.old"
	say "guest kernel $kver in '$KCACHE'"
fi

if [ -n "$need_libmod" ]; then
	mkdir -p /lib/modules
	say "made an empty /lib/modules"
fi

# A daemon that runs is left alone; one that does not is started.
if [ -n "$start_vl" ] && ! pgrep -x virtlogd >/dev/null; then
	$start_vl
fi
if [ -n "$start_lv" ] && ! pgrep -x libvirtd >/dev/null; then
	$start_lv
elif [ -n "$mount_2m$mount_1g" ] && [ -z "$start_lv" ]; then
	say "libvirtd was running before the hugetlbfs mounts: restart it for hugetlb-backed guests (vmtax never stops a running daemon)"
fi
# libvirtd answers once its socket is up.
i=0
while ! virsh -c qemu:///system version >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 50 ] || { say "libvirtd does not answer"; exit 1; }
	sleep 0.2
done
