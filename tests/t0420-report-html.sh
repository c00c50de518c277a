#!/bin/sh
# The HTML report in headless Chromium: the SVG heatmap renders with one
# <rect class="cell"> per cell, the page fetches nothing from the network,
# and a screenshot is kept in $BUILD/screenshots/ for a human to look at.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX
test_need CHROMIUM
test_need PYTHON3 "python3 is needed to read the net log"

SHOTS="$BUILD/screenshots"
mkdir -p "$SHOTS"
export SHOTS

# chrome FILE ARGS...: headless Chromium on file://FILE with a net log.
chrome() {
	f=$1
	shift
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$TRASH/profile.XXXXXX")" \
		--window-size=1100,1500 "$@" "file://$TRASH/$f" 2>>chrome.log
}

# Requests the page made: the browser's own background requests are
# initiated by "not an origin"; a file:// page's are initiated by "null"
# or file://.
page_requests() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {v: k for k, v in d["constants"]["logEventTypes"].items()}
n = 0
for e in d["events"]:
    p = e.get("params") or {}
    if names.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p \
       and p.get("initiator") != "not an origin":
        print("page request:", p["url"])
        n += 1
sys.exit(1 if n else 0)
PY
}

for fixture in demo hw vcpus kernels kvm profile; do
	code=0 && [ "$fixture" = vcpus ] && code=1 # a failed cell: exit 1
	test_expect_success "$fixture: render the HTML (exit $code)" "
		test_expect_code $code \"\$VMTAX\" report -f html -o $fixture.html \
			\"\$TOP/tests/fixtures/results-$fixture.json\"
	"

	test_expect_success "$fixture: no external references in the HTML" "
		! grep -inE 'https?:|src=|href=|url\\(|@import|<script|<link' $fixture.html
	"

	test_expect_success "$fixture: the DOM has one heatmap rect per cell" "
		chrome $fixture.html --log-net-log=$fixture.net.json --dump-dom >$fixture.dom &&
		cells=\$(grep -c '\"env\":' \"\$TOP/tests/fixtures/results-$fixture.json\") &&
		rects=\$(grep -o '<rect class=\"cell\" data-id=\"[^\"]*\"' $fixture.dom | sort -u | wc -l) &&
		echo \"cells \$cells, rects \$rects\" &&
		test \"\$cells\" -gt 0 && test \"\$cells\" = \"\$rects\" &&
		test \"\$(grep -c '<rect class=\"cell\"' $fixture.dom)\" = \"\$cells\"
	"

	test_expect_success "$fixture: the bar chart has one bar per slowdown" "
		bars=\$(grep -c '<g class=\"bar\"' $fixture.dom) &&
		want=\$(grep -c '^cell,.*,[0-9-][0-9.e-]*,[0-9.e-]*,[0-9.e-]*,[0-9.e<-]*,[0-9.e-]*,\\(yes\\|no\\),' \
			\"\$TOP/tests/golden/$fixture.csv\") &&
		echo \"bars \$bars, cells with a slowdown \$want\" &&
		test \"\$bars\" -gt 0 && test \"\$bars\" = \"\$want\"
	"

	test_expect_success "$fixture: the page made no network request" "
		test -s $fixture.net.json &&
		page_requests $fixture.net.json
	"

	test_expect_success "$fixture: screenshot" "
		chrome $fixture.html --screenshot=\"\$SHOTS/report-$fixture.png\" &&
		python3 -c 'import struct,sys
b = open(sys.argv[1], \"rb\").read(24)
assert b[:8] == b\"\\x89PNG\\r\\n\\x1a\\n\", \"not a PNG\"
w, h = struct.unpack(\">II\", b[16:24])
print(\"screenshot\", sys.argv[1], w, \"x\", h)
assert w >= 800 and h >= 800' \"\$SHOTS/report-$fixture.png\"
	"
done

test_expect_success 'vcpus: the scaling chart renders, a point per measured guest cell' '
	grep -o "<svg class=\"scaling\"[^>]*>" vcpus.dom >svg &&
	test "$(wc -l <svg)" = 1 &&
	grep -q "data-axis=\"vcpus\"" svg &&
	test "$(grep -c "<polyline class=\"scaling\"" vcpus.dom)" = 4 &&
	measured=$(grep -c "^cell,guest/.*,ok," "$TOP/tests/golden/vcpus.csv") &&
	points=$(grep -o "<g class=\"point\" data-id=\"[^\"]*\"" vcpus.dom | sort -u | wc -l) &&
	echo "measured guest cells $measured, points $points" &&
	test "$measured" = 11 && test "$points" = "$measured"
'

test_expect_success 'profile: a flame graph per profiled cell, a differential one per non-baseline cell' '
	test "$(grep -o "<svg class=\"flame\"" profile.dom | wc -l)" = 6 &&
	test "$(grep -o "<svg class=\"flame-diff\"" profile.dom | wc -l)" = 5 &&
	test "$(grep -c "<h3 class=\"profile\"" profile.dom)" = 6 &&
	grep -q "<title>clear_page_rep (" profile.dom &&
	grep -q "contribution +" profile.dom
'

test_expect_success 'the net-log check catches a page that fetches' '
	printf "<!DOCTYPE html><img src=\"http://127.0.0.1:9/x.png\">" >bad.html &&
	chrome bad.html --log-net-log=bad.net.json --dump-dom >/dev/null &&
	! page_requests bad.net.json
'

test_done
