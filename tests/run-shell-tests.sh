#!/bin/sh
# Run every tests/tNNNN-*.sh; print a summary line; fail if any failed.
# T=t0010 limits the run to matching files.
cd "$(dirname "$0")" || exit 1
# Test bodies chain their lines with && (see chainlint.py): a break fails the suite.
echo "== chainlint"
python3 chainlint.py || { echo "shell-tests: chainlint found broken && chains"; exit 1; }
pass=0 fail=0 failed=""
for t in t[0-9][0-9][0-9][0-9]-*.sh; do
	case "$t" in *"${T:-}"*) ;; *) continue ;; esac
	echo "== $t"
	start=$(date +%s)
	if sh "$t"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		failed="$failed $t"
	fi
	echo "== $t: $(($(date +%s) - start))s"
done
[ -z "$failed" ] || echo "failed:$failed"
echo "shell-tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
