/* SPDX-License-Identifier: MIT */
/*
 * paging: hardware two-dimensional paging ("hw": Intel EPT, AMD NPT) or
 * shadow page tables ("shadow").  The vendor in /proc/cpuinfo picks the
 * module and parameter (host_virt_usable() of host.h): kvm_intel ept or
 * kvm_amd npt, read from
 * /sys/module/MOD/parameters/PARAM ("Y"/"N", or "1"/"0" on old kernels).
 * Both parameters are read-only at run time, so a change removes the module
 * and inserts it again with PARAM=0 or PARAM=1 through the module ops.  That
 * kills every VM, so it is refused while any domain runs; and it is reported
 * unsupported, without trying, where it cannot work: no vmx/svm, a PVM
 * /dev/kvm (kvm_pvm), a built-in or absent vendor module.
 */
#include "knob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "util.h"

struct paging_hw {
	const char *module; /* "kvm_intel" */
	const char *param;  /* "ept" */
	char file[128];	    /* "/sys/module/kvm_intel/parameters/ept" */
};

/* Which module and parameter this cpu uses; WHY says why there is none. */
static bool paging_hw(struct host_ctx *ctx, struct paging_hw *hw, char *why,
		      size_t len)
{
	const struct virt_hw *virt;
	struct host_cpu cpu;
	char *pvm;
	struct stat st;
	bool is_pvm;

	if (host_cpu_read(ctx->root, &cpu) < 0) {
		snprintf(why, len, "cannot read '/proc/cpuinfo'");
		return false;
	}
	pvm = host_path_new(ctx, "/sys/module/kvm_pvm");
	is_pvm = !stat(pvm, &st);
	free(pvm);
	virt = host_virt_usable(&cpu);
	if (!virt) {
		snprintf(why, len, "no vmx or svm flag in /proc/cpuinfo%s",
			 is_pvm ? " (/dev/kvm is kvm_pvm, which has no ept or "
				  "npt to toggle)"
				: "");
		return false;
	}
	hw->module = virt->module;
	hw->param = virt->paging;
	if (is_pvm) {
		snprintf(why, len,
			 "/dev/kvm is kvm_pvm (PVM), which has no %s "
			 "to toggle",
			 hw->param);
		return false;
	}
	snprintf(hw->file, sizeof(hw->file), "/sys/module/%s/parameters/%s",
		 hw->module, hw->param);
	switch (host_module_state(ctx->root, hw->module)) {
	case HOST_MODULE_ABSENT:
		snprintf(why, len, "module '%s' is not loaded", hw->module);
		return false;
	case HOST_MODULE_BUILTIN:
		snprintf(why, len,
			 "%s is built into the kernel: %s can only be "
			 "set at boot (%s.%s=0)",
			 hw->module, hw->param, hw->module, hw->param);
		return false;
	case HOST_MODULE_LOADED:
		break;
	}
	return true;
}

/* "Y"/"1" -> "hw", "N"/"0" -> "shadow", else NULL. */
static const char *paging_word(const char *raw)
{
	if (!strcmp(raw, "Y") || !strcmp(raw, "1"))
		return "hw";
	if (!strcmp(raw, "N") || !strcmp(raw, "0"))
		return "shadow";
	return NULL;
}

static int paging_read(const struct host_knob *k, struct host_ctx *ctx,
		       char *buf, size_t len)
{
	struct paging_hw hw;
	char why[256], raw[32];
	const char *w;
	int ret;

	if (!paging_hw(ctx, &hw, why, sizeof(why)))
		return err_code(-EOPNOTSUPP, "cannot read '%s': %s", k->name,
				why);
	ret = host_read_sys(ctx, hw.file, raw, sizeof(raw));
	if (ret < 0)
		return ret;
	w = paging_word(raw);
	if (!w)
		return err("'%s' holds '%s', not Y/N or 1/0", hw.file, raw);
	snprintf(buf, len, "%s", w);
	return 0;
}

static bool paging_supported(const struct host_knob *k, struct host_ctx *ctx,
			     const char *value, char *why, size_t len)
{
	struct paging_hw hw;
	char raw[32];
	int ret;

	(void)k;
	if (value && strcmp(value, "hw") && strcmp(value, "shadow")) {
		snprintf(why, len, "'%s' is not one of hw, shadow", value);
		return false;
	}
	if (!paging_hw(ctx, &hw, why, len))
		return false;
	ret = host_read(ctx, hw.file, raw, sizeof(raw));
	if (ret < 0) {
		snprintf(why, len, "cannot read '%s': %s", hw.file,
			 strerror(-ret));
		return false;
	}
	return true;
}

/*
 * No VM runs (HW's module is about to be reloaded with OPT).  Domains that
 * are still listed are waited for, polling every 250 ms, for at most
 * ctx->vm_drain_s: the guest of the cell before is often still being torn
 * down by libvirt when the next cell sets the host up.
 */
static int paging_no_vms(struct host_ctx *ctx, const struct paging_hw *hw,
			 const char *opt)
{
	const struct timespec tick = { 0, 250 * 1000 * 1000 };
	double t0 = mono_now();
	char vms[1024];
	bool said = false;
	int n;

	if (!ctx->list_vms)
		return err_code(-EBUSY,
				"refusing to reload '%s' with %s: cannot "
				"tell whether any VM is running",
				hw->module, opt);
	for (;;) {
		vms[0] = '\0';
		n = ctx->list_vms(ctx->list_vms_arg, vms, sizeof(vms));
		if (n < 0)
			return err_code(n,
					"refusing to reload '%s' with %s: "
					"cannot list the running domains",
					hw->module, opt);
		if (n == 0 || mono_now() - t0 >= ctx->vm_drain_s)
			break;
		if (!said)
			note("waiting up to %.0f s for %d domain%s to go "
			     "before reloading '%s' with %s: %s",
			     ctx->vm_drain_s, n, n == 1 ? "" : "s",
			     hw->module, opt, vms);
		said = true;
		nanosleep(&tick, NULL);
	}
	if (n > 0)
		return err_code(-EBUSY,
				"refusing to reload '%s' with %s while "
				"%d domain%s run%s%s: %s",
				hw->module, opt, n, n == 1 ? "" : "s",
				n == 1 ? "s" : "",
				said ? " (waited for them)" : "", vms);
	if (said)
		note("the domains are gone after %.1f s", mono_now() - t0);
	return 0;
}

/* HW's module removed and inserted with OPT; with BACK if that fails. */
static int paging_reload(struct host_ctx *ctx, const struct paging_hw *hw,
			 const char *opt, const char *back)
{
	char refcnt[32];
	int ret, r;

	ret = ctx->modules->remove(ctx->modules_arg, hw->module);
	if (ret < 0) {
		char *rc = xasprintf("/sys/module/%s/refcnt", hw->module);

		if (host_read(ctx, rc, refcnt, sizeof(refcnt)) < 0)
			snprintf(refcnt, sizeof(refcnt), "?");
		free(rc);
		err_code(ret,
			 "cannot remove module '%s' (refcnt %s; is "
			 "something else using /dev/kvm?)",
			 hw->module, refcnt);
		return ret;
	}
	ret = ctx->modules->insert(ctx->modules_arg, hw->module, opt);
	if (ret < 0) {
		err_code(ret, "cannot insert module '%s' with %s", hw->module,
			 opt);
		/* Do not leave the host without kvm: load it as it was. */
		r = ctx->modules->insert(ctx->modules_arg, hw->module, back);
		if (r < 0)
			err_code(r,
				 "cannot insert module '%s' with %s either: "
				 "the host has no %s now",
				 hw->module, back, hw->module);
	}
	return ret < 0 ? ret : 0;
}

static int paging_apply(const struct host_knob *k, struct host_ctx *ctx,
			const char *value)
{
	const char *bit = strcmp(value, "hw") ? "0" : "1";
	char *opt = NULL, *back = NULL;
	char why[256], got[HOST_VALUE_MAX];
	struct paging_hw hw;
	int ret;

	if (!paging_hw(ctx, &hw, why, sizeof(why))) {
		ret =
		    err_code(-EOPNOTSUPP, "cannot set '%s': %s", k->name, why);
		goto out;
	}
	opt = xasprintf("%s=%s", hw.param, bit);
	back = xasprintf("%s=%s", hw.param, bit[0] == '1' ? "0" : "1");
	ret = paging_no_vms(ctx, &hw, opt);
	if (ret == 0)
		ret = paging_reload(ctx, &hw, opt, back);
	if (ret == 0)
		ret = paging_read(k, ctx, got, sizeof(got));
	if (ret < 0)
		goto out;
	if (strcmp(got, value)) {
		ret = err_code(-EIO,
			       "'%s' reads back '%s', expected '%s' after "
			       "loading '%s' with %s",
			       hw.file, got, value, hw.module, opt);
		goto out;
	}
	ret = 0;
out:
	free(opt);
	free(back);
	return ret;
}

const struct host_knob_ops host_knob_paging = {
    .name = KNOB_PAGING,
    .values = "hw, shadow",
    .file = NULL, /* a module reload: not from a signal handler */
    .read = paging_read,
    .supported = paging_supported,
    .apply = paging_apply,
};
