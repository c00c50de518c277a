#!/bin/sh
# vmtax report -o and compare -o: what is at the path decides how it is
# written (lib/output.h).  A new or regular file is replaced atomically; a
# character device and a FIFO are written to and stay what they were (-o
# /dev/null once made /dev/null a regular file); a socket is connected to; a
# directory, a symbolic link and a block device are refused, exit 2, each
# with its own reason, and left as they were.  Every node is made here, in
# this test's scratch directory, never on the host's /dev.
. "$(dirname "$0")/lib-test.sh"

test_need VMTAX
test_need ROOT "mknod of a device needs root"

demo="$TOP/tests/fixtures/results-demo.json"
demo_b="$TOP/tests/fixtures/results-demo-b.json"
cd "$TRASH" || exit 1

test_expect_success 'the report on stdout, for the comparisons below' '
	"$VMTAX" report "$demo" -f json >want.json &&
	test -s want.json
'

test_expect_success 'a new file: written whole' '
	"$VMTAX" report "$demo" -f json -o new.json &&
	test_cmp want.json new.json
'

test_expect_success 'a regular file: replaced whole' '
	echo old >reg.json &&
	"$VMTAX" report "$demo" -f json -o reg.json &&
	test_cmp want.json reg.json
'

test_expect_success 'a character device (a null device made here) stays a device' '
	mknod null c 1 3 &&
	chmod 666 null &&
	"$VMTAX" report "$demo" -f json -o null 2>err &&
	test -c null &&
	test ! -s err &&
	test "$(stat -c %t:%T null)" = 1:3 &&
	! ls null.tmp.* 2>/dev/null
'

test_expect_success 'compare -o a character device: stays a device' '
	test_expect_code 1 "$VMTAX" compare "$demo" "$demo_b" -o null &&
	test -c null
'

test_expect_success 'a FIFO: its reader gets the report, it stays a FIFO' '
	mkfifo fifo &&
	{ cat fifo >got.json & } &&
	"$VMTAX" report "$demo" -f json -o fifo &&
	wait &&
	test -p fifo &&
	test_cmp want.json got.json
'

test_expect_success 'a socket: its listener gets the report, it stays a socket' '
	python3 -c "
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(\"sock\"); s.listen(1)
sys.stdout.write(\"ready\n\"); sys.stdout.flush()
c, _ = s.accept()
with open(\"sock.json\", \"wb\") as f:
    while True:
        b = c.recv(65536)
        if not b:
            break
        f.write(b)
" >ready &
	timeout 10 sh -c "until grep -q ready ready; do sleep 0.05; done" &&
	"$VMTAX" report "$demo" -f json -o sock &&
	wait &&
	test -S sock &&
	test_cmp want.json sock.json
'

test_expect_success '-o - is stdout' '
	"$VMTAX" report "$demo" -f json -o - >dash.json &&
	test_cmp want.json dash.json
'

test_expect_success '-o /dev/stdout is stdout, written to, not replaced' '
	"$VMTAX" report "$demo" -f json -o /dev/stdout >devout.json &&
	test_cmp want.json devout.json &&
	test -c /dev/null
'

# refused NAME SETUP PATH REASON CHECK: exit 2, REASON on stderr, nothing on
# stdout, CHECK (the node unchanged) still true.
refused() {
	test_expect_success "$1: refused (exit 2), left as it was" "
		$2 &&
		test_expect_code 2 \"\$VMTAX\" report \"\$demo\" -f json -o $3 >out 2>err &&
		cat err &&
		grep -q \"$4\" err &&
		test ! -s out &&
		$5 &&
		! ls $3.tmp.* 2>/dev/null
	"
}
refused 'a directory' 'mkdir dir' dir "output 'dir' is a directory" \
	'test -d dir && test -z "$(ls dir)"'
refused 'a symbolic link to a file' 'echo secret >target && ln -s target link' link \
	"output 'link' is a symbolic link" \
	'test -L link && test "$(cat target)" = secret'
refused 'a symbolic link to a device' 'mknod null2 c 1 3 && ln -s null2 devlink' devlink \
	"output 'devlink' is a symbolic link" 'test -L devlink && test -c null2'
refused 'a block device' 'mknod blk b 7 200' blk "output 'blk' is a block device" \
	'test -b blk'

test_expect_success 'compare -o a directory: refused before any work (exit 2)' '
	mkdir cdir &&
	test_expect_code 2 "$VMTAX" compare "$demo" "$demo_b" -o cdir 2>err &&
	grep -q "is a directory" err
'

test_expect_success 'image build -o a character device: refused before building (exit 2)' '
	mknod inull c 1 3 &&
	test_expect_code 2 "$VMTAX" image build --kind tiny -o inull 2>err &&
	cat err &&
	grep -q "output '"'"'inull'"'"' is a character device, not a symbolic link" err &&
	test -c inull
'

test_done
