#!/bin/sh
# The test library and the chain lint themselves: a failing line fails its
# test even when the next line passes; expected exit codes, skips and
# prerequisites still work; chainlint.py names each broken && chain at
# file:line and passes good bodies.
. "$(dirname "$0")/lib-test.sh"

# child NAME BODY: run a test file whose tests are BODY; its output in
# NAME.out, its exit status in NAME.rc; its scratch directory removed.
child() {
	{
		echo ". \"$TOP/tests/lib-test.sh\""
		printf '%s\n' "$2"
		echo test_done
	} >"$TRASH/$1.sh"
	(cd "$TRASH" && sh "$1.sh" >"$1.out" 2>&1; echo $? >"$1.rc")
	sed -n 's/^# scratch left in //p' "$TRASH/$1.out" | while read -r d; do
		case $d in /tmp/vmtax-*) rm -rf "$d" ;; esac
	done
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
test_skip 'skipped' 'for a reason'
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
	grep -x "ok 6 - skipped # SKIP for a reason" passing.out &&
	grep -x "not ok 7 - after a true && (exit 1)" passing.out &&
	grep -x "ok 8 - if" passing.out &&
	grep -x "not ok 9 - in an if condition (exit 125)" passing.out &&
	grep "set -e would be ignored" passing.out &&
	grep -x "# passing: 9 tests, 4 failed, 1 skipped" passing.out
'

child skipall 'test_prereq NOSUCH || skip_all "no such thing here"'
test_expect_success 'skip_all prints its reason and passes' '
	grep -x "1..0 # SKIP skipall: no such thing here" skipall.out &&
	test "$(cat skipall.rc)" = 0
'

test_expect_success 'the runner counts a file that skips entirely as skipped, with its reason' '
	mkdir suite &&
	cp "$TOP/tests/run-shell-tests.sh" "$TOP/tests/lib-test.sh" "$TOP/tests/chainlint.py" suite/ &&
	printf "%s\n" ". \"\$(dirname \"\$0\")/lib-test.sh\"" "skip_all \"no such thing here\"" >suite/t0001-skips.sh &&
	printf "%s\n" ". \"\$(dirname \"\$0\")/lib-test.sh\"" "test_expect_success one true" test_done >suite/t0002-passes.sh &&
	T= sh suite/run-shell-tests.sh >suite.out &&
	cat suite.out &&
	grep -x "  t0001-skips.sh: no such thing here" suite.out &&
	grep -x "shell-tests: 1 passed, 0 failed, 1 skipped" suite.out
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
	T=host VMTAX_HOST_LOCK_HELD= timeout 60 flock -o "$VMTAX_HOST_LOCK_FILE" \
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
