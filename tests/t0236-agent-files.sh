#!/bin/sh
# The agent's read-file and write-file (docs/protocol.md), which 'vmtax lab
# run' uses to put a config into the lab and bring its run back: bytes in
# base64, chunks, append, the file's size and eof, and each refusal with its
# own reason.  Served on this host by the test build of the agent
# (tests/agent-hosted.py), on files in the scratch directory.
. "$(dirname "$0")/lib-test.sh"
test_need AGENT_TEST
AGENT=$BUILD/bin/vmtax-agent-test
test_need PYTHON3

F=$TRASH/f.txt
head -c 300000 "$AGENT" >"$TRASH/big"
b64() { printf "%s" "$1" | base64 -w0; }
HELLO_NL=$(printf 'hello\n' | base64 -w0)
WORLD_NL=$(printf 'world\n' | base64 -w0)
HELLO=$(b64 hello)
cat >"$TRASH/requests" <<EOF
{"type":"write-file","path":"$F","data":"$HELLO_NL","mode":384}
{"type":"write-file","path":"$F","data":"$WORLD_NL","append":true}
{"type":"read-file","path":"$F","offset":0,"length":5}
{"type":"read-file","path":"$F","offset":6}
{"type":"read-file","path":"$TRASH/nosuch"}
{"type":"read-file","path":"relative/path"}
{"type":"read-file","path":"$TRASH"}
{"type":"read-file","path":"$F","length":262145}
{"type":"write-file","path":"$TRASH/g","data":"not base64!"}
{"type":"read-file","path":"$TRASH/big","offset":0}
{"type":"read-file","path":"$TRASH/big","offset":262144}
{"type":"write-file","path":"$TRASH/nodir/g","data":""}
EOF

# ans N JQ: answer N (0 = ready) satisfies JQ
ans() {
	l=$(sed -n "$(($1 + 1))p" "$TRASH/answers")
	test -n "$l" || { echo "no answer $1"; return 1; }
	printf "%s\n" "$l" | jq -e "$2" >/dev/null || { echo "answer $1: $l"; return 1; }
}

test_expect_success 'the agent answers every request' '
	python3 "$TOP/tests/agent-hosted.py" "$AGENT" <requests >answers &&
	test $(wc -l <answers) = 13
'

test_expect_success 'write-file creates the file with its mode; append adds' '
	ans 1 ".ok and .result == {\"size\": 6}" &&
	ans 2 ".ok and .result == {\"size\": 12}" &&
	printf "hello\nworld\n" >want && test_cmp want f.txt &&
	test "$(stat -c %a f.txt)" = 600
'

test_expect_success 'read-file: a chunk, its offset, the size, eof' '
	ans 3 ".ok and .result == {\"data\": \"$HELLO\", \"size\": 12, \"offset\": 0, \"eof\": false}" &&
	ans 4 ".ok and .result.data == \"$WORLD_NL\" and .result.eof == true"
'

test_expect_success 'read-file: a missing file, a relative path, a directory, a chunk too long' '
	ans 5 ".error == {\"code\": \"io-error\", \"message\": \"cannot open '"'"'$TRASH/nosuch'"'"': No such file or directory\"}" &&
	ans 6 ".error == {\"code\": \"bad-request\", \"message\": \"'"'"'path'"'"' must be an absolute path\"}" &&
	ans 7 ".error == {\"code\": \"io-error\", \"message\": \"'"'"'$TRASH'"'"' is not a regular file\"}" &&
	ans 8 ".error.code == \"bad-request\" and (.error.message | contains(\"in 0..262144\"))"
'

test_expect_success 'write-file: data that is not base64, a missing directory' '
	ans 9 ".error == {\"code\": \"bad-request\", \"message\": \"'"'"'data'"'"' must be base64 of at most 262144 bytes\"}" &&
	test ! -e g &&
	ans 12 ".error == {\"code\": \"io-error\", \"message\": \"cannot open '"'"'$TRASH/nodir/g'"'"': No such file or directory\"}"
'

test_expect_success 'read-file: a binary in two chunks is the same bytes' '
	sed -n 11p answers | jq -r .result.data | base64 -d >got &&
	sed -n 12p answers | jq -r .result.data | base64 -d >>got &&
	ans 10 ".result.eof == false and .result.size == 300000" &&
	ans 11 ".result.eof == true" &&
	cmp big got
'

test_done
