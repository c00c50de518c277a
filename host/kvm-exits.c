// SPDX-License-Identifier: MIT
/*
 * kvm-exits.c - KVM's exits by reason per guest: a tracefs hist trigger on
 * kvm:kvm_exit for the guest's tasks, read and parsed; see kvm-stats.h.
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

#include "kvm-stats.h"
#include "util.h"

/* A trigger command is one write of less than a page. */
#define TRIGGER_MAX 4095
#define HIST_MAX (4 << 20)
#define EXIT_KEY "exit_reason"

/* ---- kvm_exit hist ----------------------------------------------------- */

void kvm_exits_init(struct kvm_exits *x)
{
	memset(x, 0, sizeof(*x));
}

void kvm_exits_release(struct kvm_exits *x)
{
	enum virt_vendor v;

	if (!x)
		return;
	v = x->vendor;
	free(x->e);
	kvm_exits_init(x);
	x->vendor = v;
}

/* S without blanks, into a new string. */
static char *squeeze_new(const char *s, size_t n)
{
	char *out = xmalloc(n + 1), *o = out;

	for (size_t i = 0; i < n && s[i]; i++)
		if (!isspace((unsigned char)s[i]))
			*o++ = s[i];
	*o = '\0';
	return out;
}

/*
 * "# trigger info: hist:keys=K:vals=...:size=N [if FILTER] [active]": does
 * it key on exit_reason alone with FILTER (NULL: any)?
 */
static bool trigger_is_ours(const char *info, size_t len, const char *filter)
{
	const char *keys = NULL, *end = info + len, *f;
	char *want, *have;
	bool ok;

	for (const char *p = info; p + 5 <= end; p++)
		if (!strncmp(p, "keys=", 5)) {
			keys = p + 5;
			break;
		}
	if (!keys || (size_t)(end - keys) < strlen(EXIT_KEY) ||
	    strncmp(keys, EXIT_KEY, strlen(EXIT_KEY)) ||
	    (keys[strlen(EXIT_KEY)] != ':' && keys + strlen(EXIT_KEY) != end))
		return false;
	if (!filter)
		return true;
	/* the filter runs from " if " to the " [active]"/" [paused]" tag */
	f = NULL;
	for (const char *p = keys; p + 4 <= end; p++)
		if (!strncmp(p, " if ", 4)) {
			f = p + 4;
			break;
		}
	if (!f)
		return !*filter;
	while (end > f && isspace((unsigned char)end[-1]))
		end--;
	if (end > f && end[-1] == ']')
		while (end > f && *--end != '[')
			;
	want = squeeze_new(filter, strlen(filter));
	have = squeeze_new(f, (size_t)(end - f));
	ok = !strcmp(want, have);
	free(want);
	free(have);
	return ok;
}

static int exits_add(struct kvm_exits *x, uint32_t code, uint64_t count)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->e[i].code == code) {
			x->e[i].count += count;
			return 0;
		}
	x->e = xrealloc(x->e, (x->n + 1) * sizeof(*x->e));
	x->e[x->n].code = code;
	x->e[x->n++].count = count;
	return 0;
}

static int cmp_exit_code(const void *a, const void *b)
{
	uint32_t x = ((const struct kvm_exit_count *)a)->code;
	uint32_t y = ((const struct kvm_exit_count *)b)->code;

	return x < y ? -1 : x > y;
}

/* Skip blanks; then an unsigned decimal, or -EINVAL. */
static int scan_u64(const char **p, const char *end, uint64_t *v)
{
	uint64_t n = 0;
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == end || !isdigit((unsigned char)*s))
		return -EINVAL;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*v = n;
	return 0;
}

/* "{ exit_reason:        124 } hitcount:          1" */
static int parse_entry(const char *l, const char *end, uint32_t *code,
		       uint64_t *count)
{
	const char *p = l + 1;
	uint64_t c;

	while (p < end && *p == ' ')
		p++;
	if ((size_t)(end - p) < strlen(EXIT_KEY ":") ||
	    strncmp(p, EXIT_KEY ":", strlen(EXIT_KEY ":")))
		return -EINVAL;
	p += strlen(EXIT_KEY ":");
	if (scan_u64(&p, end, &c) < 0 || c > UINT32_MAX)
		return -EINVAL;
	while (p < end && *p == ' ')
		p++;
	if (p == end || *p != '}')
		return -EINVAL;
	p++;
	while (p < end && *p == ' ')
		p++;
	if ((size_t)(end - p) < strlen("hitcount:") ||
	    strncmp(p, "hitcount:", strlen("hitcount:")))
		return -EINVAL;
	p += strlen("hitcount:");
	if (scan_u64(&p, end, count) < 0)
		return -EINVAL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p != end)
		return -EINVAL;
	*code = (uint32_t)c;
	return 0;
}

static bool starts(const char *l, const char *end, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(end - l) >= n && !strncmp(l, s, n);
}

/*
 * One line of our table (P..END, leading blanks skipped): an entry, or the
 * Totals block.  Returns NULL, or what is wrong with the line.
 */
static const char *hist_line(const char *p, const char *end, bool *totals,
			     uint64_t *hits, struct kvm_exits *x)
{
	static const char *const totals_keys[] = {
	    "Hits:", "Entries:", "Dropped:"};
	uint64_t v;

	if (*p == '{') {
		uint32_t code;
		uint64_t count;

		if (*totals || parse_entry(p, end, &code, &count) < 0)
			return "not an exit_reason entry";
		if (x->total + count < x->total)
			return "total overflows";
		exits_add(x, code, count);
		x->total += count;
		return NULL;
	}
	if (starts(p, end, "Totals:")) {
		*totals = true;
		return NULL;
	}
	for (size_t i = 0; *totals && i < ARRAY_SIZE(totals_keys); i++) {
		if (!starts(p, end, totals_keys[i]))
			continue;
		p += strlen(totals_keys[i]);
		if (scan_u64(&p, end, &v) < 0)
			return "unexpected line";
		if (i == 0)
			*hits = v;
		else if (i == 2)
			x->dropped = v;
		return NULL;
	}
	return "unexpected line";
}

/* Where the scan of a hist file is: before, in or past our table. */
struct hist_scan {
	enum { BEFORE, IN_OURS, DONE } state;
	bool totals;   /* the table's Totals were seen */
	uint64_t hits; /* and said this many hits */
};

/* The lines of our table (the one keyed as FILTER says) of TEXT into X. */
static int hist_scan(const char *text, const char *filter,
		     struct kvm_exits *x, struct hist_scan *sc)
{
	const char *l = text, *end;
	unsigned lineno = 0;

	for (; *l; l = *end ? end + 1 : end) {
		const char *p, *bad;

		end = strchr(l, '\n');
		if (!end)
			end = l + strlen(l);
		lineno++;
		p = l;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (starts(p, end, "# trigger info:")) {
			if (sc->state == IN_OURS)
				sc->state = DONE;
			else if (sc->state == BEFORE &&
				 trigger_is_ours(p, (size_t)(end - p), filter))
				sc->state = IN_OURS;
			continue;
		}
		if (sc->state != IN_OURS || p == end || *p == '#')
			continue;
		bad = hist_line(p, end, &sc->totals, &sc->hits, x);
		if (bad)
			return err("kvm_exit hist: line %u: %s: '%.*s'", lineno,
				   bad, (int)(end - p > 80 ? 80 : end - p), p);
	}
	return 0;
}

int kvm_exits_parse(const char *text, const char *filter, struct kvm_exits *x)
{
	struct hist_scan sc = {.state = BEFORE};
	int ret;

	kvm_exits_release(x);
	ret = hist_scan(text, filter, x, &sc);
	if (ret < 0)
		goto out;
	if (sc.state == BEFORE) {
		kvm_exits_release(x);
		snprintf(x->why, sizeof(x->why),
			 "no kvm_exit hist table keyed on exit_reason%s%s",
			 filter ? " with filter " : "", filter ? filter : "");
		return 0;
	}
	/*
	 * The kernel counts a hit before it updates the entry, and prints
	 * Hits after the entries: on a running guest Hits can be ahead of
	 * their sum, never behind.
	 */
	if (!sc.totals || sc.hits < x->total) {
		ret = err("kvm_exit hist: %s (entries sum to %" PRIu64
			  ", Hits: %" PRIu64 ")",
			  sc.totals ? "entries sum to more than the hits"
				    : "table has no Totals",
			  x->total, sc.hits);
		goto out;
	}
	if (x->n)
		qsort(x->e, x->n, sizeof(*x->e), cmp_exit_code);
	x->available = true;
out:
	if (ret < 0)
		kvm_exits_release(x);
	return ret;
}

int kvm_exits_delta(const struct kvm_exits *a, const struct kvm_exits *b,
		    struct kvm_exits *d)
{
	kvm_exits_release(d);
	if (!a->available || !b->available)
		return err("kvm exits: delta of an unavailable hist");
	d->vendor = b->vendor;
	for (size_t i = 0; i < b->n; i++) {
		uint64_t before = 0;

		for (size_t j = 0; j < a->n; j++)
			if (a->e[j].code == b->e[i].code)
				before = a->e[j].count;
		if (b->e[i].count < before) {
			kvm_exits_release(d);
			return err_code(-ERANGE,
					"kvm exit reason %" PRIu32
					" went back from %" PRIu64
					" to %" PRIu64,
					b->e[i].code, before, b->e[i].count);
		}
		if (b->e[i].count > before)
			exits_add(d, b->e[i].code, b->e[i].count - before);
	}
	for (size_t i = 0; i < d->n; i++)
		d->total += d->e[i].count;
	d->dropped = b->dropped >= a->dropped ? b->dropped - a->dropped : 0;
	d->available = true;
	return 0;
}

/* The first of ROOT/sys/kernel/tracing and ROOT/sys/kernel/debug/tracing
 * with events/kvm/kvm_exit, as "ROOT/.../events/kvm/kvm_exit", or NULL. */
static char *kvm_exit_dir_new(const char *root)
{
	static const char *const bases[] = {"/sys/kernel/tracing",
					    "/sys/kernel/debug/tracing"};

	for (size_t i = 0; i < ARRAY_SIZE(bases); i++) {
		char *d = xasprintf("%s%s/events/kvm/kvm_exit",
				    kvm_root(root), bases[i]);
		struct stat st;

		if (stat(d, &st) == 0 && S_ISDIR(st.st_mode))
			return d;
		free(d);
	}
	return NULL;
}

/* "common_pid==T1||common_pid==T2..." for the tasks of PID. */
static int task_filter(const char *root, pid_t pid, char **out)
{
	char *dir = xasprintf("%s/proc/%d/task", kvm_root(root), (int)pid);
	char **tids = NULL, *f = NULL;
	size_t n = 0, len = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int ret = 0;

	*out = NULL;
	if (!d) {
		ret = -errno;
		goto out;
	}
	while ((de = readdir(d))) {
		char *e;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		strtol(de->d_name, &e, 10);
		if (*e)
			continue;
		tids = xrealloc(tids, (n + 1) * sizeof(*tids));
		tids[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (!n) {
		ret = -ESRCH;
		goto out;
	}
	qsort(tids, n, sizeof(*tids), strv_cmp);
	for (size_t i = 0; i < n; i++)
		len += strlen(tids[i]) + strlen("common_pid==||");
	f = xmalloc(len + 1);
	f[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(f, "||");
		strcat(f, "common_pid==");
		strcat(f, tids[i]);
	}
	*out = f;
out:
	strv_free(tids, n);
	free(dir);
	return ret;
}

/* Append CMD to the trigger file: O_APPEND, never O_TRUNC (see header). */
static int trigger_write(const char *path, const char *cmd)
{
	size_t n = strlen(cmd);
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, cmd, n);
	if (w < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

static void hist_clear(struct kvm_exit_hist *h)
{
	free(h->trigger);
	free(h->hist);
	free(h->filter);
	free(h->spec);
	h->trigger = h->hist = h->filter = h->spec = NULL;
	h->active = false;
}

int kvm_exit_hist_start(const char *root, pid_t pid, struct kvm_exit_hist *h)
{
	char *dir = kvm_exit_dir_new(root);
	int r;

	memset(h, 0, sizeof(*h));
	h->vendor = kvm_vendor_detect(root);
	if (!dir) {
		snprintf(h->why, sizeof(h->why),
			 "no kvm:kvm_exit event under %s/sys/kernel/tracing or "
			 "%s/sys/kernel/debug/tracing (tracefs not mounted or "
			 "kvm not loaded)",
			 kvm_root(root), kvm_root(root));
		return 0;
	}
	h->trigger = xasprintf("%s/trigger", dir);
	h->hist = xasprintf("%s/hist", dir);
	free(dir);
	r = task_filter(root, pid, &h->filter);
	if (r < 0) {
		snprintf(h->why, sizeof(h->why),
			 "cannot list the tasks of pid %d: %s", (int)pid,
			 strerror(-r));
		goto unavailable;
	}
	h->spec =
	    xasprintf("hist:keys=" EXIT_KEY ":vals=hitcount if %s", h->filter);
	if (strlen(h->spec) > TRIGGER_MAX) {
		snprintf(h->why, sizeof(h->why),
			 "the kvm_exit filter for the tasks of pid %d is %zu "
			 "bytes, more than a trigger write takes (%d)",
			 (int)pid, strlen(h->spec), TRIGGER_MAX);
		goto unavailable;
	}
	r = trigger_write(h->trigger, h->spec);
	if (r == -EEXIST) {
		note("adopting an existing kvm_exit hist trigger for pid %d",
		     (int)pid);
		r = 0;
	}
	switch (r) {
	case 0:
		h->active = true;
		return 0;
	case -EACCES:
	case -EPERM:
	case -ENOENT:
	case -EROFS:
		snprintf(h->why, sizeof(h->why), "cannot write '%s': %s",
			 h->trigger, strerror(-r));
		goto unavailable;
	case -EINVAL:
	case -ENODEV:
	case -ENOSYS:
		snprintf(h->why, sizeof(h->why),
			 "'%s' refused a hist trigger: %s (kernel without "
			 "CONFIG_HIST_TRIGGERS?)",
			 h->trigger, strerror(-r));
		goto unavailable;
	default:
		r = err_code(r,
			     "cannot install a kvm_exit hist trigger in '%s'",
			     h->trigger);
		hist_clear(h);
		return r;
	}
unavailable:
	hist_clear(h);
	return 0;
}

int kvm_exit_hist_read(const struct kvm_exit_hist *h, struct kvm_exits *x)
{
	char *text = NULL;
	int ret;

	kvm_exits_release(x);
	x->vendor = h->vendor;
	if (!h->active) {
		snprintf(x->why, sizeof(x->why), "%s",
			 h->why[0] ? h->why : "no kvm_exit hist trigger");
		return 0;
	}
	ret = read_file(h->hist, HIST_MAX, &text, NULL);
	if (ret < 0)
		return err_code(ret, "cannot read '%s'", h->hist);
	ret = kvm_exits_parse(text, h->filter, x);
	if (ret < 0)
		err("in '%s'", h->hist);
	else if (!x->available)
		snprintf(x->why, sizeof(x->why),
			 "our kvm_exit hist trigger is gone from '%s'",
			 h->hist);
	free(text);
	return ret;
}

int kvm_exit_hist_stop(struct kvm_exit_hist *h)
{
	int ret = 0;

	if (h->active) {
		char *cmd = xasprintf("!%s", h->spec);
		int r = trigger_write(h->trigger, cmd);

		/* -ENOENT: someone removed it already */
		if (r < 0 && r != -ENOENT)
			ret = err_code(r,
				       "cannot remove the kvm_exit hist "
				       "trigger from '%s'",
				       h->trigger);
		free(cmd);
	}
	hist_clear(h);
	return ret;
}

