#!/bin/sh
# vmtax report on a results file written by someone else (docs/security.md,
# "Reports"): statuses and axis names that are not in their tables are load
# errors; free text (run, host, workload, metric, params, reasons) goes
# through each format's escaping, checked on the bytes; the HTML report in
# headless Chromium runs no script; a folded stack of a million frames is
# refused at parse time and the report renders.
#
# tests/fixtures/results-hostile.json is results-vcpus.json with every free
# text field holding a payload: <script>, <img onerror>, quotes, '&', '|',
# backquotes, ESC sequences (CSI, OSC), C1 CSI (U+009B), a newline, and
# reasons starting with = + - @ and a tab.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX

hostile="$TOP/tests/fixtures/results-hostile.json"
cd "$TRASH" || exit 1

# mutate OUT PYTHON: the hostile fixture as d, changed by PYTHON, into OUT.
mutate() {
	python3 - "$hostile" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cells"][2]  # guest/host-thp=always/guest-thp=always/vcpus=1
X = "<script>x</script>\u001b[2J"
def rename(old, new):
    for a in d["axes"]:
        if a["name"] == old:
            a["name"] = new
    for cell in d["cells"]:
        if old in cell.get("axes", {}):
            cell["axes"][new] = cell["axes"].pop(old)
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
}

# expect_bad NAME FILE PATTERN: exit 2, PATTERN on stderr, nothing on
# stdout, and no control character but the newline on stderr.
expect_bad() {
	test_expect_success "$1: refused at load with its own message" "
		test_expect_code 2 \"\$VMTAX\" report -f html \"$2\" >stdout 2>stderr &&
		test ! -s stdout &&
		cat stderr &&
		grep -q \"$3\" stderr &&
		! LC_ALL=C grep -q '[[:cntrl:]]' stderr
	"
}

test_expect_success 'the bad files' '
	mutate status.json "c[\"status\"] = X" &&
	mutate sstatus.json "c[\"samples\"][0][\"status\"] = \"=cmd\"" &&
	mutate stop.json "c[\"stop_reason\"] = \"<b>done</b>\"" &&
	mutate axhost.json "rename(\"vcpus\", \"host.x\\\"><script>x</script>\")" &&
	mutate axguest.json "rename(\"vcpus\", \"guest.<img src=x>\")" &&
	mutate axparam.json "d[\"workload\"][\"params\"][\"<b>\"] = \"1\"; rename(\"vcpus\", \"<b>\")" &&
	mutate axesc.json "rename(\"vcpus\", \"host.sysctl.vm.a\\u001b[2J\")"
'
expect_bad 'a cell status not in the table' status.json \
	"'status.json': cell 'guest/host-thp=always/guest-thp=always/vcpus=1' has an unknown status '<script>x</script>?\[2J' (ok, failed, skipped, pending)"
expect_bad 'a sample status not in the table' sstatus.json \
	"cell 'guest/host-thp=always/guest-thp=always/vcpus=1': sample 0 has an unknown status '=cmd' (ok, failed, timeout, killed)"
expect_bad 'a stop reason not in the table' stop.json \
	"cell 'guest/host-thp=always/guest-thp=always/vcpus=1' has an unknown stop_reason '<b>done</b>'"
expect_bad 'a host.* axis that is no host knob' axhost.json \
	"unknown axis 'host.x.><script>x</script>'"
expect_bad 'a guest.* axis that is no guest knob' axguest.json \
	"unknown axis 'guest.<img src=x>'"
expect_bad 'a parameter axis that is no parameter name' axparam.json \
	"unknown axis '<b>'"
expect_bad 'an escape sequence in an axis name is not printed' axesc.json \
	"unknown axis 'host.sysctl.vm.a?\[2J'"

test_expect_success 'the hostile file renders in all five formats' '
	for f in text md csv json html; do
		test_expect_code 1 "$VMTAX" report -f $f "$hostile" >h.$f 2>h.$f.err || exit 1
	done &&
	grep -q "data-pwned" h.text
'

test_expect_success 'text: no control character but the newline' '
	! LC_ALL=C grep -q "[[:cntrl:]]" h.text &&
	python3 -c "import sys; t = open(sys.argv[1], \"rb\").read(); sys.exit(b\"\\xc2\\x9b\" in t)" h.text &&
	grep -q "red\\\\x1b\\]0;title\\\\x07 \\\\x9b2J x\\\\x0ay" h.text &&
	grep -q "^started 2026-12-02T11:02:00Z\\\\x1b\\[1A, finished" h.text
'

test_expect_success 'md: no tag, no raw |, no code span from the data' '
	python3 - h.md <<-\PY
	import re, sys
	md = open(sys.argv[1], "rb").read()
	raw = re.findall(rb"(?<!\\)<(?:script|img|svg|b>|u>|/script)", md)
	assert not raw, raw
	assert re.search(rb"\\<script>document.body.setAttribute\(.data-pwned.,.run.\)\\</script>", md)
	assert rb" \& \| \`b\` " in md
	assert not any(b < 0x20 and b != 0x0a for b in md), "control byte"
	PY
'

test_expect_success 'csv: no live formula, the payload kept as text' '
	python3 - h.csv <<-\PY
	import csv, re, sys
	rows = list(csv.reader(open(sys.argv[1], newline="")))
	live = []
	for r in rows:
	    for f in r:
	        if f[:1] and f[0] in "=+-@\t\r":
	            try:
	                float(f)
	            except ValueError:
	                live.append(f)
	assert not live, live
	fields = [f for r in rows for f in r]
	for p in ("'\''=cmd|'\'' /C calc'\''!A0 ", "'\''+1+1 ", "'\''-2+3 ", "'\''@SUM(A1) "):
	    assert any(f.startswith(p) for f in fields), p
	# numbers we format stay numbers: none is prefixed, every slowdown
	# of a measured cell parses as one
	assert not [f for f in fields if re.match(r"\x27[-+]?[0-9.]+$", f)]
	head = rows[0]
	for r in rows[1:]:
	    if r[0] == "cell" and r[head.index("slowdown")]:
	        float(r[head.index("slowdown")])
	PY
'

test_expect_success 'json: the strings round-trip exactly, escaped by jansson' '
	python3 - "$hostile" h.json <<-\PY
	import json, sys
	src = json.load(open(sys.argv[1]))
	raw = open(sys.argv[2], "rb").read()
	assert not any(b < 0x20 and b != 0x0a for b in raw), "raw control byte"
	out = json.loads(raw)
	text = json.dumps(out)
	for s in (src["run"]["name"], src["workload"]["metric"],
	          src["cells"][-1]["reason"]):
	    assert json.dumps(s) in text, s[:40]
	PY
'

test_expect_success 'html: every payload escaped, in text and attributes' '
	! grep -q "<script\|<img\|<svg onload\|onerror=\"" h.html &&
	grep -q "&lt;script&gt;document.body.setAttribute(&#39;data-pwned&#39;,&#39;metric&#39;)&lt;/script&gt;" h.html &&
	grep -q "&quot;q&quot;" h.html
'

# chrome FILE: the DOM headless Chromium builds from file://FILE, after
# its scripts (if any) ran.
chrome() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$(mktemp -d "$TRASH/profile.XXXXXX")" \
		--virtual-time-budget=2000 --dump-dom "file://$TRASH/$1" \
		2>>chrome.log
}

test_expect_success CHROMIUM 'chromium: the check sees a script that runs' '
	printf "<!DOCTYPE html><body><img src=x onerror=\"document.body.setAttribute(%s,%s)\"><script>document.body.setAttribute(%s,%s)</script></body>" \
		"'\''data-pwned'\''" "'\''img'\''" "'\''data-hook'\''" "'\''ran'\''" >control.html &&
	chrome control.html >control.dom &&
	grep -q "<body data-hook=\"ran\" data-pwned=\"img\">" control.dom
'
test_expect_success CHROMIUM 'chromium: the hostile report runs no script' '
	cp h.html hostile.html &&
	chrome hostile.html >hostile.dom &&
	grep -q "<svg class=\"scaling\"" hostile.dom &&
	! grep -q "<body[^>]*data-pwned" hostile.dom &&
	! grep -q "<script" hostile.dom
'

# A profiled run whose folded file is one stack of N frames.
deep() {
	mkdir -p "$1/profiles" &&
	cp "$TOP/tests/fixtures/results-profile.json" "$1/results.json" &&
	cp "$TOP"/tests/fixtures/profiles/*.folded "$1/profiles/" &&
	python3 -c "import sys; sys.stdout.write(\";\".join([\"f\"] * int(sys.argv[1])) + \" 7\\n\")" "$2" \
		>"$1/profiles/guest_host-thp_always_guest-thp_always.folded"
}

test_expect_success 'a stack of 1025 frames is refused with the cap named' '
	deep d1025 1025 &&
	"$VMTAX" report d1025 >d1025.txt &&
	grep -q "no profile: .profiles/guest_host-thp_always_guest-thp_always.folded.: line 1: a stack deeper than 1024 frames (PROFILE_STACK_FRAMES_MAX)" d1025.txt
'

test_expect_success 'a stack of 1024 frames is drawn' '
	deep d1024 1024 &&
	"$VMTAX" report -f html d1024 >d1024.html &&
	test "$(grep -c "<svg class=\"flame\"" d1024.html)" = 6
'

for n in 260000 1000000; do
	test_expect_success "a stack of $n frames: every format renders, the profile refused" "
		deep d$n $n &&
		for f in text md csv json html; do
			\"\$VMTAX\" report -f \$f d$n >d$n.\$f 2>d$n.err || exit 1
		done &&
		test \"\$(grep -c \"<svg class=\\\"flame\\\"\" d$n.html)\" = 5 &&
		grep -q \"a stack deeper than 1024 frames\" d$n.text
	"
done

test_expect_success 'a profile of 300,000 distinct stacks renders (no quadratic flame graph)' '
	deep wide 1 &&
	python3 -c "import sys; sys.stdout.write(\"\".join(\"f%07d;g 1\\n\" % i for i in range(300000)))" \
		>wide/profiles/guest_host-thp_always_guest-thp_always.folded &&
	timeout 60 "$VMTAX" report -f html wide >wide.html &&
	test "$(grep -c "<svg class=\"flame\"" wide.html)" = 6
'

test_done
