#!/bin/sh
# README.md's lists cannot go stale: every man page (man/*.in, and the pages
# man/*.c generates, by their .TH line) is named under "## Documentation",
# every file in docs/ is a "- [docs/X](docs/X)" item there and every such
# item exists; every configs/*.ini is named under "## Configs" and every one
# named exists; every relative link resolves; the README is under 150
# lines. Each check is shown to fail on a copy of the README broken for it,
# naming what is wrong.
. "$(dirname "$0")/lib-test.sh"

# section FILE HEADING: the lines of FILE under "## HEADING", up to the next
# "## " heading.
section() {
	awk -v h="## $2" '/^## / { on = ($0 == h); next } on' "$1"
}

# readme_lists FILE: check FILE as the README of the tree at $TOP; print one
# line per fault, and fail if there is any.
readme_lists() {
	rl_out=$TRASH/readme-lists.$$
	: >"$rl_out.faults"
	# Man pages: a source man/NAME.S.in is NAME(S); a generator man/*.c
	# prints a page whose .TH line names it (".TH VMTAX\\-CONFIG 5").
	{
		for f in "$TOP"/man/*.in; do
			b=$(basename "$f" .in)
			echo "${b%.*}(${b##*.})"
		done
		grep -ho '\.TH [-A-Z0-9\\]* [0-9]' "$TOP"/man/*.c | tr -d '\\' |
			awk '{ print tolower($2) "(" $3 ")" }'
	} | sort -u >"$rl_out.man-have"
	section "$1" Documentation | grep -o 'vmtax[a-z-]*([0-9])' |
		sort -u >"$rl_out.man-listed"
	comm -23 "$rl_out.man-have" "$rl_out.man-listed" |
		sed "s|.*|$1: man page & is not listed under '## Documentation'|" >>"$rl_out.faults"
	comm -13 "$rl_out.man-have" "$rl_out.man-listed" |
		sed "s|.*|$1: man page & is listed under '## Documentation' but there is no such page in man/|" >>"$rl_out.faults"
	# docs/: every file, as a list item linking to it.
	(cd "$TOP" && ls docs/* ) | sort -u >"$rl_out.docs-have"
	section "$1" Documentation | sed -n 's/^- \[[^]]*\](\(docs\/[^)#]*\)).*/\1/p' |
		sort -u >"$rl_out.docs-listed"
	comm -23 "$rl_out.docs-have" "$rl_out.docs-listed" |
		sed "s|.*|$1: & is not listed under '## Documentation'|" >>"$rl_out.faults"
	comm -13 "$rl_out.docs-have" "$rl_out.docs-listed" |
		sed "s|.*|$1: & is listed under '## Documentation' but does not exist|" >>"$rl_out.faults"
	# configs/*.ini, named under "## Configs".
	(cd "$TOP" && ls configs/*.ini) | sort -u >"$rl_out.cfg-have"
	section "$1" Configs | grep -o 'configs/[A-Za-z0-9_.-]*\.ini' |
		sort -u >"$rl_out.cfg-listed"
	comm -23 "$rl_out.cfg-have" "$rl_out.cfg-listed" |
		sed "s|.*|$1: & is not listed under '## Configs'|" >>"$rl_out.faults"
	comm -13 "$rl_out.cfg-have" "$rl_out.cfg-listed" |
		sed "s|.*|$1: & is listed under '## Configs' but does not exist|" >>"$rl_out.faults"
	# Relative links, anywhere: [text](path) or [text](path#anchor).
	grep -o '](\([^)]*\))' "$1" | sed 's/^](//; s/)$//; s/#.*//' |
		grep -v -e '^[a-z]*:' -e '^$' | sort -u >"$rl_out.links"
	while read -r l; do
		[ -e "$TOP/$l" ] || echo "$1: link '$l' does not resolve"
	done <"$rl_out.links" >>"$rl_out.faults"
	# The length.
	n=$(wc -l <"$1")
	[ "$n" -lt 150 ] || echo "$1: $n lines, not under 150" >>"$rl_out.faults"
	cat "$rl_out.faults"
	rl_n=$(wc -l <"$rl_out.faults")
	rm -f "$rl_out".*
	[ "$rl_n" = 0 ]
}

# broken NAME SED-SCRIPT: a copy of the README, edited, in $TRASH/NAME.md.
broken() {
	sed "$2" "$TOP/README.md" >"$TRASH/$1.md"
}

test_expect_success 'the README lists every man page, doc and config, and nothing else' '
	readme_lists "$TOP/README.md" >out || { cat out; false; } &&
	test_cmp /dev/null out
'

test_expect_success 'the lists the check reads are the ones in the tree (not empty)' '
	section "$TOP/README.md" Documentation >doc &&
	grep -q "vmtax-config(5)" doc && grep -q "vmtax-calibrate(1)" doc &&
	grep -q "^- \[docs/harness.md\](docs/harness.md)" doc &&
	section "$TOP/README.md" Configs | grep -q "configs/kbuild-ept-thp.ini"
'

test_expect_success 'a doc dropped from the list fails, naming it' '
	broken no-doc "/^- \[docs\/directmap.md\]/d" &&
	test_expect_code 1 readme_lists "$TRASH/no-doc.md" >out &&
	grep -x "$TRASH/no-doc.md: docs/directmap.md is not listed under '"'"'## Documentation'"'"'" out &&
	test "$(wc -l <out)" = 1
'

test_expect_success 'a doc mentioned only outside the list still fails' '
	broken elsewhere "/^- \[docs\/lab.md\]/d" &&
	grep -q "(docs/lab.md)" "$TRASH/elsewhere.md" &&
	test_expect_code 1 readme_lists "$TRASH/elsewhere.md" >out &&
	grep -q "docs/lab.md is not listed" out
'

test_expect_success 'a listed doc that does not exist fails, naming it and its link' '
	broken ghost-doc "/^- \[docs\/axes.md\]/a\\
- [docs/ghost.md](docs/ghost.md) — not there" &&
	test_expect_code 1 readme_lists "$TRASH/ghost-doc.md" >out &&
	grep -x "$TRASH/ghost-doc.md: docs/ghost.md is listed under '"'"'## Documentation'"'"' but does not exist" out &&
	grep -x "$TRASH/ghost-doc.md: link '"'"'docs/ghost.md'"'"' does not resolve" out
'

test_expect_success 'a man page dropped from the list fails, naming it' '
	broken no-man "s/vmtax-lab(1), //" &&
	! grep -q "vmtax-lab(1)" "$TRASH/no-man.md" &&
	test_expect_code 1 readme_lists "$TRASH/no-man.md" >out &&
	grep -x "$TRASH/no-man.md: man page vmtax-lab(1) is not listed under '"'"'## Documentation'"'"'" out
'

test_expect_success 'the generated man page counts: vmtax-config(5) dropped fails' '
	broken no-config5 "s/vmtax-config(5), //" &&
	test_expect_code 1 readme_lists "$TRASH/no-config5.md" >out &&
	grep -q "man page vmtax-config(5) is not listed" out
'

test_expect_success 'a listed man page that does not exist fails' '
	broken ghost-man "s/vmtax-lab(1), /vmtax-lab(1), vmtax-ghost(1), /" &&
	test_expect_code 1 readme_lists "$TRASH/ghost-man.md" >out &&
	grep -q "man page vmtax-ghost(1) is listed under .* but there is no such page" out
'

test_expect_success 'a config dropped from the list, or one not there, fails' '
	broken no-cfg "s/; .configs\/calib-small.ini. — an A\/A run for .vmtax calibrate.//" &&
	test_expect_code 1 readme_lists "$TRASH/no-cfg.md" >out &&
	grep -q "configs/calib-small.ini is not listed under '"'"'## Configs'"'"'" out &&
	broken ghost-cfg "s/configs\/demo.ini/configs\/demo2.ini/" &&
	test_expect_code 1 readme_lists "$TRASH/ghost-cfg.md" >out &&
	grep -q "configs/demo2.ini is listed under '"'"'## Configs'"'"' but does not exist" out &&
	grep -q "configs/demo.ini is not listed" out
'

test_expect_success 'a broken relative link fails, with or without an anchor' '
	broken bad-link "s|(docs/reports.md)|(docs/report.md#statistics)|" &&
	test_expect_code 1 readme_lists "$TRASH/bad-link.md" >out &&
	grep -x "$TRASH/bad-link.md: link '"'"'docs/report.md'"'"' does not resolve" out
'

test_expect_success 'a README of 150 lines fails' '
	{ cat "$TOP/README.md" && yes "" | head -n 150; } | head -n 150 >"$TRASH/long.md" &&
	test "$(wc -l <"$TRASH/long.md")" = 150 &&
	test_expect_code 1 readme_lists "$TRASH/long.md" >out &&
	grep -x "$TRASH/long.md: 150 lines, not under 150" out
'

test_done
