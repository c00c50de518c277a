#!/bin/sh
# The agent's run request with 'events' ([run] events, docs/protocol.md),
# without a guest: the test build of the agent serves a socketpair
# (tests/agent-hosted.py) and counts through the same runner as bare
# metal.  The software events are counted, a hardware cache event is a
# count or null (this host has no PMU: null, as its dTLB-load-misses),
# never 0; a raw PMU event ("r003c", PERF_TYPE_RAW) is keyed as written,
# a count or null (null here), never 0; a request without events has the
# seven only; a bad 'events' is refused, each for its own reason.  Only commands run: no host state.
. "$(dirname "$0")/lib-test.sh"
test_need AGENT_TEST
AGENT=$BUILD/bin/vmtax-agent-test
test_need PYTHON3
test_need JQ

cat >"$TRASH/requests" <<\EOF
{"type":"run","cmd":"head -c 1000000 /dev/zero | wc -c >/dev/null","events":["major-faults","cpu-migrations","dTLB-store-misses"]}
{"type":"run","cmd":"true"}
{"type":"run","cmd":"true","events":["bogus"]}
{"type":"run","cmd":"true","events":"major-faults"}
{"type":"run","cmd":"true","events":[7]}
{"type":"run","cmd":"true","events":["r003c","major-faults"]}
{"type":"run","cmd":"true","events":["r00zz"]}
EOF

test_expect_success 'the agent answers every request and exits 0' '
	python3 "$TOP/tests/agent-hosted.py" "$AGENT" <requests >replies &&
	test "$(wc -l <replies)" = 8
'

test_expect_success 'events counted through the runner: software ones a number' '
	sed -n 2p replies | jq -e ".ok and (.result.counters | (.[\"major-faults\"] | type == \"number\") and (.[\"cpu-migrations\"] | type == \"number\") and .[\"task-clock\"] > 0)"
'

test_expect_success 'a hardware cache event: null exactly where the PMU lacks dTLB, never 0' '
	sed -n 2p replies | jq -e ".result.counters | (.[\"dTLB-store-misses\"] == null) == (.[\"dTLB-load-misses\"] == null) and (.[\"dTLB-store-misses\"] == null or .[\"dTLB-store-misses\"] > 0)"
'

test_expect_success 'without events: the seven, nothing else' '
	sed -n 3p replies | jq -e ".ok and (.result.counters | keys | length) == 7 and (.result.counters | has(\"major-faults\") | not)"
'

test_expect_success 'a raw PMU event: keyed as written, null where the PMU lacks it, never 0' '
	sed -n 7p replies | jq -e ".ok and (.result.counters | has(\"r003c\") and (.[\"r003c\"] == null or .[\"r003c\"] > 0) and (if .cycles == null then .[\"r003c\"] == null else true end) and (keys | length) == 9)"
'

while IFS='|' read -r line msg; do
	test_expect_success "refused: $msg" "
		sed -n ${line}p replies |
			jq -e --arg m \"\$msg\" '.ok == false and .error.code == \"bad-request\" and .error.message == \$m'
	"
done <<\EOF_BAD
4|'events': unknown perf event 'bogus'
5|'events' must be an array of strings
6|'events': unknown perf event '(not a string)'
8|'events': raw PMU event 'r00zz': 'z' is not a hex digit
EOF_BAD

test_done
