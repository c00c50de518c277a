// SPDX-License-Identifier: MIT
/*
 * kvm-stats.c - KVM's debugfs counters per guest, their results.json and
 * the sampler; the kvm_exit hist is kvm-exits.c.  See kvm-stats.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* <linux/kvm.h> defines the exception vectors <asm/svm.h>'s table uses. */
#include <linux/kvm.h>
#include <asm/svm.h>
#include <asm/vmx.h>

#include "host.h"
#include "kvm-stats.h"
#include "util.h"

struct exit_reason {
	uint32_t code;
	const char *name;
};

/* The kernel's tables, from the uapi headers: one definition. */
static const struct exit_reason svm_reasons[] = {SVM_EXIT_REASONS};
static const struct exit_reason vmx_reasons[] = {VMX_EXIT_REASONS};

/* KVM's stats (6.1) that are levels, not counts: reported at sample end. */
static const char *const level_counters[] = {
    "pages_4k",
    "pages_2m",
    "pages_1g",
    "mmu_unsync",
    "nx_lpage_splits",
    "max_mmu_rmap_size",
    "max_mmu_page_hash_collisions",
    "blocking",
    "guest_mode",
};

static const char *const page_counters[] = {"pages_4k", "pages_2m", "pages_1g"};


enum virt_vendor kvm_vendor_detect(const char *root)
{
	static const enum virt_vendor order[] = {VIRT_VENDOR_AMD,
						 VIRT_VENDOR_INTEL};
	char path[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		snprintf(path, sizeof(path), "%s/sys/module/%s",
			 kvm_root(root), host_virt_hw(order[i])->module);
		if (stat(path, &st) == 0)
			return order[i];
	}
	return VIRT_VENDOR_NONE;
}

const char *kvm_vendor_name(enum virt_vendor v)
{
	const struct virt_hw *hv = host_virt_hw(v);

	return hv ? hv->flag : "none";
}

static const char *lookup(const struct exit_reason *t, size_t n, uint32_t code)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].name;
	return NULL;
}

const char *kvm_exit_reason_name(enum virt_vendor v, uint32_t code)
{
	const struct virt_hw *hv = host_virt_hw(v);

	if (!hv)
		return NULL;
	/* kvm_amd's exits are SVM's (a Hygon host's too), kvm_intel's VMX's */
	if (hv == host_virt_hw(VIRT_VENDOR_AMD))
		return lookup(svm_reasons, ARRAY_SIZE(svm_reasons), code);
	return lookup(vmx_reasons, ARRAY_SIZE(vmx_reasons), code & 0xffff);
}

bool kvm_counter_cumulative(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(level_counters); i++)
		if (!strcmp(name, level_counters[i]))
			return false;
	return true;
}

/* ---- debugfs snapshots ------------------------------------------------ */

void kvm_snap_init(struct kvm_snap *s)
{
	memset(s, 0, sizeof(*s));
}

void kvm_snap_release(struct kvm_snap *s)
{
	if (!s)
		return;
	free(s->c);
	kvm_snap_init(s);
}

/* "PID-" followed by digits: one VM of PID. */
static bool vm_dir_of(const char *name, pid_t pid)
{
	char prefix[32];
	size_t n = (size_t)snprintf(prefix, sizeof(prefix), "%d-", (int)pid);

	if (strncmp(name, prefix, n) || !name[n])
		return false;
	for (const char *p = name + n; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

int kvm_stats_dirs(const char *root, pid_t pid, char ***dirs, size_t *n)
{
	char *base = xasprintf("%s/sys/kernel/debug/kvm", kvm_root(root));
	char **v = NULL;
	size_t nv = 0;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	*dirs = NULL;
	*n = 0;
	d = opendir(base);
	if (!d) {
		ret = -errno;
		if (ret != -ENOENT && ret != -EACCES && ret != -EPERM)
			err_errno("cannot open '%s'", base);
		goto out;
	}
	while ((de = readdir(d))) {
		if (!vm_dir_of(de->d_name, pid))
			continue;
		v = xrealloc(v, (nv + 1) * sizeof(*v));
		v[nv++] = xasprintf("%s/%s", base, de->d_name);
	}
	closedir(d);
	if (nv)
		qsort(v, nv, sizeof(*v), strv_cmp);
	*dirs = v;
	*n = nv;
out:
	free(base);
	return ret;
}

/* One decimal number and a newline, as debugfs prints a u64 stat. */
static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	while (*end == '\n' || *end == ' ')
		end++;
	return *end ? -EINVAL : 0;
}

/*
 * Empty, or more than one line: a table such as mmu_rmaps_stat (empty with
 * npt=1, four lines with shadow paging), not a counter.
 */
static bool is_table(const char *text)
{
	const char *nl = strchr(text, '\n');

	return !*text || (nl && nl[1]);
}

static struct kvm_counter *snap_find(const struct kvm_snap *s, const char *name)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, s->c[mid].name);

		if (!c)
			return &s->c[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct kvm_counter *)a)->name,
		      ((const struct kvm_counter *)b)->name);
}

/* Add NAME=V to S: summed if S has it (kept sorted by the caller). */
static void snap_add(struct kvm_snap *s, const char *name, uint64_t v)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].name, name)) {
			s->c[i].value += v;
			return;
		}
	/* the caller skips names of KVM_COUNTER_NAME_MAX bytes or more */
	s->c = xrealloc(s->c, (s->n + 1) * sizeof(*s->c));
	memset(s->c[s->n].name, 0, sizeof(s->c[s->n].name));
	memcpy(s->c[s->n].name, name, strnlen(name, KVM_COUNTER_NAME_MAX - 1));
	s->c[s->n++].value = v;
}

static int snap_read_dir(const char *dir, struct kvm_snap *s)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	if (!d)
		return err_errno("cannot open '%s'", dir);
	while ((de = readdir(d))) {
		char *path, *text = NULL;
		struct stat st;
		uint64_t v;
		int r;

		if (de->d_name[0] == '.' ||
		    strlen(de->d_name) >= KVM_COUNTER_NAME_MAX)
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		r = read_file(path, 4096, &text, NULL);
		if (r < 0 || is_table(text)) {
			/* write-only, vanished, or a table (mmu_rmaps_stat) */
			free(text);
			free(path);
			continue;
		}
		r = parse_u64(text, &v);
		if (r < 0)
			ret = err("'%s' is not a counter: '%.40s'", path, text);
		else
			snap_add(s, de->d_name, v);
		free(text);
		free(path);
		if (ret < 0)
			break;
	}
	closedir(d);
	return ret;
}

int kvm_snap_read(const char *root, pid_t pid, struct kvm_snap *s)
{
	char **dirs = NULL;
	size_t n = 0;
	int ret;

	kvm_snap_release(s);
	ret = kvm_stats_dirs(root, pid, &dirs, &n);
	if (ret == -ENOENT) {
		snprintf(s->why, sizeof(s->why),
			 "no %s/sys/kernel/debug/kvm (debugfs not mounted or "
			 "kvm not loaded)",
			 kvm_root(root));
		return 0;
	}
	if (ret == -EACCES || ret == -EPERM) {
		snprintf(s->why, sizeof(s->why),
			 "cannot read %s/sys/kernel/debug/kvm: %s (needs root)",
			 kvm_root(root), strerror(-ret));
		return 0;
	}
	if (ret < 0)
		return ret;
	if (!n) {
		snprintf(s->why, sizeof(s->why),
			 "no KVM VM of pid %d in %s/sys/kernel/debug/kvm "
			 "(not a KVM guest, or its QEMU exited)",
			 (int)pid, kvm_root(root));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		ret = snap_read_dir(dirs[i], s);
		if (ret < 0) {
			kvm_snap_release(s);
			goto out;
		}
	}
	if (s->n)
		qsort(s->c, s->n, sizeof(*s->c), cmp_counter);
	s->ndirs = n;
	s->available = true;
out:
	strv_free(dirs, n);
	return ret;
}

int kvm_snap_get(const struct kvm_snap *s, const char *name, uint64_t *v)
{
	const struct kvm_counter *c = s->available ? snap_find(s, name) : NULL;

	if (!c)
		return -ENOENT;
	*v = c->value;
	return 0;
}

int kvm_snap_delta(const struct kvm_snap *a, const struct kvm_snap *b,
		   struct kvm_snap *d)
{
	kvm_snap_release(d);
	if (!a->available || !b->available)
		return err("kvm counters: delta of an unavailable snapshot");
	for (size_t i = 0; i < b->n; i++) {
		const struct kvm_counter *cb = &b->c[i];
		const struct kvm_counter *ca = snap_find(a, cb->name);

		if (!ca || !kvm_counter_cumulative(cb->name))
			continue;
		if (cb->value < ca->value) {
			kvm_snap_release(d);
			return err_code(-ERANGE,
					"kvm counter '%s' went back from "
					"%" PRIu64 " to %" PRIu64,
					cb->name, ca->value, cb->value);
		}
		/* b is sorted, so d is too */
		d->c = xrealloc(d->c, (d->n + 1) * sizeof(*d->c));
		d->c[d->n] = *cb;
		d->c[d->n++].value = cb->value - ca->value;
	}
	d->ndirs = b->ndirs;
	d->available = true;
	return 0;
}

/* ---- results.json ------------------------------------------------------- */

static int cmp_count_desc(const void *a, const void *b)
{
	const struct kvm_exit_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->code < y->code ? -1 : x->code > y->code;
}

static json_t *exits_json(const struct kvm_exits *d)
{
	struct kvm_exit_count *e = xmalloc((d->n ? d->n : 1) * sizeof(*e));
	json_t *arr = json_array();

	if (d->n) {
		memcpy(e, d->e, d->n * sizeof(*e));
		qsort(e, d->n, sizeof(*e), cmp_count_desc);
	}
	for (size_t i = 0; i < d->n; i++) {
		const char *name = kvm_exit_reason_name(d->vendor, e[i].code);

		json_array_append_new(
		    arr, json_pack("{s:o,s:I,s:I}", "reason",
				   name ? json_string(name) : json_null(),
				   "code", (json_int_t)e[i].code, "count",
				   (json_int_t)e[i].count));
	}
	free(e);
	return arr;
}

static json_t *uint_json(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX
						    : (json_int_t)v);
}

static void kvm_null(json_t *observed, const char *why)
{
	json_object_set_new(observed, "kvm", json_null());
	json_object_set_new(observed, "kvm_why", json_string(why));
}

/* The page counters and the other gauges of B (at the end) into KVM. */
static void kvm_gauges_json(const struct kvm_snap *b, json_t *kvm)
{
	json_t *at_end = json_object();

	for (size_t i = 0; i < ARRAY_SIZE(page_counters); i++) {
		uint64_t v;

		json_object_set_new(kvm, page_counters[i],
				    kvm_snap_get(b, page_counters[i], &v)
					? json_null()
					: uint_json(v));
	}
	for (size_t i = 0; i < b->n; i++) {
		bool page = false;

		for (size_t j = 0; j < ARRAY_SIZE(page_counters); j++)
			page |= !strcmp(b->c[i].name, page_counters[j]);
		if (!page && !kvm_counter_cumulative(b->c[i].name))
			json_object_set_new(at_end, b->c[i].name,
					    uint_json(b->c[i].value));
	}
	json_object_set_new(kvm, "at_end", at_end);
}

/* The exits by reason from EA to EB into KVM, or null and why not. */
static int kvm_exits_json(const struct kvm_exits *ea,
			  const struct kvm_exits *eb, json_t *kvm)
{
	struct kvm_exits dx;
	int ret;

	if (!ea || !eb || !ea->available || !eb->available) {
		const char *why = !eb || !ea ? "exits by reason not collected"
				  : !eb->available ? eb->why
						   : ea->why;

		json_object_set_new(kvm, "exits_by_reason", json_null());
		json_object_set_new(kvm, "exits_by_reason_why",
				    json_string(why));
		return 0;
	}
	kvm_exits_init(&dx);
	ret = kvm_exits_delta(ea, eb, &dx);
	if (ret == 0) {
		json_object_set_new(kvm, "exits_vendor",
				    json_string(kvm_vendor_name(dx.vendor)));
		json_object_set_new(kvm, "exits_total", uint_json(dx.total));
		json_object_set_new(kvm, "exits_dropped",
				    uint_json(dx.dropped));
		json_object_set_new(kvm, "exits_by_reason", exits_json(&dx));
	}
	kvm_exits_release(&dx);
	return ret;
}

int kvm_sample_json(const struct kvm_snap *a, const struct kvm_snap *b,
		    const struct kvm_exits *ea, const struct kvm_exits *eb,
		    json_t *observed)
{
	struct kvm_snap d;
	json_t *kvm = NULL, *delta;
	int ret;

	kvm_snap_init(&d);
	json_object_del(observed, "kvm_why");
	if (!a->available || !b->available) {
		kvm_null(observed, !b->available ? b->why : a->why);
		return 0;
	}
	ret = kvm_snap_delta(a, b, &d);
	if (ret < 0)
		goto out;
	kvm = json_object();
	json_object_set_new(kvm, "vms", json_integer((json_int_t)b->ndirs));
	kvm_gauges_json(b, kvm);
	delta = json_object();
	for (size_t i = 0; i < d.n; i++)
		json_object_set_new(delta, d.c[i].name,
				    uint_json(d.c[i].value));
	json_object_set_new(kvm, "delta", delta);
	ret = kvm_exits_json(ea, eb, kvm);
	if (ret < 0)
		goto out;
	json_object_set_new(observed, "kvm", kvm);
	kvm = NULL;
out:
	json_decref(kvm);
	kvm_snap_release(&d);
	return ret;
}

/* ---- the sampler -------------------------------------------------------- */

struct kvm_sampler {
	char *root;
	pid_t pid;
	struct kvm_exit_hist hist;
	struct kvm_snap s0, s1;
	struct kvm_exits e0, e1;
	bool begun;
};

int kvm_sampler_new(const char *root, pid_t pid, struct kvm_sampler **out)
{
	struct kvm_sampler *k = xcalloc(1, sizeof(*k));
	int ret;

	*out = NULL;
	k->root = xstrdup(kvm_root(root));
	k->pid = pid;
	kvm_snap_init(&k->s0);
	kvm_snap_init(&k->s1);
	kvm_exits_init(&k->e0);
	kvm_exits_init(&k->e1);
	ret = kvm_exit_hist_start(k->root, pid, &k->hist);
	if (ret < 0) {
		kvm_sampler_free(k);
		return ret;
	}
	*out = k;
	return 0;
}

int kvm_sampler_begin(struct kvm_sampler *k)
{
	int ret = kvm_snap_read(k->root, k->pid, &k->s0);

	if (ret == 0)
		ret = kvm_exit_hist_read(&k->hist, &k->e0);
	k->begun = ret == 0;
	return ret;
}

int kvm_sampler_end(struct kvm_sampler *k, json_t *observed)
{
	int ret;

	if (!k->begun)
		return err("kvm sampler: end without a begin");
	k->begun = false;
	ret = kvm_snap_read(k->root, k->pid, &k->s1);
	if (ret == 0)
		ret = kvm_exit_hist_read(&k->hist, &k->e1);
	if (ret == 0)
		ret = kvm_sample_json(&k->s0, &k->s1, &k->e0, &k->e1, observed);
	return ret;
}

void kvm_sampler_free(struct kvm_sampler *k)
{
	if (!k)
		return;
	if (kvm_exit_hist_stop(&k->hist) < 0)
		err("the kvm_exit hist trigger of pid %d may remain",
		    (int)k->pid);
	kvm_snap_release(&k->s0);
	kvm_snap_release(&k->s1);
	kvm_exits_release(&k->e0);
	kvm_exits_release(&k->e1);
	free(k->root);
	free(k);
}
