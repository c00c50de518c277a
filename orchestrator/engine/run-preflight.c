/* SPDX-License-Identifier: MIT */
/* What a run needs of this host, all of it named at once; see
 * run-preflight.h. */
#include "run-preflight.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "guest-files.h"
#include "host.h"
#include "image.h"
#include "layout.h"
#include "quiet.h"
#include "rounds-group.h"
#include "run-engine.h"
#include "util.h"
#include "vm.h"

/* What the checks share: the run, the host and what was read of it once. */
struct pf {
	const struct run *r;
	const struct preflight_host *h;
	const char *root;
	struct host_ctx *ctx; /* read-only, on root; NULL if it failed */
	bool remote_libvirt;  /* [guest] uri is a remote libvirt */
	bool cpu_read;	      /* root's /proc/cpuinfo was read */
	const struct virt_hw *virt; /* NULL: no vmx or svm flag */
	bool pvm;		    /* /dev/kvm is kvm_pvm */
	bool kvm_needed;	    /* accel = kvm, with guests here */
	const char *accel;	    /* what guests here run under */
	char accel_why[256];
	char *images;		    /* the images directory */
};

typedef enum preflight_verdict (*preflight_check_fn)(struct pf *s,
						      struct preflight_item *it);

struct preflight_row {
	const char *name;
	preflight_check_fn check;
	const char *remedy; /* said when the check gives no fix */
};

/* ---- cells ---- */

/* A guest of this host's KVM (or TCG): its host settings are set here. */
static bool local_guest(const struct pf *s, int ci)
{
	return !s->remote_libvirt &&
	       run_exec_has(s->r, ci,
			    EXEC_NEEDS_GUEST | EXEC_CHANGES_HOST_KNOBS);
}

/* The workload runs on this host itself. */
static bool bare_here(const struct pf *s, int ci)
{
	return !run_exec_has(s->r, ci, EXEC_NEEDS_GUEST) &&
	       run_exec_has(s->r, ci, EXEC_CHANGES_HOST_KNOBS);
}

static bool disk_image(const char *image)
{
	return !strcmp(image, GUEST_IMAGE_DEBIAN) ||
	       !strcmp(image, GUEST_IMAGE_LAB);
}

/* Whether guest cell CI is the first to boot its (image, kernel, initrd). */
static bool first_of_files(const struct run *r, int ci)
{
	const struct cell *c = &r->cells[ci];
	int i;

	for (i = 0; i < ci; i++) {
		const struct cell *o = &r->cells[i];

		if (run_exec_has(r, i, EXEC_NEEDS_GUEST) &&
		    !strcmp(o->image, c->image) &&
		    !strcmp(o->kernel, c->kernel) &&
		    !strcmp(o->initrd, c->initrd))
			return false;
	}
	return true;
}

/* Each distinct (image, kernel, initrd) of the guest cells: the index of
 * the first cell with it, from *CI on; -1 past the last. */
static int next_files(const struct run *r, int *ci)
{
	for (; *ci < r->ncells; (*ci)++)
		if (run_exec_has(r, *ci, EXEC_NEEDS_GUEST) &&
		    first_of_files(r, *ci))
			return (*ci)++;
	return -1;
}

static double gib(uint64_t b)
{
	return (double)b / (1ULL << 30);
}

/* The cells a check skips: how many, the first and its reason. */
struct skip_tally {
	int n;
	const char *first;
	char why[512];
};

static void tally_add(struct skip_tally *t, const struct cell *c,
		      const char *why)
{
	if (!t->n++) {
		t->first = c->id;
		snprintf(t->why, sizeof(t->why), "%s", why);
	}
}

/* The skipped cells of a SKIPS verdict: "N cells ('ID', ...): WHY". */
static enum preflight_verdict skips(struct preflight_item *it,
				    const struct skip_tally *t)
{
	if (!t->n)
		return PREFLIGHT_OK;
	it->ncells = t->n;
	snprintf(it->what, sizeof(it->what), "%d cell%s ('%s'%s) skipped: %s",
		 t->n, t->n == 1 ? "" : "s", t->first,
		 t->n > 1 ? ", ..." : "", t->why);
	return PREFLIGHT_SKIPS;
}

/* ---- the checks, in table order ---- */

static enum preflight_verdict check_virt(struct pf *s,
					 struct preflight_item *it)
{
	if (!s->kvm_needed || s->virt)
		return PREFLIGHT_OK;
	if (!s->cpu_read)
		snprintf(it->what, sizeof(it->what),
			 "cannot read /proc/cpuinfo, and [guest] accel = kvm");
	else
		snprintf(it->what, sizeof(it->what),
			 "no vmx or svm flag in /proc/cpuinfo%s, and [guest] "
			 "accel = kvm",
			 s->pvm ? " (a PVM /dev/kvm, kvm_pvm here, cannot "
				  "run KVM guests)"
				: "");
	return PREFLIGHT_MISSING;
}

static enum preflight_verdict check_kvm_dev(struct pf *s,
					    struct preflight_item *it)
{
	if (!s->kvm_needed || !s->virt || !strcmp(s->accel, "kvm"))
		return PREFLIGHT_OK;
	snprintf(it->what, sizeof(it->what), "%s, and [guest] accel = kvm",
		 s->accel_why);
	snprintf(it->fix, sizeof(it->fix),
		 "load KVM for this CPU (modprobe %s), and let root open "
		 "/dev/kvm",
		 s->virt->module);
	return PREFLIGHT_MISSING;
}

static enum preflight_verdict check_paging(struct pf *s,
					   struct preflight_item *it)
{
	struct skip_tally t = {0};
	char why[512] = "";
	int ci;

	/* the rows above refuse a run that needs KVM and has none */
	if (s->kvm_needed && (!s->virt || strcmp(s->accel, "kvm")))
		return PREFLIGHT_OK;
	for (ci = 0; ci < s->r->ncells; ci++) {
		const struct cell *c = &s->r->cells[ci];

		if (local_guest(s, ci) && s->ctx &&
		    run_cell_paging_unsupported(s->ctx, c, s->accel,
						s->accel_why, why, sizeof(why)))
			tally_add(&t, c, why);
	}
	if (!t.n)
		return PREFLIGHT_OK;
	if (!strcmp(s->accel, "tcg"))
		snprintf(it->fix, sizeof(it->fix),
			 "run where KVM is usable, or in the lab (docs/lab.md), "
			 "whose guests have NPT to toggle");
	else if (s->virt)
		snprintf(it->fix, sizeof(it->fix),
			 "vmtax toggles paging by reloading %s with %s=0 or 1 "
			 "(/sys/module/%s/parameters/%s): load it as a module "
			 "(modprobe %s), with no guest running",
			 s->virt->module, s->virt->paging, s->virt->module,
			 s->virt->paging, s->virt->module);
	return skips(it, &t);
}

static enum preflight_verdict check_cpus(struct pf *s,
					 struct preflight_item *it)
{
	const struct cell *big = NULL;
	struct cpuset online;
	unsigned ncpus;
	int ci;

	for (ci = 0; ci < s->r->ncells; ci++)
		if (local_guest(s, ci) &&
		    (!big || s->r->cells[ci].vcpus > big->vcpus))
			big = &s->r->cells[ci];
	if (!big || host_cpus_online(s->root, &online) < 0)
		return PREFLIGHT_OK; /* no guests here; cannot tell */
	ncpus = cpuset_count(&online);
	if (big->vcpus <= (long)ncpus)
		return PREFLIGHT_OK;
	snprintf(it->what, sizeof(it->what),
		 "cell '%s' asks for %ld vCPUs, and this host has %u CPUs "
		 "online (a vCPU without a CPU of its own measures the "
		 "host's time sharing)",
		 big->id, big->vcpus, ncpus);
	snprintf(it->fix, sizeof(it->fix),
		 "run on a host with %ld CPUs or more, or give [guest] vcpus "
		 "%u or fewer",
		 big->vcpus, ncpus);
	return PREFLIGHT_MISSING;
}

static enum preflight_verdict check_memory(struct pf *s,
					   struct preflight_item *it)
{
	const struct cell *big = NULL;
	long total = 0, avail = 0;
	uint64_t page;
	char pages[160] = "";
	int ci;

	for (ci = 0; ci < s->r->ncells; ci++)
		if (local_guest(s, ci) &&
		    (!big || s->r->cells[ci].memory > big->memory))
			big = &s->r->cells[ci];
	if (!big || host_meminfo_kb(s->root, "MemAvailable", &avail) < 0 ||
	    host_meminfo_kb(s->root, "MemTotal", &total) < 0)
		return PREFLIGHT_OK; /* no guests here; cannot tell */
	if (big->memory <= (uint64_t)avail * 1024)
		return PREFLIGHT_OK;
	/* a hugetlb guest's memory is too: the run grows the pool by its
	 * pages, from what is available (run-host.c hugetlb_reserve()) */
	page = big->backing == BACKING_HUGETLB_2M   ? 2ULL << 20
	       : big->backing == BACKING_HUGETLB_1G ? 1ULL << 30
						    : 0;
	if (page)
		snprintf(pages, sizeof(pages),
			 " backed by %s hugepages (the run adds %llu of them "
			 "to the pool, from available memory)",
			 page == 2ULL << 20 ? "2M" : "1G",
			 (unsigned long long)((big->memory + page - 1) / page));
	snprintf(it->what, sizeof(it->what),
		 "cell '%s' asks for a %.1f GiB guest%s, and this host has "
		 "%.1f GiB of memory (MemTotal), %.1f GiB available "
		 "(MemAvailable)",
		 big->id, gib(big->memory), pages, gib((uint64_t)total * 1024),
		 gib((uint64_t)avail * 1024));
	if (big->memory > (uint64_t)total * 1024)
		snprintf(it->fix, sizeof(it->fix),
			 "run on a host with more memory, or lower [guest] "
			 "memory");
	else
		snprintf(it->fix, sizeof(it->fix),
			 "free memory (other guests, hugetlb pools, page "
			 "cache held by tmpfs), or lower [guest] memory");
	return PREFLIGHT_MISSING;
}

static enum preflight_verdict check_hugepages(struct pf *s,
					      struct preflight_item *it)
{
	struct skip_tally t = {0};
	char why[512];
	int ci;

	for (ci = 0; ci < s->r->ncells; ci++) {
		const struct cell *c = &s->r->cells[ci];

		if (local_guest(s, ci) && s->ctx &&
		    run_cell_hugetlb_unsupported(s->ctx, s->root, c, why,
						 sizeof(why)))
			tally_add(&t, c, why);
	}
	return skips(it, &t);
}

static enum preflight_verdict check_knobs(struct pf *s,
					  struct preflight_item *it)
{
	struct skip_tally t = {0};
	char why[512];
	int ci;

	for (ci = 0; ci < s->r->ncells; ci++) {
		const struct cell *c = &s->r->cells[ci];

		if ((local_guest(s, ci) || bare_here(s, ci)) && s->ctx &&
		    run_cell_knobs_unsupported(s->ctx, c, why, sizeof(why)))
			tally_add(&t, c, why);
	}
	return skips(it, &t);
}

static enum preflight_verdict check_image(struct pf *s,
					  struct preflight_item *it)
{
	char why[PREFLIGHT_TEXT_MAX], fix[PREFLIGHT_TEXT_MAX];
	int ci = 0, i, n = 0;

	while ((i = next_files(s->r, &ci)) >= 0) {
		const struct cell *c = &s->r->cells[i];
		int ret = guest_files_check(c->image, c->kernel, c->initrd,
					    s->r->bindir, why, sizeof(why),
					    fix, sizeof(fix));

		if (ret == 0 || ret == GUEST_FILES_FIRST_USE)
			continue;
		if (!n++) {
			snprintf(it->what, sizeof(it->what), "%s", why);
			snprintf(it->fix, sizeof(it->fix), "%s", fix);
		}
	}
	if (n > 1)
		snprintf(it->what + strlen(it->what),
			 sizeof(it->what) - strlen(it->what),
			 " (and %d more)", n - 1);
	return n ? PREFLIGHT_MISSING : PREFLIGHT_OK;
}

/* Whether blank-separated LIST holds package NAME (N bytes). */
static bool list_has(const char *list, const char *name, size_t n)
{
	const char *p;
	size_t m;

	for (p = package_next(list, &m); p; p = package_next(p + m, &m))
		if (m == n && !memcmp(p, name, n))
			return true;
	return false;
}

/* Add the packages of PKGS this host lacks to LIST (LEN bytes), once
 * each; nothing when that cannot be told (no dpkg-query). */
static void lacking(struct pf *s, const char *pkgs, char *list, size_t len)
{
	char missing[512];
	const char *p;
	size_t n, used = strlen(list);

	if (s->h->missing_packages(pkgs, missing, sizeof(missing)) < 0)
		return;
	for (p = package_next(missing, &n); p; p = package_next(p + n, &n)) {
		if (list_has(list, p, n) || used + n + 2 > len)
			continue;
		used += (size_t)snprintf(list + used, len - used, "%s%.*s",
					 used ? " " : "", (int)n, p);
	}
}

static enum preflight_verdict check_image_build(struct pf *s,
						struct preflight_item *it)
{
	char why[PREFLIGHT_TEXT_MAX], fix[PREFLIGHT_TEXT_MAX];
	char pkgs[512] = "", *mods = NULL, built[128] = "";
	bool no_modules = false;
	struct stat st;
	int ci = 0, i;

	while ((i = next_files(s->r, &ci)) >= 0) {
		const struct cell *c = &s->r->cells[i];
		int ret = guest_files_check(c->image, c->kernel, c->initrd,
					    s->r->bindir, why, sizeof(why),
					    fix, sizeof(fix));

		if (ret == GUEST_FILES_FIRST_USE) {
			lacking(s, IMAGE_TINY_HOST_PACKAGES, pkgs,
				sizeof(pkgs));
			snprintf(built, sizeof(built), "the tiny image (built "
						       "on first use)");
		} else if (ret == GUEST_FILES_UNBUILT &&
			   !strcmp(c->image, GUEST_IMAGE_DEBIAN)) {
			lacking(s, IMAGE_DEBIAN_HOST_PACKAGES, pkgs,
				sizeof(pkgs));
			free(mods);
			mods = xasprintf("%s/lib/modules", s->root);
			no_modules = stat(mods, &st) < 0;
			snprintf(built, sizeof(built), "the debian image");
		}
	}
	free(mods);
	if (!*pkgs && !no_modules)
		return PREFLIGHT_OK;
	snprintf(it->what, sizeof(it->what), "building %s %s%s%s%s%s", built,
		 *pkgs ? "runs " : "", pkgs,
		 *pkgs ? ", which this host lacks" : "",
		 *pkgs && no_modules ? ", and " : "",
		 no_modules ? "needs a /lib/modules (supermin copies the "
			      "guest kernel's modules under it), which this "
			      "host has not"
			    : "");
	snprintf(it->fix, sizeof(it->fix), "%s%s%s%s ('make deps' does %s)",
		 *pkgs ? "apt-get install " : "", pkgs,
		 *pkgs && no_modules ? "; " : "",
		 no_modules ? "mkdir /lib/modules" : "",
		 *pkgs && no_modules ? "both" : "it");
	return PREFLIGHT_MISSING;
}

static enum preflight_verdict check_workload_packages(struct pf *s,
						      struct preflight_item *it)
{
	const struct run_config *cfg = &s->r->cfg;
	char missing[512];
	bool bare = false;
	int ci, ret;

	for (ci = 0; ci < s->r->ncells; ci++)
		bare |= bare_here(s, ci);
	if (!bare || !cfg->wl.packages || !cfg->wl.packages[0])
		return PREFLIGHT_OK;
	ret = s->h->missing_packages(cfg->wl.packages, missing,
				     sizeof(missing));
	if (ret == -ENOENT) {
		warn("cannot check the packages workload '%s' needs (%s): "
		     "no dpkg-query",
		     cfg->wl.name, cfg->wl.packages);
		return PREFLIGHT_OK;
	}
	if (ret < 0) {
		snprintf(it->what, sizeof(it->what),
			 "cannot check the packages of workload '%s': %s",
			 cfg->wl.name, strerror(-ret));
		return PREFLIGHT_MISSING;
	}
	if (!missing[0])
		return PREFLIGHT_OK;
	snprintf(it->what, sizeof(it->what),
		 "bare-metal cells run workload '%s' on this host, which "
		 "lacks packages it needs: %s",
		 cfg->wl.name, missing);
	snprintf(it->fix, sizeof(it->fix),
		 "install them (apt-get install %s), or run guest cells only "
		 "(--set matrix.where=guest --set run.baseline=)",
		 missing);
	return PREFLIGHT_MISSING;
}

/* Bare-metal cells run the workload's commands with the guests' shell. */
static enum preflight_verdict check_shell(struct pf *s,
					  struct preflight_item *it)
{
	const char *bb = layout_busybox();
	bool bare = false;
	int ci, e;

	for (ci = 0; ci < s->r->ncells; ci++)
		bare |= bare_here(s, ci);
	if (!bare || access(bb, X_OK) == 0)
		return PREFLIGHT_OK;
	e = errno;
	snprintf(it->what, sizeof(it->what),
		 "bare-metal cells run workload commands with the guests' "
		 "shell, '%s' (busybox sh), which is missing: %s",
		 bb, strerror(e));
	return PREFLIGHT_MISSING;
}

/* [guest] numa names a node this host has, for guests booted here. */
static enum preflight_verdict check_numa(struct pf *s,
					 struct preflight_item *it)
{
	const struct run *r = s->r;
	struct cpuset cpus;
	bool guest = false;
	int ci, ret;

	if (!strcmp(r->cfg.numa, "none"))
		return PREFLIGHT_OK;
	for (ci = 0; ci < r->ncells; ci++)
		guest |= local_guest(s, ci);
	if (!guest)
		return PREFLIGHT_OK;
	ret = host_numa_node_cpus(s->root, atoi(r->cfg.numa), &cpus);
	if (ret == 0)
		return PREFLIGHT_OK;
	snprintf(it->what, sizeof(it->what),
		 "[guest] numa = %s: %s", r->cfg.numa,
		 ret == -ENOENT ? "this host has no such NUMA node"
				: strerror(-ret));
	return PREFLIGHT_MISSING;
}

/* [run] governor is offered by every cpufreq policy, for cells run here
 * (no cpufreq is not missing: the run records it). */
static enum preflight_verdict check_governor(struct pf *s,
					     struct preflight_item *it)
{
	const char *gov = s->r->cfg.governor;
	char why[PREFLIGHT_TEXT_MAX - 64];
	bool here = false;
	int ci;

	for (ci = 0; ci < s->r->ncells; ci++)
		here |= local_guest(s, ci) || bare_here(s, ci);
	if (!here || !s->ctx || !strcmp(gov, RUN_GOVERNOR_KEEP) ||
	    host_governor_check(s->ctx, gov, why, sizeof(why)) >= 0)
		return PREFLIGHT_OK;
	snprintf(it->what, sizeof(it->what), "[run] governor = %s: %s", gov,
		 why);
	return PREFLIGHT_MISSING;
}

/* A disk scratch directory needs a disk: the tiny image has none. */
static enum preflight_verdict check_scratch(struct pf *s,
					    struct preflight_item *it)
{
	const struct run *r = s->r;
	int ci;

	if (strcmp(r->cfg.wl.scratch, WL_SCRATCH_DISK))
		return PREFLIGHT_OK;
	for (ci = 0; ci < r->ncells; ci++)
		if (r->cells[ci].where != WHERE_BARE &&
		    !disk_image(r->cells[ci].image))
			break;
	if (ci == r->ncells)
		return PREFLIGHT_OK;
	snprintf(it->what, sizeof(it->what),
		 "workload '%s' declares scratch = disk, and cell '%s' boots "
		 "the %s image, which has no disk",
		 r->cfg.wl.name, r->cells[ci].id, r->cells[ci].image);
	return PREFLIGHT_MISSING;
}

static int statvfs_free(const char *path, uint64_t *bytes)
{
	struct statvfs v;

	if (statvfs(path, &v) < 0)
		return -errno;
	*bytes = (uint64_t)v.f_bavail * v.f_frsize;
	return 0;
}

/*
 * The most disk guests of this host up at once, each with its overlay:
 * one for order = cells; otherwise the most in one group of interleaved
 * rounds, grouped as run-rounds.c groups them (rounds-group.h), within the
 * memory budget of ROOT's MemAvailable.
 */
static int disk_guests_at_once(const struct pf *s)
{
	const struct run *r = s->r;
	size_t n = r->ncells > 0 ? (size_t)r->ncells : 1, ng, k, j;
	bool *guest = xcalloc(n, sizeof(*guest));
	bool *waiting = xcalloc(n, sizeof(*waiting));
	unsigned long long budget = 0;
	struct rgroup *gs = NULL;
	int ci, most = 0;
	long kb;

	for (ci = 0; ci < r->ncells; ci++) {
		guest[ci] = run_exec_has(r, ci, EXEC_NEEDS_GUEST);
		waiting[ci] = true;
		if (local_guest(s, ci) && disk_image(r->cells[ci].image))
			most = 1;
	}
	if (!most || !strcmp(r->cfg.order, "cells"))
		goto out;
	if (host_meminfo_kb(s->root, "MemAvailable", &kb) == 0 && kb > 0)
		budget = (unsigned long long)((double)kb * 1024 *
					      ROUNDS_MEM_SHARE);
	ng = rounds_groups_make(r->cells, r->ncells, guest, waiting, budget,
				&gs);
	for (k = 0; k < ng; k++) {
		int disks = 0;

		for (j = 0; j < gs[k].nguests; j++) {
			ci = gs[k].cells[j];
			disks += local_guest(s, ci) &&
				 disk_image(r->cells[ci].image);
		}
		most = disks > most ? disks : most;
	}
	rounds_groups_free(gs, ng);
out:
	free(guest);
	free(waiting);
	return most;
}

static enum preflight_verdict check_disk(struct pf *s,
					 struct preflight_item *it)
{
	char why[PREFLIGHT_TEXT_MAX], fix[PREFLIGHT_TEXT_MAX], *dir, *slash;
	uint64_t need = 0, build = 0, avail;
	int ci = 0, i, overlays = 0;
	struct stat st;

	while ((i = next_files(s->r, &ci)) >= 0) {
		const struct cell *c = &s->r->cells[i];
		int ret = guest_files_check(c->image, c->kernel, c->initrd,
					    s->r->bindir, why, sizeof(why),
					    fix, sizeof(fix));

		if (ret == GUEST_FILES_FIRST_USE)
			build += IMAGE_TINY_BUILD_BYTES;
		else if (ret == GUEST_FILES_UNBUILT)
			build += IMAGE_DEBIAN_BUILD_BYTES;
	}
	overlays = disk_guests_at_once(s);
	need = build + (uint64_t)overlays * IMAGE_OVERLAY_BYTES;
	if (!need)
		return PREFLIGHT_OK;
	/* the nearest directory there is (a fresh tree has no images/) */
	dir = xstrdup(s->images);
	while (stat(dir, &st) < 0 && dir[1] && (slash = strrchr(dir, '/')))
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (s->h->disk_free(dir, &avail) < 0 || avail >= need) {
		free(dir);
		return PREFLIGHT_OK;
	}
	snprintf(it->what, sizeof(it->what),
		 "'%s' has %.1f GiB free, and this run needs %.1f GiB there "
		 "(images to build: %.1f GiB; %d guest overlay%s of up to "
		 "%.1f GiB)",
		 dir, gib(avail), gib(need), gib(build), overlays,
		 overlays == 1 ? "" : "s", gib(IMAGE_OVERLAY_BYTES));
	free(dir);
	return PREFLIGHT_MISSING;
}

static const struct preflight_row preflight_rows[] = {
    {"VT-x/AMD-V", check_virt,
     "run on a host with hardware virtualization (in a VM: nested "
     "virtualization), or use the lab (docs/lab.md), or let the guests "
     "run under TCG (--set guest.accel=auto)"},
    {"/dev/kvm", check_kvm_dev, "load KVM's module for this CPU"},
    {"EPT/NPT paging", check_paging,
     "run where KVM's vendor module can be reloaded"},
    {"CPUs", check_cpus, "lower [guest] vcpus"},
    {"memory", check_memory, "lower [guest] memory"},
    {"hugepages", check_hugepages,
     "mount hugetlbfs with that page size before libvirtd starts ('make "
     "deps' mounts /dev/hugepages, and /dev/hugepages1G where the CPU has "
     "pdpe1gb), or drop that [matrix] backing"},
    {"host knobs", check_knobs,
     "drop the knob from [host], or run where the kernel has it"},
    {"cpufreq governor", check_governor,
     "[run] governor = keep, or run where every cpufreq policy offers it"},
    {"guest image", check_image, "build it (vmtax image build)"},
    {"image build", check_image_build, "'make deps' installs them"},
    {"workload packages", check_workload_packages,
     "install them, or run guest cells only"},
    {"workload shell", check_shell,
     "apt-get install busybox-static, or set BUSYBOX to a static busybox"},
    {"NUMA node", check_numa,
     "name a node in /sys/devices/system/node, or numa = none"},
    {"scratch directory", check_scratch,
     "--set guest.image=debian, or scratch = tmpfs in the workload"},
    {"disk space", check_disk,
     "free space there, or build vmtax where there is room"},
};
_Static_assert(ARRAY_SIZE(preflight_rows) <= PREFLIGHT_MAX_ITEMS,
	       "one item per row at most");

/* ---- the list ---- */

/* What every check shares, read once from S->root. */
static void pf_init(struct pf *s, const struct run *r,
		    const struct preflight_host *h)
{
	struct host_opts o = {0};
	struct host_cpu cpu;
	struct stat st;
	char *path;
	int ci;

	memset(s, 0, sizeof(*s));
	s->r = r;
	s->h = h;
	s->root = h->root ? h->root : "";
	s->remote_libvirt = vm_uri_remote(r->cfg.uri, NULL);
	o.root = h->root; /* NULL: the run's, VMTAX_HOST_ROOT's */
	o.readonly = true;
	if (host_ctx_new(&o, &s->ctx) < 0)
		s->ctx = NULL;
	path = xasprintf("%s/proc/cpuinfo", s->root);
	s->cpu_read = access(path, R_OK) == 0 &&
		      host_cpu_read(s->root, &cpu) == 0;
	free(path);
	s->virt = s->cpu_read ? host_virt_usable(&cpu) : NULL;
	path = xasprintf("%s/sys/module/kvm_pvm", s->root);
	s->pvm = stat(path, &st) == 0;
	free(path);
	/* as run_accel_here() decides it for the run */
	if (!strcmp(r->cfg.accel, "tcg")) {
		s->accel = "tcg";
		snprintf(s->accel_why, sizeof(s->accel_why),
			 "accel = tcg in the config");
	} else {
		s->accel = host_accel_decide(s->root, s->accel_why,
					     sizeof(s->accel_why));
	}
	for (ci = 0; ci < r->ncells; ci++)
		s->kvm_needed |= local_guest(s, ci);
	s->kvm_needed &= !strcmp(r->cfg.accel, "kvm");
	s->images = guest_images_dir_new(r->bindir);
}

static void pf_release(struct pf *s)
{
	host_ctx_free(s->ctx);
	free(s->images);
}

void preflight_check(const struct run *r, const struct preflight_host *h,
		     struct preflight *p)
{
	struct preflight_host hh = *h;
	struct pf s;
	size_t i;

	if (!hh.missing_packages)
		hh.missing_packages = host_missing_packages;
	if (!hh.disk_free)
		hh.disk_free = statvfs_free;
	memset(p, 0, sizeof(*p));
	pf_init(&s, r, &hh);
	for (i = 0; i < ARRAY_SIZE(preflight_rows); i++) {
		struct preflight_item *it = &p->items[p->n];
		enum preflight_verdict v;

		memset(it, 0, sizeof(*it));
		v = preflight_rows[i].check(&s, it);
		if (v == PREFLIGHT_OK)
			continue;
		it->name = preflight_rows[i].name;
		it->verdict = v;
		if (!it->fix[0])
			snprintf(it->fix, sizeof(it->fix), "%s",
				 preflight_rows[i].remedy);
		p->n++;
		if (v == PREFLIGHT_MISSING)
			p->nmissing++;
		else
			p->nskips++;
	}
	pf_release(&s);
}

int run_preflight(const struct run *r)
{
	struct preflight_host h = {0};
	struct preflight p;

	if (r->ncells && run_exec_has(r, 0, EXEC_REMOTE))
		return 0; /* its check() asks the host that runs it */
	preflight_check(r, &h, &p);
	preflight_print(&p, r->cfg.path, stderr);
	return p.nmissing ? -EINVAL : 0;
}
