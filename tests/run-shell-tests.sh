#!/bin/sh
# Run every tests/tNNNN-*.sh; print a summary line; fail if any failed.
# A file that skips entirely (skip_all: "1..0 # SKIP name: reason") is
# counted as skipped, with its reason, not as passed.
# T=t0010 limits the run to matching files.
cd "$(dirname "$0")" || exit 1
# Test bodies chain their lines with && (see chainlint.py): a break fails the suite.
echo "== chainlint"
python3 chainlint.py || { echo "shell-tests: chainlint found broken && chains"; exit 1; }
pass=0 fail=0 skip=0 failed="" skipped=""
out=$(mktemp /tmp/vmtax-shell-tests.XXXXXX) || exit 1
trap 'rm -f "$out" "$out.rc"' EXIT
for t in t[0-9][0-9][0-9][0-9]-*.sh; do
	case "$t" in *"${T:-}"*) ;; *) continue ;; esac
	echo "== $t"
	start=$(date +%s)
	{ sh "$t"; echo $? >"$out.rc"; } | tee "$out"
	rc=$(cat "$out.rc")
	why=$(sed -n 's/^1\.\.0 # SKIP [^:]*: //p' "$out" | head -n 1)
	if [ "$rc" != 0 ]; then
		fail=$((fail + 1))
		failed="$failed $t"
	elif [ -n "$why" ]; then
		skip=$((skip + 1))
		skipped="$skipped
  $t: $why"
	else
		pass=$((pass + 1))
	fi
	echo "== $t: $(($(date +%s) - start))s"
done
[ -z "$skipped" ] || echo "skipped:$skipped"
[ -z "$failed" ] || echo "failed:$failed"
echo "shell-tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
