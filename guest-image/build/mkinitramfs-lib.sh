# SPDX-License-Identifier: MIT
#
# mkinitramfs-lib.sh - what the initramfs scripts share, sourced (not run)
# by mkinitramfs-tiny.sh and mkinitramfs-root.sh from their own directory
# (". "$(dirname "$0")/mkinitramfs-lib.sh""; 'make install' puts it beside
# them in DATADIR, and the image recipes hash it with the script).
#
#   initramfs_stage NAME   a fresh STAGE directory (removed on exit, with
#                          TMP_OUT=$OUT.tmp.PID) and umask 022
#   initramfs_module F N   module file F (.ko, .ko.xz, .ko.zst, .ko.gz)
#                          into STAGE/lib/modules/N.ko, decompressed (busybox
#                          insmod may lack xz and zstd), and N onto LOAD
#   initramfs_pack LEVEL   STAGE into OUT: the console and null nodes (as
#                          root), every mtime $EPOCH, the sorted newc cpio
#                          owned by 0:0, gzip -n -LEVEL, renamed into place
#
# The caller sets OUT, EPOCH and LOAD (empty) first and defines die().
# Deterministic: the same STAGE gives the same bytes.

initramfs_stage() {
	STAGE=$(mktemp -d "${TMPDIR:-/tmp}/vmtax-$1.XXXXXX")
	TMP_OUT=$OUT.tmp.$$
	trap 'rm -rf "$STAGE" "$TMP_OUT"' EXIT
	trap 'exit 1' INT TERM
	umask 022
}

initramfs_module() {
	_dst=$STAGE/lib/modules/$2.ko
	case $1 in
	*.ko.xz) xz -dc "$1" >"$_dst" ;;
	*.ko.zst) zstd -q -dc "$1" >"$_dst" ;;
	*.ko.gz) gzip -dc "$1" >"$_dst" ;;
	*) cp "$1" "$_dst" ;;
	esac
	chmod 0644 "$_dst"
	LOAD="$LOAD $2"
}

initramfs_pack() {
	# The console node must exist before devtmpfs is mounted, for init's
	# stdio.
	if [ "$(id -u)" = 0 ]; then
		mknod -m 0600 "$STAGE/dev/console" c 5 1
		mknod -m 0666 "$STAGE/dev/null" c 1 3
	fi
	find "$STAGE" -exec touch -h -d "@$EPOCH" {} +
	mkdir -p "$(dirname "$OUT")"
	(
		cd "$STAGE"
		find . -mindepth 1 | LC_ALL=C sort |
			cpio --quiet -o -H newc -R 0:0 --reproducible
	) | gzip -n "-$1" >"$TMP_OUT"
	mv -f "$TMP_OUT" "$OUT"
}
