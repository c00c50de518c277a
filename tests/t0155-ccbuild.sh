#!/bin/sh
# host: exclusive, waits
# The ccbuild workload's source set (workloads/ccbuild-srcset.sh) from a
# made-up linux-source tarball: made, checked against its manifest (a file
# that differs is named), reproducible, keyed by content (no tarball read
# when up to date; a stale set removed when it cannot be made again); the
# set 'make' made matches the committed manifest; then ccbuild on bare metal,
# at the host's THP mode (unchanged): a good set builds and prints its
# identity, a changed file fails the cell at setup naming the file, a
# missing set fails it saying so.
. "$(dirname "$0")/lib-test.sh"

SCRIPT=$TOP/workloads/ccbuild-srcset.sh
mkdir -p "$TRASH/linux-source-9.9/scripts/sub" "$TRASH/linux-source-9.9/include"
cat >"$TRASH/linux-source-9.9/scripts/a.c" <<'EOF2'
#include "../include/x.h"
int a(int v) { return v * X; }
EOF2
cat >"$TRASH/linux-source-9.9/scripts/sub/b.c" <<'EOF2'
#include <stdio.h>
int b(void) { return puts("b"); }
EOF2
echo '#define X 3' >"$TRASH/linux-source-9.9/include/x.h"
echo 'not in the set' >"$TRASH/linux-source-9.9/other.c"
tar -C "$TRASH" -cJf "$TRASH/linux-source-9.9.tar.xz" linux-source-9.9
(cd "$TRASH/linux-source-9.9" && sha256sum scripts/sub/b.c scripts/a.c include/x.h) >"$TRASH/good.sha256"
T=$TRASH/linux-source-9.9.tar.xz

test_expect_success 'the set is made from the tarball, its SHA256SUMS the manifest and the Makefile' '
	sh "$SCRIPT" --tarball "$T" --manifest good.sha256 set/cc.tar 2>err &&
	grep -q "made .set/cc.tar.: set sha256:[0-9a-f]\{64\}, 2 C files" err &&
	tar -tf set/cc.tar | sort >members &&
	grep -qx "ccbuild/scripts/a.c" members &&
	grep -qx "ccbuild/include/x.h" members &&
	! grep -q other.c members &&
	mkdir x && tar -C x -xf set/cc.tar &&
	head -n 3 x/ccbuild/SHA256SUMS >head && test_cmp good.sha256 head &&
	grep -q "  Makefile$" x/ccbuild/SHA256SUMS &&
	(cd x/ccbuild && sha256sum --quiet -c SHA256SUMS) &&
	grep -q "^SRCS = scripts/sub/b.c scripts/a.c $" x/ccbuild/Makefile
'

test_expect_success 'the same manifest makes the same bytes' '
	sh "$SCRIPT" --tarball "$T" --manifest good.sha256 again/cc.tar 2>/dev/null &&
	cmp set/cc.tar again/cc.tar
'

test_expect_success 'up to date: the tarball is not read' '
	cp set/cc.tar before.tar &&
	sh "$SCRIPT" --tarball "$TRASH/none.tar.xz" --manifest good.sha256 set/cc.tar 2>err &&
	test ! -s err && cmp before.tar set/cc.tar
'

test_expect_success 'a file that differs from the manifest fails the build, named' '
	sed "s/^[0-9a-f]\{8\}/00000000/" good.sha256 >bad.sha256 &&
	test_expect_code 1 sh "$SCRIPT" --tarball "$T" --manifest bad.sha256 bad/cc.tar 2>err &&
	grep -q "scripts/sub/b.c: FAILED" err &&
	grep -q "differs from .*bad.sha256" err &&
	test ! -e bad/cc.tar
'

test_expect_success 'a file the tarball lacks fails the build' '
	{ cat good.sha256 && echo "$(echo x | sha256sum | cut -c1-64)  scripts/gone.c"; } >gone.sha256 &&
	test_expect_code 1 sh "$SCRIPT" --tarball "$T" --manifest gone.sha256 gone/cc.tar 2>err &&
	grep -q "cannot take the manifest" err
'

test_expect_success 'a changed manifest and no tarball: the stale set is removed' '
	cp good.sha256 changed.sha256 && cp -r set stale &&
	sh "$SCRIPT" --tarball "$T" --manifest changed.sha256 stale/cc.tar 2>/dev/null &&
	echo "$(echo y | sha256sum | cut -c1-64)  scripts/new.c" >>changed.sha256 &&
	sh "$SCRIPT" --if-source --tarball "$TRASH/none.tar.xz" --manifest changed.sha256 stale/cc.tar 2>err &&
	grep -q "removed .stale/cc.tar." err && test ! -e stale/cc.tar &&
	sh "$SCRIPT" --if-source --tarball "$TRASH/none.tar.xz" --manifest changed.sha256 stale/cc.tar 2>err &&
	test ! -s err &&
	test_expect_code 1 sh "$SCRIPT" --tarball "$TRASH/none.tar.xz" --manifest changed.sha256 stale/cc.tar 2>err &&
	grep -q "no linux-source tarball" err
'

test_expect_success '--print-manifest prints the manifest of the tarball' '
	sh "$SCRIPT" --print-manifest --tarball "$T" --manifest bad.sha256 >printed 2>/dev/null &&
	test_cmp good.sha256 printed
'

test_expect_success 'usage errors exit 2' '
	test_expect_code 2 sh "$SCRIPT" &&
	test_expect_code 2 sh "$SCRIPT" a b &&
	test_expect_code 2 sh "$SCRIPT" --bogus out
'

test_lazy_prereq SRCSET "no $BUILD/src/ccbuild.tar (linux-source is not installed: make deps-workloads)" \
	'[ -f "$BUILD/src/ccbuild.tar" ]'
if test_prereq SRCSET; then
	test_expect_success 'the set make made matches the committed manifest' '
		mkdir real && tar -C real -xf "$BUILD/src/ccbuild.tar" &&
		n=$(wc -l <"$TOP/workloads/ccbuild.sha256") &&
		head -n "$n" real/ccbuild/SHA256SUMS >real.head &&
		test_cmp "$TOP/workloads/ccbuild.sha256" real.head &&
		(cd real/ccbuild && sha256sum --quiet -c SHA256SUMS)
	'
else
	test_skip SRCSET 'the set make made matches the committed manifest'
fi

if ! test_prereq ROOT; then
	test_skip ROOT 'ccbuild on bare metal' "needs root (vmtax run reads host THP)"
	test_done
fi

thp=$(thp_get enabled)
cat >"$TRASH/run.ini" <<EOF2
[run]
name = t0155
repeat = 1
[matrix]
where = bare-metal
host_thp = $thp
[workload]
dir = $TOP/configs/workloads
name = ccbuild
FILES = 2
JOBS = 2
EOF2
id=$(tar -xOf "$TRASH/set/cc.tar" ccbuild/SHA256SUMS | sha256sum | cut -c1-64)

test_expect_success 'a good set builds on bare metal and the sample names the set' '
	"$VMTAX" run run.ini --out good --set workload.SRCSET="$TRASH/set/cc.tar" \
		>/dev/null 2>stderr || { tail -20 stderr; false; } &&
	jq -e ".cells[0].status == \"ok\" and .cells[0].samples[0].metric > 0" good/results.json &&
	grep -q "ccbuild: make -j2 FILES=2, set sha256:$id$" good/logs/*.sample-0.out
'

test_expect_success 'a changed file fails the cell at setup, and the log names it' '
	mkdir t && tar -C t -xf set/cc.tar && echo "int c;" >>t/ccbuild/scripts/a.c &&
	tar -C t -cf tampered.tar ccbuild &&
	test_expect_code 1 "$VMTAX" run run.ini --out tampered \
		--set workload.SRCSET="$TRASH/tampered.tar" >/dev/null 2>stderr &&
	jq -e ".cells[0].status == \"failed\"" tampered/results.json &&
	jq -r ".cells[0].reason" tampered/results.json >reason &&
	grep -q "setup failed" reason &&
	grep -q "^scripts/a.c: FAILED$" tampered/logs/*.setup-0.out
'

test_expect_success 'a missing set fails the cell, saying so' '
	test_expect_code 1 "$VMTAX" run run.ini --out missing \
		--set workload.SRCSET="$TRASH/none.tar" >/dev/null 2>stderr &&
	jq -e ".cells[0].status == \"failed\"" missing/results.json &&
	grep -q "ccbuild: no source set .*none.tar" missing/logs/*.setup-0.out
'

test_expect_success 'host THP as before' '
	test "$(thp_get enabled)" = "$thp"
'
test_done
