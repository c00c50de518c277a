#!/bin/sh
# host: exclusive
# The docs' count example (docs/adding-a-workload.md) runs under the same
# shell on both sides: the static busybox the tiny guest has, never the
# host's /bin/sh.  Prints both shells' loops/s on bare metal ("# ..."), and,
# with a tiny image, the count's guest/bare ratio under this host's
# accelerator (printed at the end).  No timing is asserted.
. "$(dirname "$0")/lib-test.sh"
test_need ROOT "needs root (vmtax run takes the host lock)"
test_need JQ
test_need BUSYBOX
test_need THP

thp=$(thp_get enabled)

bb=$(readlink -f /bin/busybox)
mkdir -p "$TRASH/wl"

test_expect_success 'the docs carry count.ini, and it parses' '
	sed -n "/^; configs\/workloads\/count.ini\$/,/^\`\`\`\$/p" \
		"$TOP/docs/adding-a-workload.md" | sed "\$d" >wl/count.ini &&
	grep -q "^run = sleep" wl/count.ini &&
	"$VMTAX" workloads wl >workloads.out &&
	grep -q "^count" workloads.out
'

test_expect_success 'dash and busybox sh count at different rates here' '
	run=$(sed -n "s/^run = //p" wl/count.ini) &&
	d=$(S=1 dash -c "$run" | sed -n "s/counted \([0-9]*\) loops.s/\1/p") &&
	b=$(S=1 "$bb" sh -c "$run" | sed -n "s/counted \([0-9]*\) loops.s/\1/p") &&
	test "$d" -gt 0 && test "$b" -gt 0 &&
	echo "# bare metal: dash (/bin/sh) $d loops/s, busybox sh $b loops/s" >>figures &&
	echo "# busybox/dash: $(echo "$b $d" | awk "{ printf \"%.2f\", \$1 / \$2 }")" >>figures
'

cat >"$TRASH/requests" <<'EOF2'
{"type":"run","cmd":"echo $0; readlink /proc/$$/exe","shell":"/bin/busybox","with_output":true}
{"type":"run","cmd":"true","shell":"bin/busybox"}
{"type":"run","cmd":"true","shell":"/nonexistent/sh"}
{"type":"run","cmd":"readlink /proc/$$/exe","with_output":true}
EOF2

test_expect_success AGENT_TEST,PYTHON3 'the agent runs a command under the shell asked, /bin/sh else' '
	python3 "$TOP/tests/agent-hosted.py" "$BUILD/bin/vmtax-agent-test" \
		<requests >answers &&
	sed -n 2p answers | jq -e --arg bb "$bb" \
		".ok and .result.output == \"sh\\n\" + \$bb + \"\\n\"" &&
	sed -n 3p answers | jq -e ".ok == false and .error.code == \"bad-request\" and
		.error.message == \"'"'"'shell'"'"' must be an absolute path\"" &&
	sed -n 4p answers | jq -e ".ok == false and .error.code == \"run-failed\" and
		(.error.message | endswith(\"with '"'"'/nonexistent/sh'"'"': No such file or directory\"))" &&
	sed -n 5p answers | jq -e --arg sh "$(readlink -f /bin/sh)" \
		".ok and .result.output == \$sh + \"\\n\""
'

# count, printing the shell that runs it and its directory first; and
# again with scratch = disk
sed 's|^run = |run = readlink /proc/$$/exe; pwd -P; |' "$TRASH/wl/count.ini" \
	>"$TRASH/wl/count-shell.ini"
sed 's|^scratch = tmpfs|scratch = disk|' "$TRASH/wl/count-shell.ini" \
	>"$TRASH/wl/count-disk.ini"

# write_run NAME WHERE [WORKLOAD]
write_run() {
	cat >"$TRASH/$1.ini" <<EOF2
[run]
name = t0115-$1
repeat = 2
warmup = 0
boot_timeout = 300
timeout = 120
[guest]
vcpus = 1
memory = 512M
[matrix]
where = $2
host_thp = $thp
guest_thp = always
[workload]
dir = $TRASH/wl
name = ${3:-count-shell}
EOF2
}

test_expect_success 'a bare-metal cell runs count under busybox sh' '
	write_run bare bare-metal &&
	"$VMTAX" run bare.ini --out bare >/dev/null 2>bare.err &&
	jq -e ".cells[0].status == \"ok\"" bare/results.json &&
	python3 "$TOP/tests/check-results.py" bare/results.json &&
	jq -e --arg bb /bin/busybox ".cells[0].observed.shell == \$bb" \
		bare/results.json &&
	head -n 1 bare/logs/*.sample-0.out >shell.out &&
	echo "$bb" >expect &&
	test_cmp expect shell.out
'

test_expect_success 'its scratch directory was tmpfs, under /dev/shm, and is gone' '
	jq -e ".workload.scratch == \"tmpfs\" and
		.cells[0].observed.scratch.kind == \"tmpfs\" and
		.cells[0].observed.scratch.fs == \"tmpfs\"" bare/results.json &&
	dir=$(jq -r ".cells[0].observed.scratch.path" bare/results.json) &&
	case $dir in /dev/shm/vmtax-work-*) ;; *) false ;; esac &&
	sed -n 2p bare/logs/*.sample-0.out >pwd.out &&
	echo "$dir" >expect &&
	test_cmp expect pwd.out &&
	test ! -e "$dir"
'

test_expect_success 'scratch = disk: a directory in the run directory, not on tmpfs' '
	write_run disk bare-metal count-disk &&
	"$VMTAX" run disk.ini --out disk >/dev/null 2>disk.err &&
	jq -e ".workload.scratch == \"disk\" and
		.cells[0].observed.scratch.kind == \"disk\"" disk/results.json &&
	dir=$(jq -r ".cells[0].observed.scratch.path" disk/results.json) &&
	case $dir in "$(cd disk && pwd -P)"/vmtax-work-*) ;; *) false ;; esac &&
	test ! -e "$dir" &&
	fs=$(jq -r ".cells[0].observed.scratch.fs" disk/results.json) &&
	echo "# scratch = disk on bare metal: $fs" >>figures &&
	if test "$fs" = tmpfs; then
		jq -e ".cells[0].status == \"failed\" and
			(.cells[0].reason | test(\"scratch = disk, but .* is on tmpfs\"))" \
			disk/results.json
	else
		jq -e ".cells[0].status == \"ok\"" disk/results.json &&
		sed -n 2p disk/logs/*.sample-0.out >pwd.out &&
		echo "$dir" >expect &&
		test_cmp expect pwd.out
	fi
'

test_expect_success LIBVIRT,TINY 'a guest cell too, and the guest/bare ratio' '
	write_run both "bare-metal, guest" &&
	"$VMTAX" run both.ini --out both >/dev/null 2>both.err &&
	jq -e "[.cells[] | .status == \"ok\" and .observed.shell == \"/bin/busybox\" and
		.observed.scratch.kind == \"tmpfs\"] | all" both/results.json &&
	jq -e ".cells[] | select(.env.where == \"guest\") |
		.observed.scratch.path == \"/tmp\"" both/results.json &&
	for f in both/logs/*.sample-0.out; do head -n 1 "$f" || return 1; done >shells.out &&
	printf "%s\n" /bin/busybox "$bb" | sort >expect &&
	sort shells.out >got &&
	test_cmp expect got &&
	jq -r ".cells[] | \"\(.env.where) \([.samples[].metric] | add / length)\"" \
		both/results.json >means &&
	g=$(sed -n "s/^guest //p" means) && m=$(sed -n "s/^bare-metal //p" means) &&
	echo "# count, both under busybox sh: bare metal $m, guest $g loops/s ($(jq -r ".run.host.accel // empty" both/results.json))" >>figures &&
	echo "# guest/bare: $(echo "$g $m" | awk "{ printf \"%.3f\", \$1 / \$2 }")" >>figures
'

# the figures measured above (no test asserts them)
cat "$TRASH/figures" 2>/dev/null || :
test_done
