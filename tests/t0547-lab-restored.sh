#!/bin/sh
# host: exclusive
# The quick lab of 'make check' (issue "Fast enough"): the lab image built
# from this host's installed packages (seconds; docs/guest-image.md), then
# part 1 of tests/slow/t0546-lab-restore.sh: a lab run that ends on a lab
# restored from a saved state (booting it and saving one when none fits, as
# on a fresh clone), and a second run that restores it in seconds (the
# first run is that one when it restored a state saved before it).  The rest
# of t0546 (inner guests with NPT on and off, a truncated, a corrupt and a
# foreign state, restore = off) and t0545 (signals, --resume, a hung lab)
# stay in 'make check-slow'.
TOP=$(cd "$(dirname "$0")/.." && pwd)
# The plain build, whatever VMTAX the runner gives (make check's is
# sanitized): a lab run puts this vmtax inside the lab, whose packages have
# no libasan.
VMTAX=$TOP/build/vmtax
export VMTAX
skip() { echo "1..0 # SKIP t0547-lab-restored: $*"; exit 0; }

test "$(id -u)" = 0 || skip "the lab image and libvirt need root"
# Where the host lacks a lab package the image is debootstrapped (minutes,
# and the network): that build belongs to make check-slow.
why=$("$VMTAX" image build --kind lab --check 2>&1)
case "$why" in
*"up to date"* | *"the host's packages"*) ;;
*) skip "the lab image would need debootstrap here: $why" ;;
esac
t0=$(date +%s)
"$VMTAX" image build --kind lab >/dev/null 2>"/tmp/t0547-image.$$" || {
	echo "not ok - the lab image from this host's packages"
	sed 's/^/# /' "/tmp/t0547-image.$$"
	rm -f "/tmp/t0547-image.$$"
	exit 1
}
rm -f "/tmp/t0547-image.$$"
echo "# the lab image, from this host's packages: $(($(date +%s) - t0)) s"
PART=1 exec sh "$TOP/tests/slow/t0546-lab-restore.sh"
