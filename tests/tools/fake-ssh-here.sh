#!/bin/sh
# tests/tools/fake-ssh-here.sh - ssh and scp for the remote-libvirt tests
# (t0620): the one "remote" host, $FAKE_SSH_HOST (fakebox), is this
# machine, so qemu+ssh://root@fakebox/system reaches this machine's own
# libvirtd through libvirt's real ssh transport.  Linked as ssh and scp
# into a directory put first on PATH.
#
# Both vmtax's calls (fleet-ssh.c's -o options, "--" before the
# destination) and libvirt's ("-l USER -T -o BatchMode=yes -e none --
# HOST sh -c '...virt-ssh-helper...'") are taken; any other option, a
# missing "--", another host, or libvirt's call without BatchMode=yes
# (vmtax asks for no_tty=1) is refused, status 254, "fake-ssh: bad argv".
# Every call is logged to $FAKE_SSH_LOG, else to ssh.log beside the
# directory of the link (libvirt passes ssh only PATH, HOME and a few more).  A command runs as "sh -c CMD"
# (the words after the destination joined by spaces, as sshd does).
# FAKE_SSH_PROBE, when set, is a file printed in place of running vmtax's
# probe of the host (guest-remote.c's "echo thp=..."): a remote host unlike
# this machine (another CPU vendor, /dev/kvm).
me=$(basename "$0")
echo "$me $*" >>"${FAKE_SSH_LOG:-$(dirname "$0")/../ssh.log}"
ARGS="$*"
bad() { echo "fake-ssh: bad argv ($1): $me $ARGS" >&2; exit 254; }

user= seen= op=
while [ $# -gt 0 ]; do
	case "$1" in
	-o) seen="$seen|$2"; shift 2 ;;
	-l) user=$2; shift 2 ;;
	-p) shift 2 ;;
	-e) [ "$2" = none ] || bad "-e $2"; shift 2 ;;
	-T|-r|-q) shift ;;
	-O) op=$2; shift 2 ;;
	--) shift; break ;;
	*) bad "option '$1' or no -- before the destination" ;;
	esac
done
case "$seen" in *"|BatchMode=yes"*) ;; *) bad "no -o BatchMode=yes" ;; esac
case "$seen" in *StrictHostKeyChecking=no*) bad "StrictHostKeyChecking=no" ;; esac

host_ok() {
	h=${1%%:*}
	h=${h#*@}
	if [ "$h" != "${FAKE_SSH_HOST:-fakebox}" ]; then
		echo "ssh: Could not resolve hostname $h: Name or service not known" >&2
		exit 255
	fi
}

if [ "$me" = scp ]; then
	[ $# = 2 ] || bad "scp wants SRC DST"
	host_ok "$1"
	exec cp -- "${1#*:}" "$2"
fi
[ $# -ge 1 ] || bad "no destination"
host_ok "$1"
[ "$op" = exit ] && exit 0
shift
[ $# -ge 1 ] || bad "no command"
case "$*" in
"echo thp="*) [ -n "$FAKE_SSH_PROBE" ] && exec cat -- "$FAKE_SSH_PROBE" ;;
esac
exec sh -c "$*"
