#!/bin/sh
# The source folders are layers (docs/development.md "Layers"):
# tests/include-folders.py --check, which make check runs, passes on this
# tree and fails on a copy with an include against the order (naming the
# file, the line and the two layers), a folder of no layer, or an axis name
# spelled outside the vocabulary (vocab/vocab.h); a comment naming an axis
# is not a literal.
. "$(dirname "$0")/lib-test.sh"
test_need PYTHON3

LAYERS=$TOP/tests/include-folders.py

# tree: a copy of the source folders in $TRASH/tree (no .git: the script
# walks it).
tree() {
	rm -rf "$TRASH/tree" && mkdir "$TRASH/tree" &&
	(cd "$TOP" && cp -r lib host vocab reports guest-image orchestrator "$TRASH/tree/")
}

test_expect_success 'this tree: no include against the order, no loop, no axis literal' '
	python3 "$LAYERS" --check >out &&
	grep -x "includes against the order: 0" out &&
	grep -x "loops between folders: 0" out &&
	grep "^axis-name literals outside vocab/vocab.h (.*host-thp.*): 0$" out &&
	! grep "AGAINST THE ORDER" out
'

test_expect_success 'it prints every folder with its layer, files and lines' '
	python3 "$LAYERS" >out &&
	grep "^3  *vocab  *2  *[0-9][0-9]*$" out &&
	grep "^4  *reports  *[0-9]" out &&
	grep "^10  *orchestrator/cli  *[0-9]" out &&
	grep "^ *4 reports  *->  *3 vocab  *[0-9]" out
'

test_expect_success 'a copy of this tree passes too (the walk finds what git lists)' '
	tree &&
	python3 "$LAYERS" --root "$TRASH/tree" --check >copy &&
	python3 "$LAYERS" >real &&
	test_cmp real copy
'

test_expect_success 'reports including an engine header fails, naming the file, line and layers' '
	tree &&
	f=$TRASH/tree/reports/thp-contrast.c &&
	n=$(grep -n "^#include \"model.h\"" "$f" | cut -d: -f1) &&
	sed -i "${n}a #include \"run-engine.h\"" "$f" &&
	test_expect_code 1 python3 "$LAYERS" --root "$TRASH/tree" --check >out &&
	grep -x "  reports/thp-contrast.c:$((n + 1)): includes run-engine.h of layer 7 (orchestrator/engine) from layer 4 (reports): against the order" out &&
	grep -x "includes against the order: 1" out &&
	grep "^ *4 reports  *->  *7 orchestrator/engine  *1  AGAINST THE ORDER$" out &&
	python3 "$LAYERS" --root "$TRASH/tree" >out2
'

test_expect_success 'config including a fleet header (one layer, two folders) fails' '
	tree &&
	echo "#include \"fleet.h\"" >>"$TRASH/tree/orchestrator/config/matrix.c" &&
	test_expect_code 1 python3 "$LAYERS" --root "$TRASH/tree" --check >out &&
	grep "^  orchestrator/config/matrix.c:[0-9]*: includes fleet.h of layer 6 (orchestrator/fleet) from layer 6 (orchestrator/config): against the order$" out
'

test_expect_success 'a folder of no layer fails, naming it' '
	tree &&
	mkdir "$TRASH/tree/orchestrator/stray" &&
	echo "int stray(void);" >"$TRASH/tree/orchestrator/stray/stray.h" &&
	test_expect_code 1 python3 "$LAYERS" --root "$TRASH/tree" --check >out &&
	grep "^  orchestrator/stray: a folder of no layer" out
'

test_expect_success 'an axis name spelled outside the vocabulary fails, naming the file and line' '
	tree &&
	printf "%s\n" "/* \"host-thp\" in a comment is not counted */" \
		"static const char *x = \"guest-thp\";" >>"$TRASH/tree/reports/matrix.c" &&
	n=$(wc -l <"$TRASH/tree/reports/matrix.c") &&
	test_expect_code 1 python3 "$LAYERS" --root "$TRASH/tree" --check >out &&
	grep "^axis-name literals outside vocab/vocab.h (.*): 1$" out &&
	grep -x "  reports/matrix.c:$n: \"guest-thp\"" out
'

test_done
