#!/bin/sh
# Typed workload parameters (issue 37): a [param.NAME] may declare type =
# int, number, size or enum (choices) with min and max; its default is
# checked when the workload file is read, and every override where it is
# written, the run config's line or --set, each refused with exit status
# 2, naming the parameter, the value and the type expected.  An undeclared
# parameter takes any text, as before.  Dry runs only: nothing changes.
. "$(dirname "$0")/lib-test.sh"
test_need KERNEL

mkdir -p "$TRASH/wl" &&
	cat >"$TRASH/wl/typed.ini" <<'EOF2' ||
[workload]
run = echo $N $MODE $MEM $NOTE
[param.N]
default = 3
type = int
min = 1
max = 10
[param.MODE]
default = fast
type = enum
choices = fast, slow
[param.MEM]
default = 64M
type = size
min = 1M
[param.NOTE]
default = any text
EOF2
	bail_out "cannot write the workload"
cat >"$TRASH/typed.ini" <<EOF2 || bail_out "cannot write the config"
[run]
repeat = 1
[guest]
accel = tcg
memory = 512M
[matrix]
where = guest
host_thp = never
guest_thp = never
[workload]
dir = $TRASH/wl
name = typed
EOF2

# bad NAME 'expected message (grep -E)' 'CONFIG [ARG]...': refused, exit 2
bad() {
	want=$2 args=$3
	test_expect_success "refused: $1" '
		test_expect_code 2 "$VMTAX" run $args --dry-run >out 2>err &&
		cat err &&
		grep -E "$want" err &&
		test ! -s out
	'
}

demo=$TOP/configs/demo.ini
sparse=$TOP/configs/directmap-sparse.ini
wl=$TOP/configs/workloads

bad set-int "^--set workload\.READS=abc: 'abc' is not an integer \(READS is an int of at least 1, $wl/randwalk\.ini:[0-9]+\)\$" \
	"$demo --set workload.READS=abc"
bad set-rounds "^--set workload\.ROUNDS=abc: 'abc' is not an integer \(ROUNDS is an int from 1 to 1000000, $wl/sparse-touch\.ini:[0-9]+\)\$" \
	"$sparse --set workload.ROUNDS=abc"
bad set-range "^--set workload\.SIZE_MIB=0: 0 is out of range \[1, 1048576\] \(SIZE_MIB is an int from 1 to 1048576, " \
	"$demo --set workload.SIZE_MIB=0"
bad set-axis-element "^--set workload\.SIZE_MIB=lots: 'lots' is not an integer" \
	"$demo --set workload.SIZE_MIB=64,lots"
bad set-enum "^--set workload\.MODE=medium: 'medium' is not one of: fast, slow \(MODE is an enum: one of fast, slow, $TRASH/wl/typed\.ini:10\)\$" \
	"typed.ini --set workload.MODE=medium"
bad set-size "^--set workload\.MEM=12: 12 is out of range \(at least 1 MiB\) \(MEM is a size of at least 1M, " \
	"typed.ini --set workload.MEM=12"
bad set-size-text "^--set workload\.MEM=big: 'big' is not a size \(like 512M, 2G, 4096\)" \
	"typed.ini --set workload.MEM=big"

printf '%s\nN = 11\n' "$(cat "$TRASH/typed.ini")" >"$TRASH/override.ini"
bad config-line "^override\.ini:13: workload parameter N: 11 is out of range \[1, 10\] \(N is an int from 1 to 10, $TRASH/wl/typed\.ini:5\)\$" \
	override.ini
cat >"$TRASH/kconfig.ini" <<EOF2
[workload]
dir = $wl
name = kbuild
KCONFIG = olddefconfig
EOF2
bad shipped-enum "^kconfig\.ini:4: workload parameter KCONFIG: 'olddefconfig' is not one of: defconfig, tinyconfig, allnoconfig" \
	kconfig.ini

sed 's/^default = 3$/default = three/' "$TRASH/wl/typed.ini" >"$TRASH/wl/baddef.ini"
sed 's/name = typed/name = baddef/' "$TRASH/typed.ini" >"$TRASH/baddef.ini"
bad bad-default "^$TRASH/wl/baddef\.ini:4: \[param\.N\] default: 'three' is not an integer \(type int from 1 to 10\)\$" \
	baddef.ini

test_expect_success 'values of their type pass, and an undeclared parameter takes any text' '
	"$VMTAX" run typed.ini --dry-run --set workload.N=1,10 --set workload.MODE=slow \
		--set workload.MEM=2G --set "workload.NOTE=a b: c" >out 2>err &&
	grep "^run .*: 2 cells x 1 samples of .typed." out &&
	"$VMTAX" run "$demo" --dry-run --set workload.READS=1000 >out 2>err &&
	grep "^run .demo.: " out
'

test_done
