#!/bin/sh
# ccbuild-srcset.sh - the source set of the ccbuild workload
# (configs/workloads/ccbuild.ini), made once on the host from Debian's
# linux-source tarball, so that no guest ever unpacks the tarball (xz reads
# the whole 130 MB stream even for a few members: ~11 s of CPU here, minutes
# under emulation).
#
#   sh workloads/ccbuild-srcset.sh [--if-source] [--tarball T] [--manifest M] OUT
#   sh workloads/ccbuild-srcset.sh --print-manifest [--tarball T] [--manifest M]
#
# The manifest M (workloads/ccbuild.sha256 beside this script) is sha256sum's
# format, paths in a linux-source tree: the files of the set and their
# checksums, so the set is fixed whatever linux-source is installed; its .c
# files are compiled, in its order.  T is the newest
# /usr/src/linux-source-*.tar.xz (package linux-source; 'make
# deps-workloads' installs it).  OUT is an uncompressed tar of ccbuild/:
# the files at their paths, a generated Makefile ('make FILES=N' compiles
# the first N of SRCS with gcc -O2 -c into obj/; 'make clean') and
# SHA256SUMS (the manifest's lines and the Makefile's).  The sha256 of
# SHA256SUMS is the set's identity: the workload prints it.  OUT is
# reproducible (sorted, owner 0, mtime 0): the same manifest and script make
# the same bytes, so the images that carry OUT (their recipes hash it) are
# the same in every clone.
#
# Keyed by content: OUT.key holds the sha256 of the manifest and of this
# script; when it matches, OUT is up to date and T is not read.  Where the
# key differs and there is no T, a stale OUT is removed (said).  A file of T
# that differs from the manifest fails the build, naming it: a different
# linux-source; --print-manifest prints the manifest for T (the same paths,
# T's checksums) to review and commit.  --if-source: exit 0, saying nothing,
# where there is no T and no OUT (make runs this on every host).
#
# Exit status: 0 done or up to date, 1 failed (said on stderr), 2 usage.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
manifest=$here/ccbuild.sha256
tarball="" if_source="" print="" out=""
say() { echo "ccbuild-srcset: $*" >&2; }
usage() { say "usage: $0 [--if-source] [--tarball T] [--manifest M] OUT | --print-manifest [--tarball T] [--manifest M]"; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--if-source) if_source=1 ;;
	--print-manifest) print=1 ;;
	--tarball) [ $# -ge 2 ] || usage; tarball=$2; shift ;;
	--manifest) [ $# -ge 2 ] || usage; manifest=$2; shift ;;
	-*) usage ;;
	*) [ -z "$out" ] || usage; out=$1 ;;
	esac
	shift
done
[ -n "$print" ] || [ -n "$out" ] || usage
[ -r "$manifest" ] || { say "cannot read the manifest '$manifest'"; exit 1; }
manifest=$(cd "$(dirname "$manifest")" && pwd)/$(basename "$manifest")
[ -n "$tarball" ] ||
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)

key=$(cat "$manifest" "$0" | sha256sum | cut -c1-64)
if [ -z "$print" ] && [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
if [ -z "$tarball" ] || [ ! -r "$tarball" ]; then
	if [ -n "$out" ] && [ -f "$out" ]; then
		rm -f "$out" "$out.key"
		say "removed '$out': made from another manifest or script, and no linux-source tarball to make it again"
	fi
	[ -n "$if_source" ] && exit 0
	say "no linux-source tarball${tarball:+ '$tarball'} (apt-get install linux-source, or 'make deps-workloads')"
	exit 1
fi

# The paths, in the manifest's order; one tar pass over the stream.
paths=$(sed -n 's/^[0-9a-f]\{64\}  \(.*\)$/\1/p' "$manifest")
[ -n "$paths" ] || { say "'$manifest' lists no file"; exit 1; }
if echo "$paths" | grep -q '[[:space:]]'; then
	say "'$manifest': a path with a blank (the Makefile's SRCS are words)"
	exit 1
fi
top=$(basename "$tarball" .tar.xz)
stage=$(mktemp -d "${TMPDIR:-/tmp}/ccbuild-srcset.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/ccbuild"
say "taking $(echo "$paths" | wc -l) files of '$tarball'..."
echo "$paths" | sed "s|^|$top/|" >"$stage/members"
tar -xJf "$tarball" -C "$stage/ccbuild" --strip-components=1 -T "$stage/members" || {
	say "cannot take the manifest's files from '$tarball'"
	exit 1
}

if [ -n "$print" ]; then
	(cd "$stage/ccbuild" && echo "$paths" | while read -r p; do sha256sum "$p"; done)
	exit 0
fi
if ! (cd "$stage/ccbuild" && sha256sum --quiet -c "$manifest" >&2); then
	say "'$tarball' differs from '$manifest' in the files above: another linux-source than the set's; '$0 --print-manifest' prints its manifest"
	exit 1
fi

srcs=$(echo "$paths" | grep '\.c$' | tr '\n' ' ')
cat >"$stage/ccbuild/Makefile" <<EOF
# ccbuild's build (made by workloads/ccbuild-srcset.sh): gcc -O2 -c over the
# first FILES of SRCS, in order, into obj/.  make -jN FILES=N; make clean.
CC = gcc
CFLAGS = -O2 -std=gnu11
SRCS = $srcs
FILES = \$(words \$(SRCS))
OBJS = \$(patsubst %.c,obj/%.o,\$(wordlist 1,\$(FILES),\$(SRCS)))
ifeq (\$(strip \$(OBJS)),)
\$(error FILES=\$(FILES): no C file to compile (1 to \$(words \$(SRCS))))
endif
all: \$(OBJS)
# Each tool's own include paths, as its kernel Makefile has them.
obj/scripts/dtc/%.o: CPPFLAGS += -Iscripts/dtc/libfdt
obj/scripts/sorttable.o: CPPFLAGS += -Itools/include
obj/tools/lib/subcmd/%.o: CPPFLAGS += -Itools/include -D_GNU_SOURCE
obj/%.o: %.c
	@mkdir -p \$(dir \$@)
	\$(CC) \$(CPPFLAGS) \$(CFLAGS) -c -o \$@ \$<
clean:
	rm -rf obj
.PHONY: all clean
EOF
{ cat "$manifest"; (cd "$stage/ccbuild" && sha256sum Makefile); } >"$stage/ccbuild/SHA256SUMS"
mkdir -p "$(dirname "$out")"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
	--mode=u=rwX,go=rX --format=gnu -C "$stage" -cf "$out.tmp" ccbuild
mv "$out.tmp" "$out"
echo "$key" >"$out.key"
say "made '$out': set sha256:$(sha256sum <"$stage/ccbuild/SHA256SUMS" | cut -c1-64), $(echo "$srcs" | wc -w) C files"
