/* SPDX-License-Identifier: MIT */
/*
 * lab-carrier.c - the debian image a lab carries for its guests
 * (lab-session.h, docs/lab.md "Debian inner guests").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "guest-reach.h"
#include "lab.h"
#include "lab-session.h"
#include "untrusted.h"
#include "util.h"

/* How long the set-up inside may take: a copy of the kernel and initrd
 * (about 45 MB) from the carried disk, under emulation. */
#define LAB_CARRIER_SETUP_S 600.0

/*
 * The set-up inside the lab, after its variables (lab_carrier_cmd_new()):
 * the carrier found by its serial under $sys, refused unless read-only;
 * the kernel and initrd the host booted ($ks and $is bytes, so the copy is
 * of the same files) copied from its /boot, mounted read-only without
 * replaying its journal; a qcow2 whose backing file is the raw device; the
 * links the inner vmtax resolves.  Each step is skipped when its file is
 * there: a lab booted again on its kept disk has them.  Exit status 3 with
 * one line for what the carrier lacks.
 */
static const char carrier_script[] =
	"set -e\n"
	"b=\n"
	"for s in \"$sys\"/vd*/serial; do\n"
	"  if test \"$(cat \"$s\" 2>/dev/null)\" = \"$serial\"; then "
	"b=${s%/serial}; fi\n"
	"done\n"
	"if test -z \"$b\"; then echo \"no disk with serial $serial in $sys\"; "
	"exit 3; fi\n"
	"n=${b##*/}\n"
	"if test \"$(cat \"$b/ro\")\" != 1; then echo \"$dev/$n, the carried "
	"image, is not read-only\"; exit 3; fi\n"
	"mkdir -p \"$d\"\n"
	"if ! test -e \"$d/$k\" || ! test -e \"$d/$i\"; then\n"
	"  m=$(mktemp -d)\n"
	"  mount -t ext4 -o ro,noload \"$dev/$n\" \"$m\"\n"
	"  v=\n"
	"  for f in \"$m\"/boot/vmlinuz-*; do\n"
	"    r=$m/boot/initrd.img-${f#\"$m\"/boot/vmlinuz-}\n"
	"    if test -f \"$f\" && test \"$(stat -c %s \"$f\")\" = \"$ks\" && "
	"test -f \"$r\" && test \"$(stat -c %s \"$r\")\" = \"$is\"; then\n"
	"      cp \"$f\" \"$d/$k.tmp\"\n"
	"      cp \"$r\" \"$d/$i.tmp\"\n"
	"      v=${f#\"$m\"/boot/vmlinuz-}\n"
	"      break\n"
	"    fi\n"
	"  done\n"
	"  umount \"$m\" && rmdir \"$m\"\n"
	"  if test -z \"$v\"; then echo \"no /boot/vmlinuz-* of $ks bytes with "
	"its initrd.img of $is bytes in the carried image ($dev/$n)\"; "
	"exit 3; fi\n"
	"  mv -f \"$d/$k.tmp\" \"$d/$k\" && mv -f \"$d/$i.tmp\" \"$d/$i\"\n"
	"  echo \"kernel=$v\"\n"
	"fi\n"
	"test -e \"$d/$q\" || qemu-img create -q -f qcow2 -F raw -b "
	"\"$dev/$n\" \"$d/$q\"\n"
	"ln -sfn \"$q\" \"$d/$lq\" && ln -sfn \"$k\" \"$d/$lk\" && "
	"ln -sfn \"$i\" \"$d/$li\"\n"
	"echo \"disk=$dev/$n\"\n";

int lab_carrier_find(const struct matrix *m, const char *bindir,
		     const char *config_path, struct guest_files *f)
{
	char *images, *kernel;
	int ret;

	memset(f, 0, sizeof(*f));
	if (!lab_carries(m))
		return 0;
	/*
	 * The kernel by its path, not "auto": the lab copies it from the
	 * carried disk and makes its PVH file itself, so none is made here.
	 */
	images = guest_images_dir_new(bindir);
	kernel = guest_debian_path_new(images, "vmlinuz");
	ret = guest_files_resolve(GUEST_IMAGE_DEBIAN, kernel, "auto", bindir,
				  config_path, f);
	free(kernel);
	free(images);
	return ret;
}

static void add_var(char **cmd, const char *name, const char *value)
{
	char *q = sh_quote_new(value), *prev = *cmd;

	*cmd = xasprintf("%s%s=%s\n", prev ? prev : "", name, q);
	free(prev);
	free(q);
}

char *lab_carrier_cmd_new(const struct lab_carrier_want *w)
{
	char *cmd = NULL, *lq, *lk, *li, ks[32], is[32];

	lq = guest_debian_path_new("", "qcow2");
	lk = guest_debian_path_new("", "vmlinuz");
	li = guest_debian_path_new("", "initrd");
	snprintf(ks, sizeof(ks), "%lld", w->vmlinuz_bytes);
	snprintf(is, sizeof(is), "%lld", w->initrd_bytes);
	add_var(&cmd, "sys", w->sys_block);
	add_var(&cmd, "dev", w->dev_dir);
	add_var(&cmd, "serial", VM_CARRIER_SERIAL);
	add_var(&cmd, "d", w->images);
	add_var(&cmd, "q", w->qcow2);
	add_var(&cmd, "k", w->vmlinuz);
	add_var(&cmd, "i", w->initrd);
	add_var(&cmd, "ks", ks);
	add_var(&cmd, "is", is);
	add_var(&cmd, "lq", path_base(lq));
	add_var(&cmd, "lk", path_base(lk));
	add_var(&cmd, "li", path_base(li));
	free(lq);
	free(lk);
	free(li);
	{
		char *prev = cmd;

		cmd = xasprintf("%s%s", prev, carrier_script);
		free(prev);
	}
	return cmd;
}

/* The script's lines OUT as one line, in place: "kernel=V, disk=D". */
static char *one_line(char *out)
{
	size_t n = strlen(out);
	char *p;

	while (n && out[n - 1] == '\n')
		out[--n] = '\0';
	for (p = out; (p = strchr(p, '\n')); p++)
		*p = ';';
	return untrusted_scrub(out, false);
}

/* The size of PATH, or -1 (reported). */
static long long file_bytes(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		err_errno("cannot stat '%s'", path);
		return -1;
	}
	return (long long)st.st_size;
}

int lab_carrier_setup(struct lab *l)
{
	struct lab_carrier_want w = {
		.sys_block = "/sys/block",
		.dev_dir = "/dev",
		.images = GUEST_LAB_IMAGES,
	};
	char *cmd, *out = NULL;
	double t0 = mono_now();
	int ret;

	if (!l->carrier.disk)
		return 0;
	w.qcow2 = path_base(l->carrier.disk);
	w.vmlinuz = path_base(l->carrier.vmlinuz);
	w.initrd = path_base(l->carrier.initrd);
	w.vmlinuz_bytes = file_bytes(l->carrier.vmlinuz);
	w.initrd_bytes = file_bytes(l->carrier.initrd);
	if (w.vmlinuz_bytes < 0 || w.initrd_bytes < 0)
		return -EIO;
	cmd = lab_carrier_cmd_new(&w);
	ret = lab_sh(l, "the debian image inside", cmd, LAB_CARRIER_SETUP_S,
		     &out);
	free(cmd);
	if (ret > 0)
		ret = err_code(-EIO, "lab: cannot give its guests the debian "
				     "image: %s",
			       one_line(out));
	else if (ret == 0)
		note("lab: its guests boot '%s' from the carried disk (%s) in "
		     "%.1f s",
		     w.qcow2, one_line(out), mono_now() - t0);
	free(out);
	return ret;
}

int lab_carrier_reach(struct lab *l)
{
	return l->carrier.disk ? guest_files_reach_for(&l->carrier, l->cfg->uri)
			       : 0;
}
