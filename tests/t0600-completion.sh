#!/bin/sh
# Bash completion (completion/vmtax.bash): the words come from vmtax itself
# (vmtax --complete), so each case checks a word that only the tables, the
# workload files or a run's axes can give.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX
test_need BASH

# complete LINE: the completions for LINE (the cursor at its end; a trailing
# space starts a new word), one a line, sorted.
cat >"$TRASH/complete.bash" <<'SH'
. "$TOP/completion/vmtax.bash"
line=$1
COMP_WORDS=()
# split as readline does: blanks, and '=' as a word of its own
w=
for ((j = 0; j < ${#line}; j++)); do
	c=${line:j:1}
	case $c in
	' ') [[ -n $w ]] && COMP_WORDS+=("$w"); w= ;;
	=) [[ -n $w ]] && COMP_WORDS+=("$w"); COMP_WORDS+=("="); w= ;;
	*) w+=$c ;;
	esac
done
COMP_WORDS+=("$w")
COMP_WORDS[0]=$VMTAX
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_vmtax
printf '%s\n' "${COMPREPLY[@]}" | sort
SH
# (from the top of the tree: configs/ and configs/workloads/ as a user has them)
complete() { (cd "$TOP" && bash "$TRASH/complete.bash" "$1"); }
export TOP VMTAX

test_expect_success 'subcommands come from the command table' '
	complete "vmtax " >out &&
	grep -qx run out && grep -qx report out && grep -qx image out &&
	grep -qx -- --help out &&
	complete "vmtax rep" >out &&
	test "$(cat out)" = report
'

test_expect_success "'vmtax help' offers the commands" '
	complete "vmtax he" >out &&
	test "$(cat out)" = help &&
	complete "vmtax help rep" >out &&
	test "$(cat out)" = report &&
	complete "vmtax help report " >out &&
	test -z "$(cat out)"
'

test_expect_success 'options of a subcommand come from its --help' '
	complete "vmtax report --fo" >out &&
	test "$(cat out)" = --format &&
	complete "vmtax run configs/demo.ini --re" >out &&
	test "$(cat out)" = --resume
'

test_expect_success '--set offers every key of the run table, with =' '
	complete "vmtax run configs/demo.ini --set " >out &&
	grep -qx run.repeat= out && grep -qx guest.cpu_features= out &&
	grep -qx matrix.backing= out && grep -qx host.thp.defrag= out &&
	grep -qx fleet.allow_unlike= out &&
	test "$(wc -l <out)" -ge 25
'

test_expect_success '--set offers the workload parameters of the config' '
	complete "vmtax run configs/demo.ini --set workload.SI" >out &&
	test "$(cat out)" = workload.SIZE_MIB=
'

test_expect_success '--set KEY= offers the values the table allows' '
	complete "vmtax run configs/demo.ini --set guest.accel=" >out &&
	printf "auto\nkvm\ntcg\n" >want &&
	test_cmp want out &&
	complete "vmtax run configs/demo.ini --set matrix.host_thp=ma" >out &&
	test "$(cat out)" = madvise
'

test_expect_success 'vmtax lab run: run, then configs, then --set keys' '
	complete "vmtax lab " >out &&
	printf "run\nup\n" >want &&
	test_cmp want out &&
	complete "vmtax lab up configs/lab-n" >out &&
	grep -qx configs/lab-npt.ini out &&
	complete "vmtax lab run configs/lab-n" >out &&
	grep -qx configs/lab-npt.ini out &&
	complete "vmtax lab run configs/lab-npt.ini --set lab.v" >out &&
	test "$(cat out)" = lab.vcpus=
'

test_expect_success 'workload.name= offers the workload files' '
	complete "vmtax run configs/demo.ini --set workload.name=rand" >out &&
	printf "randwalk\nrandwalk-par\n" >want &&
	test_cmp want out
'

test_expect_success '--by offers the axes of the run named before it' '
	complete "vmtax compare tests/fixtures/results-vcpus.json --by " >out &&
	printf "guest-thp\nhost-thp\nvcpus\nwhere\n" >want &&
	test_cmp want out
'

test_expect_success 'compare offers --effect, --pair and --baseline (from its --help)' '
	complete "vmtax compare a b --ef" >out &&
	test "$(cat out)" = --effect &&
	complete "vmtax compare a b --effect --pa" >out &&
	test "$(cat out)" = --pair &&
	complete "vmtax compare a b --effect --bas" >out &&
	test "$(cat out)" = --baseline
'

test_expect_success 'run offers configs (.ini) and --format its formats' '
	complete "vmtax run configs/de" >out &&
	grep -qx configs/demo.ini out &&
	complete "vmtax report runs/x --format " >out &&
	printf "csv\nhtml\njson\nmd\ntext\n" >want &&
	test_cmp want out
'

test_expect_success '--format: the registry gives completion and --help one list' '
	"$VMTAX" --complete formats >out &&
	printf "text\nmd\ncsv\njson\nhtml\n" >want &&
	test_cmp want out &&
	"$VMTAX" report --help >help &&
	grep -q "$(paste -s -d "|" out) (default text)" help
'

test_expect_success 'vmtax --complete refuses an unknown word (exit 2)' '
	test_expect_code 2 "$VMTAX" --complete nosuch 2>err &&
	grep -q "usage: vmtax --complete" err
'

test_done
