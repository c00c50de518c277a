/* SPDX-License-Identifier: MIT */
/* Module ops through libkmod; see host_module_ops in host.h. */
#include "host.h"

#include <errno.h>
#include <libkmod.h>

#include "util.h"

static int kmod_remove(void *arg, const char *name)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *kctx;
	int ret;

	(void)arg;
	kctx = kmod_new(NULL, NULL);
	if (!kctx)
		return -ENOMEM;
	ret = kmod_module_new_from_name(kctx, name, &mod);
	if (ret < 0)
		goto out;
	ret = kmod_module_remove_module(mod, 0);
out:
	kmod_module_unref(mod);
	kmod_unref(kctx);
	return ret < 0 ? ret : 0;
}

/*
 * probe_insert applies /etc/modprobe.d options and then OPTIONS (the later
 * one wins for a repeated parameter) and loads dependencies.
 */
static int kmod_insert(void *arg, const char *name, const char *options)
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *kctx;
	int ret;

	(void)arg;
	kctx = kmod_new(NULL, NULL);
	if (!kctx)
		return -ENOMEM;
	ret = kmod_module_new_from_name(kctx, name, &mod);
	if (ret < 0)
		goto out;
	ret =
	    kmod_module_probe_insert_module(mod, 0, options, NULL, NULL, NULL);
	/* > 0: refused by the blacklist or a modprobe.d "install" rule. */
	if (ret > 0)
		ret = -EPERM;
out:
	kmod_module_unref(mod);
	kmod_unref(kctx);
	return ret < 0 ? ret : 0;
}

const struct host_module_ops host_kmod_ops = {
    .remove = kmod_remove,
    .insert = kmod_insert,
};
