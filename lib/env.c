/* SPDX-License-Identifier: MIT */
/* The environment variables vmtax reads (env.h). */
#include "env.h"

#define ROW(c, pages, roff) { c, #c, pages, roff }

static const struct env_var vars[] = {
	ROW(ENV_TIMINGS_DIR, "vmtax-run vmtax-calibrate",
	    "the directory of\n.I timings.json\n(the estimate's figures) in "
	    "place of\n.I @CACHEDIR@\n(the shell tests set it to their scratch "
	    "directory)"),
	ROW(ENV_IMAGE_CACHE, "vmtax-image vmtax-lab",
	    "the image cache the lab image is built and kept in, which every "
	    "checkout shares, in place of\n.I @CACHEDIR@/images\n(the tests "
	    "and the bench's builds from scratch set it)"),
	ROW(ENV_STAGE_DIR, "vmtax-run vmtax-lab",
	    "where guest files QEMU cannot reach (under qemu:///system, QEMU "
	    "runs as another user: a checkout in a 0700 home) are linked or "
	    "copied, in place of\n.I /var/lib/libvirt/images/vmtax\n(tests)"),
	ROW(ENV_REMOTE_STAGE_DIR, "vmtax-run",
	    "the directory on a remote libvirt host (a qemu+ssh URI) the "
	    "guest's kernel, initrd and disk are copied into, named by their "
	    "contents, in place of\n.I /var/lib/libvirt/images/vmtax\n(tests)"),
	ROW(ENV_HOST_ROOT, "vmtax-run vmtax-host",
	    "a directory the host knobs (THP, [host] knobs, the cpufreq "
	    "governor, ...) are read and written under, in place of\n.I /\n"
	    "(the shell tests set it to a fake /sys in their scratch "
	    "directory); the lock and the journal stay in\n.I @STATEDIR@\n"
	    "and kernel modules are the real ones; for tests only"),
	ROW(ENV_BUSYBOX, "vmtax-image vmtax-run",
	    "the static busybox the images carry (tiny, debian, lab) and "
	    "whose\n.B sh\nruns bare-metal cells' workload commands, as it "
	    "runs the guests' (default\n.IR /bin/busybox )"),
	ROW(ENV_LIBGUESTFS_BACKEND, "vmtax-image",
	    "debian, lab: libguestfs's backend; set to\n.B direct\nwithout "
	    "KVM unless given"),
	ROW(ENV_LIBGUESTFS_BACKEND_SETTINGS, "vmtax-image",
	    "debian, lab: libguestfs's backend settings; set to\n"
	    ".B force_tcg\nwithout KVM unless given"),
	ROW(ENV_SUPERMIN_KERNEL, "vmtax-image",
	    "debian, lab: the kernel libguestfs's appliance boots; unless "
	    "given, the guest kernel vmtax boots"),
	ROW(ENV_SUPERMIN_MODULES, "vmtax-image",
	    "debian, lab: that kernel's modules directory; unless given (and "
	    "SUPERMIN_KERNEL is not), the guest kernel's"),
	ROW(ENV_SUPERMIN_KERNEL_VERSION, "vmtax-image",
	    "debian, lab: that kernel's version; unless given (and "
	    "SUPERMIN_KERNEL is not), the guest kernel's"),
	ROW(ENV_TMPDIR, "vmtax-image",
	    "appliance: where its scratch disk is made (default\n"
	    ".IR /var/tmp )"),
};

const struct env_var *env_vars(size_t *n)
{
	*n = sizeof(vars) / sizeof(vars[0]);
	return vars;
}
