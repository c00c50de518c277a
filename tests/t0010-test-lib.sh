#!/bin/sh
# The test library and the chain lint themselves: a failing line fails its
# test even when the next line passes; expected exit codes, skips and
# prerequisites still work; every skip names its prerequisite and reason,
# and under CI=true one the host could have run fails; chainlint.py names
# each broken && chain at file:line and passes good bodies.
. "$(dirname "$0")/lib-test.sh"

# child NAME BODY: run a test file whose tests are BODY (with CI=$CHILD_CI);
# its output in NAME.out, its exit status in NAME.rc; its scratch
# directory removed.
child() {
	{
		echo ". \"$TOP/tests/lib-test.sh\""
		printf '%s\n' "$2"
		echo test_done
	} >"$TRASH/$1.sh"
	(cd "$TRASH" && CI=${CHILD_CI:-} sh "$1.sh" >"$1.out" 2>&1; echo $? >"$1.rc")
	sed -n 's/^# scratch left in //p' "$TRASH/$1.out" | while read -r d; do
		case $d in /tmp/vmtax-*) rm -rf "$d" ;; esac
	done
}
child_ci() {
	CHILD_CI=true
	child "$@"
	CHILD_CI=
}

child first-line "test_expect_success 'fails on its first line' '
	false
	true
'"
test_expect_success 'a body whose first line fails is not ok, and its file fails' '
	grep "^not ok 1 - fails on its first line" first-line.out &&
	test "$(cat first-line.rc)" = 1
'

child passing "test_expect_success 'passes' '
	true &&
	echo fine
'
test_expect_failure_code 'exits 3' 3 '(exit 3)'
test_expect_failure_code 'exits 4, wanted 3' 3 '(exit 4)'
test_expect_failure_code 'an earlier line exits 3' 3 '
	(exit 3) &&
	true
'
test_expect_failure_code 'the last line exits 3 after a good line' 3 '
	x=3 &&
	(exit \$x)
'
test_skip '' 'skipped' 'for a reason'
true && test_expect_success 'after a true &&' 'false
true'
if true; then test_expect_success 'if' 'test_expect_code 2 sh -c \"exit 2\"'; fi
if test_expect_success 'in an if condition' 'true'; then :; fi"
test_expect_success 'passing bodies, exit codes (of the last line only) and skips' '
	cat passing.out &&
	grep -x "ok 1 - passes" passing.out &&
	grep -x "ok 2 - exits 3" passing.out &&
	grep -x "not ok 3 - exits 4, wanted 3 (exit 4, wanted 3)" passing.out &&
	grep -x "not ok 4 - an earlier line exits 3 (an earlier line failed: exit 3)" passing.out &&
	grep -x "ok 5 - the last line exits 3 after a good line" passing.out &&
	grep -x "ok 6 - skipped # SKIP for a reason (no prerequisite)" passing.out &&
	grep -x "not ok 7 - after a true && (exit 1)" passing.out &&
	grep -x "ok 8 - if" passing.out &&
	grep -x "not ok 9 - in an if condition (exit 125)" passing.out &&
	grep "set -e would be ignored" passing.out &&
	grep -x "# passing: 9 tests, 4 failed, 1 skipped" passing.out
'

# Skips: each names the prerequisite it is for.  NEVER is one no host has,
# HERE one every host has (test_lazy_prereq: the file's own).
never='test_lazy_prereq NEVER "never here" false'
here='test_lazy_prereq HERE "always here" true'
child skipall "$never
test_need NEVER"
child_ci skipall-ci "$never
test_need NEVER"
test_expect_success 'a file needing a prerequisite the host lacks is skipped with its reason, under CI too' '
	grep -x "1..0 # SKIP skipall: never here (missing NEVER)" skipall.out &&
	test "$(cat skipall.rc)" = 0 &&
	grep -x "1..0 # SKIP skipall-ci: never here (missing NEVER)" skipall-ci.out &&
	test "$(cat skipall-ci.rc)" = 0
'

child later "$never
test_expect_success first true
test_need ROOT,NEVER 'needs a thing after the first'
test_expect_success second true"
test_expect_success 'test_need after tests ran skips the rest of the file, said as a test' '
	cat later.out &&
	grep -x "ok 1 - first" later.out &&
	grep -x "ok 2 - the rest of later # SKIP needs a thing after the first (missing $(test_prereq ROOT || echo ROOT,)NEVER)" later.out &&
	! grep "second" later.out &&
	test "$(cat later.rc)" = 0
'

child cases "$never
$here
test_expect_success NEVER 'needs never' false
test_expect_failure_code HERE,NEVER 'needs both' 3 '(exit 3)'
test_expect_success HERE 'needs here' true
test_expect_success '!NEVER' 'needs no never' true
test_expect_success '!HERE' 'needs no here' false"
test_expect_success 'a test whose prerequisite is missing is skipped with the reason; the others run' '
	cat cases.out &&
	grep -x "ok 1 - needs never # SKIP never here (missing NEVER)" cases.out &&
	grep -x "ok 2 - needs both # SKIP never here (missing NEVER)" cases.out &&
	grep -x "ok 3 - needs here" cases.out &&
	grep -x "ok 4 - needs no never" cases.out &&
	grep -x "ok 5 - needs no here # SKIP this host has HERE (missing !HERE)" cases.out &&
	grep -x "# cases: 5 tests, 0 failed, 3 skipped" cases.out &&
	test "$(cat cases.rc)" = 0
'

child typo 'test_need NOSUCH "no such thing here"'
test_expect_success 'an unknown prerequisite fails the file (a typo would skip for ever)' '
	grep -x "Bail out! typo: unknown prerequisite NOSUCH" typo.out &&
	test "$(cat typo.rc)" = 1
'

# A skip the host could have run: for a prerequisite it has, or for none
# (as t0180 did: its own kernel glob failed where the kernel was there).
chose="$here
test_skip HERE 'chose to' 'the file says so'"
noprereq='ls /nonexistent/vmlinuz-* >/dev/null 2>&1 || skip_all "no guest kernel"'
child chose "$chose"
child_ci chose-ci "$chose"
child noprereq "$noprereq"
child_ci noprereq-ci "$noprereq"
test_expect_success 'a skip for a prerequisite the host meets, or for none, passes, but fails under CI=true' '
	cat chose.out chose-ci.out noprereq.out noprereq-ci.out &&
	grep -x "ok 1 - chose to # SKIP the file says so (missing HERE)" chose.out &&
	test "$(cat chose.rc)" = 0 &&
	grep -x "not ok 1 - chose to # skipped: the file says so (missing HERE), but the host meets HERE: under CI=true a skip must be for a prerequisite the host lacks" chose-ci.out &&
	test "$(cat chose-ci.rc)" = 1 &&
	grep -x "1..0 # SKIP noprereq: no guest kernel (no prerequisite)" noprereq.out &&
	test "$(cat noprereq.rc)" = 0 &&
	grep -x "Bail out! noprereq-ci skipped: no guest kernel (no prerequisite), but it names no prerequisite: under CI=true a skip must be for a prerequisite the host lacks" noprereq-ci.out &&
	test "$(cat noprereq-ci.rc)" = 1
'

# suite DIR FILE BODY...: a test file of DIR/ that sources its lib-test.sh
suite() {
	_d=$1 _f=$2
	shift 2
	printf "%s\n" ". \"\$(dirname \"\$0\")/lib-test.sh\"" "$@" >"$TRASH/$_d/$_f"
}
mkdir "$TRASH/suite"
cp "$TOP/tests/run-shell-tests.sh" "$TOP/tests/lib-test.sh" "$TOP/tests/chainlint.py" "$TRASH/suite/"
suite suite t0001-skips.sh "$never" "test_need NEVER"
suite suite t0002-passes.sh "$never" "test_expect_success one true" \
	"test_expect_success NEVER two true" test_done
suite suite t0003-no-prereq.sh 'skip_all "for no named reason"'
test_expect_success 'the runner names each skipped file and each skipped test, with its reason' '
	T= CI= sh suite/run-shell-tests.sh >suite.out &&
	cat suite.out &&
	sed -n "/^skipped /,/^[^ ]/p" suite.out >skips &&
	printf "%s\n" "skipped (files: 2, tests inside files that ran: 1):" \
		"  t0001-skips.sh: never here (missing NEVER)" \
		"  t0002-passes.sh: '"'"'two'"'"': never here (missing NEVER)" \
		"  t0003-no-prereq.sh: for no named reason (no prerequisite)" \
		"== wall: Xs with -j N" >want &&
	sed "s/^== wall: .*/== wall: Xs with -j N/" skips >got &&
	test_cmp want got &&
	grep -x "shell-tests: 1 passed, 0 failed, 2 skipped" suite.out
'

test_expect_success 'under CI=true the runner fails a file that skips for no prerequisite' '
	test_expect_code 1 env T= CI=true sh suite/run-shell-tests.sh >suite-ci.out &&
	cat suite-ci.out &&
	grep -x "Bail out! t0003-no-prereq skipped: for no named reason (no prerequisite), but it names no prerequisite: under CI=true a skip must be for a prerequisite the host lacks" suite-ci.out &&
	grep -x "failed: t0003-no-prereq.sh" suite-ci.out &&
	grep -x "shell-tests: 1 passed, 1 failed, 1 skipped" suite-ci.out
'

# KERNEL asks vmtax where the guest kernel is (its cache, build/kernel
# beside its bin/, else /boot): a scratch tree with a kernel in its cache
# and none in /boot (this host has none there) has it.  t0180 skipped
# when either of its two globs matched nothing.
test_expect_success 'KERNEL: a kernel in the cache is found, whatever /boot holds; t0180 needs it' '
	k=$TRASH/k &&
	mkdir -p "$k/build/bin" "$k/build/kernel/boot" &&
	cp "$VMTAX" "$k/build/vmtax" &&
	echo image >"$k/build/kernel/boot/vmlinuz-9.9.9-test" &&
	(VMTAX=$k/build/vmtax && test_prereq KERNEL && echo "$test_kernel_") >found &&
	echo "$k/build/kernel/boot/vmlinuz-9.9.9-test" >want &&
	test_cmp want found &&
	rm "$k/build/kernel/boot/vmlinuz-9.9.9-test" &&
	if ls /boot/vmlinuz-* >/dev/null 2>&1; then
		(VMTAX=$k/build/vmtax && test_prereq KERNEL && echo "$test_kernel_") >found &&
		grep -x "/boot/vmlinuz-.*" found
	else
		(VMTAX=$k/build/vmtax && ! test_prereq KERNEL && echo "$prereq_why_") >why &&
		grep -x "no guest kernel: .$k/build/vmtax image path vmlinuz. names none (make deps)" why
	fi &&
	grep -x "test_need KERNEL" "$TOP/tests/t0180-image-tiny.sh"
'

# A suite for the parallel runner: two tests that need the host (they log
# their start and end, and check the host lock is held), one that prints
# 300 lines, one that fails.  The lock is a scratch file.
mkdir "$TRASH/par"
cp "$TOP/tests/run-shell-tests.sh" "$TOP/tests/lib-test.sh" "$TOP/tests/chainlint.py" "$TRASH/par/"
for n in 1 2; do
	printf '%s\n' '#!/bin/sh' '# host: exclusive' \
		"echo start $n >>\"\$PARLOG\"" \
		'flock -n "$VMTAX_HOST_LOCK_FILE" true && echo "lock not held" && exit 1' \
		'sleep 1' "echo end $n >>\"\$PARLOG\"" "echo ran $n" >"$TRASH/par/t000$n-host.sh"
done
printf '%s\n' 'i=0; while [ $i -lt 300 ]; do echo "line $i"; i=$((i + 1)); done' \
	'sleep 1' >"$TRASH/par/t0003-lines.sh"
printf '%s\n' 'echo "boom: this is why"' 'exit 1' >"$TRASH/par/t0004-fails.sh"
export PARLOG="$TRASH/par.log" VMTAX_HOST_LOCK_FILE="$TRASH/host.lock"
: >"$TRASH/host.lock"

test_expect_success 'the parallel runner: host tests one at a time under the lock, output whole' '
	test_expect_code 1 env T= J=3 VMTAX_HOST_LOCK_HELD= sh par/run-shell-tests.sh >par.out &&
	cat par.out par.log &&
	printf "%s\n" "start 1" "end 1" "start 2" "end 2" >want.log &&
	test_cmp want.log par.log &&
	grep -x "ran 1" par.out &&
	grep -x "ran 2" par.out &&
	grep -x "boom: this is why" par.out &&
	grep -x "failed: t0004-fails.sh" par.out &&
	grep -x "shell-tests: 3 passed, 1 failed, 0 skipped" par.out &&
	grep -x "== wall: [0-9]*s with -j 3" par.out &&
	sed -n "/^== t0003-lines.sh\$/,/^== t0003-lines.sh: [0-9]*s\$/p" par.out >lines &&
	test "$(wc -l <lines)" = 302 &&
	test "$(grep -c "^line [0-9]*\$" lines)" = 300
'

test_expect_success 'the parallel runner under a caller that holds the lock does not take it again' '
	: >par.log &&
	T=host VMTAX_HOST_LOCK_HELD= timeout 600 flock -o "$VMTAX_HOST_LOCK_FILE" \
		sh par/run-shell-tests.sh -j 2 >held.out &&
	cat held.out &&
	grep "held by this run.s caller" held.out &&
	grep -x "shell-tests: 2 passed, 0 failed, 0 skipped" held.out
'

# The same two host tests, the second saying it mostly waits.
mkdir "$TRASH/par2"
cp "$TRASH/par/run-shell-tests.sh" "$TRASH/par/lib-test.sh" "$TRASH/par/chainlint.py" \
	"$TRASH/par/t0001-host.sh" "$TRASH/par2/"
sed "s/^# host: exclusive\$/# host: exclusive, waits/" "$TRASH/par/t0002-host.sh" \
	>"$TRASH/par2/t0002-host.sh"

test_expect_success 'the parallel runner takes the host tests that wait first' '
	: >par.log &&
	env T= J=2 VMTAX_HOST_LOCK_HELD= sh par2/run-shell-tests.sh >par2.out &&
	cat par2.out par.log &&
	printf "%s\n" "start 2" "end 2" "start 1" "end 1" >want2.log &&
	test_cmp want2.log par.log &&
	grep -x "shell-tests: 2 passed, 0 failed, 0 skipped" par2.out
'

test_expect_success 'the runner with -j 1 runs the tests in file order' '
	test_expect_code 1 env T=t000 VMTAX_HOST_LOCK_HELD= J=1 sh par/run-shell-tests.sh >one.out &&
	grep "^== t000[1-4][^:]*\$" one.out >order &&
	printf "== t000%s\n" 1-host.sh 2-host.sh 3-lines.sh 4-fails.sh >want.order &&
	test_cmp want.order order
'

cat >"$TRASH/t1-good.sh" <<'EOF'
test_expect_success 'good' '
	a &&
	b | c |
	d &&
	if x; then
		y &&
		z
	elif w; then
		q
	else
		r
	fi &&
	for i in 1 2; do
		a $i &&
		b || exit 1
	done &&
	while read l; do
		c || { echo "no $l"; exit 1; }
	done <f &&
	case $x in
	a|b) echo a ;;
	(c) echo c &&
		echo d
		;;
	*) ;;
	esac &&
	f() { a && b; } &&
	cat >x <<-EOT &&
	junk here
	no chain
	EOT
	cat <<\EOT >y &&
	more; junk
EOT
	x=$(a; b) &&
	test $(($(date +%s) - s)) -lt 5 &&
	{ echo x; exit 1; } &&
	y 2>&1 >/dev/null &&
	(cd a && b) >p 2>e &&
	bg & pid=$! &&
	c \
		d &&
	# a comment
	z # another; comment
'
test_expect_failure_code 'good code' 2 '
	a &&
	b
'
EOF
cat >"$TRASH/t2-bad.sh" <<'EOF'
test_expect_success 'bad1' '
	a
	b
'
test_expect_success 'bad2' '
	a; b
'
test_expect_success 'bad3' '
	if x; then
		a
		b
	fi
'
test_expect_success 'bad4' '
	for i in 1; do
		a
	done
'
test_expect_success 'bad5' '
	(
		a
		b
	)
'
test_expect_success 'bad6' '
	case x in
	a) b
	   c ;;
	esac
'
test_expect_success 'bad7' '
	cat <<EOT
	x
EOT
	b
'
test_expect_success "bad8" "
	a \"x\" &&
	b
	c
"
test_expect_failure_code 'bad9' 2 '
	a
	b
'
test_expect_success 'bad10' '
	if a; then b; fi
	c
'
EOF
cat >"$TRASH/chainlint.expected" <<'EOF'
t2-bad.sh:2: 'bad1': missing && after 'a'
t2-bad.sh:6: 'bad2': missing && after 'a' (a ';')
t2-bad.sh:10: 'bad3': missing && after 'a'
t2-bad.sh:16: 'bad4': loop body does not end in '|| exit 1' (a failure inside a loop in an && chain is lost)
t2-bad.sh:21: 'bad5': missing && after 'a'
t2-bad.sh:27: 'bad6': missing && after 'b'
t2-bad.sh:32: 'bad7': missing && after 'cat'
t2-bad.sh:39: 'bad8': missing && after 'b'
t2-bad.sh:43: 'bad9': missing && after 'a'
t2-bad.sh:47: 'bad10': missing && after 'fi'
EOF
test_expect_success 'chainlint passes good bodies' '
	python3 "$TOP/tests/chainlint.py" t1-good.sh
'
test_expect_success 'chainlint names each break at file:line and fails' '
	test_expect_code 1 python3 "$TOP/tests/chainlint.py" t2-bad.sh >found &&
	diff -u chainlint.expected found
'
test_expect_success 'the tests here all pass chainlint' '
	python3 "$TOP/tests/chainlint.py"
'
test_done
