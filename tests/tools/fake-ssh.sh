#!/bin/sh
# tests/tools/fake-ssh.sh - ssh and scp for the fleet's tests: "hosts" are
# directories of this machine, $FAKE_FLEET/hosts/DEST, and nothing is ever
# contacted.  Linked as ssh and scp into a directory put first on PATH.
#
# It checks the command line vmtax gives (every -o the fleet needs, the
# control directory 0700, "--" before the destination) and refuses anything
# else with status 254 and "fake-ssh: bad argv".  Each call is logged to
# $FAKE_FLEET/argv.log.  A host's directory may hold:
#   hostkey-unknown  ssh refuses it: "Host key verification failed.", 255
#   drop             seconds after which the connection of its run
#                    ("vmtax run config.ini ...") "drops": it is killed, "Connection to DEST closed by remote
#                    host.", 255
#   dropat           an ERE: the connection of its run drops (as drop) once
#                    the run's run.log there has a line matching it
#   bin/             first on PATH there (a fake vmtax, a fake id)
# A command runs as "sh -c CMD" in the host's directory, HOME set to it.
me=$(basename "$0")
log=$FAKE_FLEET/argv.log
echo "$me $*" >>"$log"
bad() { echo "fake-ssh: bad argv ($1): $me $ARGS" >&2; exit 254; }
ARGS="$*"

seen=""
while [ $# -gt 0 ]; do
	case "$1" in
	-o) seen="$seen|$2"; shift 2 ;;
	-T|-r|-q) shift ;;
	-O) op=$2; shift 2 ;;
	--) shift; break ;;
	*) bad "no -- before the destination" ;;
	esac
done
for want in ControlMaster=auto BatchMode=yes StrictHostKeyChecking=yes \
	ControlPersist=60 ConnectTimeout=; do
	case "$seen" in *"|$want"*) ;; *) bad "no -o $want" ;; esac
done
cp=$(echo "$seen" | tr '|' '\n' | sed -n 's/^ControlPath=//p')
case "$cp" in */%C) ;; *) bad "ControlPath '$cp' is not DIR/%C" ;; esac
[ "$(stat -c %a "${cp%/%C}")" = 700 ] || bad "control directory not 0700"

host_of() {
	h=${1%%:*}
	d=$FAKE_FLEET/hosts/$h
	if [ ! -d "$d" ]; then
		echo "ssh: Could not resolve hostname $h: Name or service not known" >&2
		exit 255
	fi
	if [ -e "$d/hostkey-unknown" ]; then
		echo "No ED25519 host key is known for $h and you have requested strict checking." >&2
		echo "Host key verification failed." >&2
		exit 255
	fi
}

if [ "$me" = scp ]; then
	[ $# = 2 ] || bad "scp wants SRC DST"
	host_of "$1"
	src=${1#*:}
	case "$src" in /*|*..*) bad "remote path '$src'" ;; esac
	cp -r "$d/$src" "$2"
	exit $?
fi

[ $# -ge 1 ] || bad "no destination"
host_of "$1"
[ "$op" = exit ] && exit 0
[ $# = 2 ] || bad "want DEST CMD"
cd "$d" || exit 255
case "$2" in *" run config.ini "*) run=1 ;; *) run= ;; esac
if { [ -e drop ] || [ -e dropat ]; } && [ -n "$run" ]; then
	HOME=$d PATH=$d/bin:$PATH setsid sh -c "$2" </dev/null &
	pid=$!
	if [ -e dropat ]; then
		rd=$(printf '%s' "$2" | sed -n "s/^cd '\([^']*\)'.*/\1/p")
		until grep -Eqs "$(cat dropat)" "$rd/run.log"; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	else
		sleep "$(cat drop)"
	fi
	# the external kill: dash's own takes no "--" (nor a group)
	env kill -KILL -- "-$pid" 2>/dev/null
	echo "Connection to $1 closed by remote host." >&2
	exit 255
fi
HOME=$d PATH=$d/bin:$PATH exec sh -c "$2"
