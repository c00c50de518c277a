#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-nice.sh - print the command prefix under which make check runs what
# does not need the host (the shell tests of the parallel lane, the side
# builds, the fuzzers' replay): "chrt --idle 0" (SCHED_IDLE) on a host
# that is otherwise idle, so they take only the CPU the guests' tests leave
# (a nice 10 task took a tenth of a CPU from a guest: t0105 ran 61 s alone,
# 94-104 s beside them); "nice -n 10" where chrt cannot set SCHED_IDLE, or
# where the host is busy with other work (at least one runnable task per
# CPU besides this script in each of 5 reads of /proc/stat 0.1 s apart):
# there SCHED_IDLE tasks are all but starved (beside two 'yes >/dev/null'
# on 2 CPUs, t0030 took 1458 s for what takes 20 s idle), and make check
# must still finish on a busy host.  One definition, for the Makefile and
# tests/run-shell-tests.sh.
n=$(nproc 2>/dev/null || echo 1)
busy=1
others=
for i in 1 2 3 4 5; do
	r=$(awk '$1 == "procs_running" { print $2 }' /proc/stat 2>/dev/null)
	[ -n "$r" ] || { busy=0; break; }
	others="$others $((r - 1))"
	[ $((r - 1)) -ge "$n" ] || busy=0
	[ $i = 5 ] || sleep 0.1
done
if [ $busy = 0 ] && chrt --idle 0 true 2>/dev/null; then
	echo "chrt --idle 0"
	exit 0
fi
[ $busy = 0 ] ||
	echo "check-nice: the host is busy (other runnable tasks:$others on $n CPUs): what does not need the host runs at nice 10, not SCHED_IDLE" >&2
echo "nice -n 10"
