#!/bin/sh
# t0610-deb: vmtax as a Debian package.  Builds the .deb from a copy of the
# tree (dpkg-buildpackage -us -uc -b), checks it with lintian and its
# Depends, installs it on this machine, runs the installed demo from / (the
# tiny image is built on first use into /var/cache/vmtax/images), checks the
# installed man page against the installed vmtax's key tables, then purges
# the package and checks nothing of it is left.  Slow (a build and the whole
# demo: minutes); run by 'make check-slow'.  Needs root and libvirt, and
# refuses to run over a vmtax package already installed.
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOP/tests/lib-test.sh"

test_need ROOT "installing a package needs root"
test_need LIBVIRT
for t in dpkg-buildpackage dh lintian; do
	command -v $t >/dev/null || skip_all "$t is not installed (make deps)"
done
if dpkg-query -W -f='${Status}' vmtax 2>/dev/null | grep -q installed; then
	skip_all "a vmtax package is already installed; not touching it"
fi
[ -e /usr/bin/vmtax ] && skip_all "/usr/bin/vmtax exists outside a package"

fresh_cache=
[ -e /var/cache/vmtax/images ] || fresh_cache=1

test_expect_success 'dpkg-buildpackage builds the .deb from a copy of the tree' '
	mkdir src &&
	mkdir src/vmtax &&
	tar --exclude=./build --exclude=./.git --exclude=./runs -C "$TOP" -cf - . |
		tar -xf - -C src/vmtax &&
	(cd src/vmtax && dpkg-buildpackage -us -uc -b >../build.log 2>&1) ||
		{ tail -40 src/build.log; false; }
	ls src/vmtax_*_amd64.deb >deb &&
	test "$(wc -l <deb)" = 1 &&
	ls -l "$(cat deb)"
'

test_expect_success 'lintian finds no error and no warning' '
	lintian --fail-on error,warning src/vmtax_*_amd64.changes >lintian.out 2>&1 ||
		{ cat lintian.out; false; }
	cat lintian.out
'

test_expect_success 'Depends names what the tiny guest and libvirt need' '
	dpkg-deb -f "$(cat deb)" Depends >depends &&
	cat depends &&
	for p in libvirt-daemon-system qemu-system-x86 linux-image-amd64 busybox-static; do
		grep -q "\(^\|, \)$p\(,\|$\)" depends || { echo "missing $p"; false; }
	done
'

test_expect_success 'the package installs: vmtax, libexec, share, man, completion' '
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"$PWD/$(cat deb)" >apt.log 2>&1 || { tail -20 apt.log; false; }
	test "$(command -v vmtax)" = /usr/bin/vmtax &&
	test -x /usr/libexec/vmtax/vmtax-agent &&
	test -x /usr/libexec/vmtax/randwalk &&
	test -f /usr/share/vmtax/configs/demo.ini &&
	test -f /usr/share/vmtax/configs/workloads/randwalk.ini &&
	test -f /usr/share/bash-completion/completions/vmtax &&
	for m in vmtax vmtax-run vmtax-report vmtax-compare vmtax-image \
		vmtax-workloads vmtax-lab vmtax-config vmtax-host; do
		man -w $m >/dev/null || { echo "no man page $m"; false; }
	done
'

test_expect_success 'the installed vmtax finds its files from any directory' '
	(cd / && vmtax workloads) >workloads &&
	grep -q "^randwalk " workloads &&
	(cd / && vmtax --complete workloads) >names &&
	grep -qx stream names
'

test_expect_success 'every key of the installed tables is in vmtax-config(5)' '
	vmtax --complete keys >keys &&
	test "$(wc -l <keys)" -ge 25 &&
	zcat "$(man -w 5 vmtax-config)" >page &&
	while read -r k; do
		name=${k#*.} &&
		grep -qx ".B $name" page || { echo "$k not in vmtax-config(5)"; false; }
	done <keys
'

# The demo, and the host's THP mode before and after it, under the host
# lock: other runs change THP while they hold it.
cat >"$TRASH/demo.sh" <<'EOF'
thp() { sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled; }
thp >thp.before
(cd / && vmtax run /usr/share/vmtax/configs/demo.ini --out "$TRASH/demo") \
	>demo.out 2>demo.err
rc=$?
thp >thp.after
exit $rc
EOF

test_expect_success 'the installed demo runs from /, building its tiny image first' '
	start=$(date +%s) &&
	TRASH=$TRASH flock -o /tmp/vmtax-host.lock sh "$TRASH/demo.sh" ||
		{ tail -30 demo.err; false; }
	echo "installed demo: $(($(date +%s) - start)) s with the wait for the host lock" &&
	jq -r "\"run: \\(.run.started) to \\(.run.finished)\"" demo/results.json &&
	test ! -e /runs &&
	jq -e ".cells | length == 6" demo/results.json &&
	jq -e "[.cells[].status == \"ok\"] | all" demo/results.json &&
	grep -q "slowdown" demo.out &&
	vmtax image path initrd >initrd &&
	grep -q "^/var/cache/vmtax/images/tiny-" initrd &&
	if [ -n "$fresh_cache" ]; then
		grep "first use: building the tiny guest image" demo.err &&
		grep "image: tiny: built" demo.err
	fi
'

test_expect_success 'the host THP mode after the demo is what it was before' '
	test_cmp thp.before thp.after
'

# Purging removes /var/lib/vmtax, where a build tree's vmtax keeps its lock
# too: the purge and its checks run while no other vmtax runs (the host
# lock), or another run could recreate it between the two.
cat >"$TRASH/purge.sh" <<'EOF'
set -e
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q vmtax >purge.log 2>&1 ||
	{ tail -20 purge.log; exit 1; }
if dpkg-query -W -f='${Status}' vmtax 2>/dev/null | grep -q installed; then
	echo "vmtax is still installed"; exit 1
fi
for f in /usr/bin/vmtax /usr/libexec/vmtax /usr/share/vmtax /usr/share/doc/vmtax \
	/usr/share/bash-completion/completions/vmtax /usr/share/man/man5/vmtax-config.5.gz \
	/var/cache/vmtax /var/lib/vmtax; do
	if [ -e "$f" ]; then echo "left behind: $f"; exit 1; fi
done
EOF

test_expect_success 'purging the package leaves nothing behind' '
	flock -o /tmp/vmtax-host.lock sh "$TRASH/purge.sh" &&
	no_vmtax_domains
'

test_done
