// SPDX-License-Identifier: MIT
#include "profile-sample.h"
#include "util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RING_PAGES 128	     /* data pages per CPU: 512 KiB */
#define RAW_MAX (256u << 20) /* raw records kept at most */
/* Past this much, records older than FLUSH_LAG_NS are folded already. */
#ifndef FLUSH_AT
#define FLUSH_AT (16u << 20)
#endif
#define FLUSH_LAG_NS 1000000000ull
#define MAX_CPUS 1024
#define SAMPLE_TYPE                                                            \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CALLCHAIN)

struct ring {
	int fd;
	void *base;
	size_t size; /* data area, a power of two */
	bool hup;    /* its task is gone: not polled any more */
};

struct decoder;
static struct decoder *decoder_new(struct symbolizer *sym, struct profile *p);
static void decoder_free(struct decoder *d);
static void decode_until(struct decoder *d, const unsigned char *base,
			 size_t len, uint64_t lag_ns, char **rest,
			 size_t *rest_len);
static void decode_done(struct profile *p);

struct profile_sampler {
	struct ring *rings;
	size_t nrings;
	char *raw;
	size_t len, cap;
	uint64_t dropped; /* records that did not fit in RAW_MAX */
	struct profile *p;
	struct symbolizer *sym, *own_sym;
	struct decoder *dec; /* state across flushes: tasks, mappings */
};

static int sample_open(pid_t pid, int cpu, bool cycles, bool kernel, double hz)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = cycles ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	attr.config =
	    cycles ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = (uint64_t)hz;
	attr.sample_type = SAMPLE_TYPE;
	/* readable when half full: the runner sleeps until then */
	attr.watermark = 1;
	attr.wakeup_watermark = RING_PAGES * sysconf(_SC_PAGESIZE) / 2;
	attr.disabled = 1;
	attr.inherit = 1;
	attr.enable_on_exec = 1;
	attr.mmap = 1;
	attr.comm = 1;
	attr.task = 1;
	attr.sample_id_all = 1;
	attr.exclude_hv = 1;
	attr.exclude_kernel = !kernel;
	attr.exclude_callchain_kernel = !kernel;
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Open one event per CPU.  Returns how many opened, or a negative errno
 * when none did (the first CPU's error).
 */
static long open_all(struct profile_sampler *s, pid_t pid, bool cycles,
		     bool kernel, double hz)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF), opened = 0;
	int first = 0;

	if (ncpu < 1 || ncpu > MAX_CPUS)
		ncpu = ncpu < 1 ? 1 : MAX_CPUS;
	s->rings = xcalloc(ncpu, sizeof(*s->rings));
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = sample_open(pid, cpu, cycles, kernel, hz);
		size_t psz = (size_t)sysconf(_SC_PAGESIZE);
		void *base;

		if (fd < 0) {
			if (!first && fd != -ENODEV)
				first = fd;
			continue;
		}
		base = mmap(NULL, (RING_PAGES + 1) * psz,
			    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) {
			if (!first)
				first = -errno;
			close(fd);
			continue;
		}
		s->rings[s->nrings++] =
		    (struct ring){fd, base, RING_PAGES * psz, false};
		opened++;
	}
	if (!opened) {
		free(s->rings);
		s->rings = NULL;
		return first ? first : -ENODEV;
	}
	return opened;
}

struct profile_sampler *profile_sampler_open(pid_t pid, double freq_hz,
					     struct symbolizer *sym)
{
	struct profile_sampler *s = xcalloc(1, sizeof(*s));
	long r;

	s->p = profile_new();
	s->sym = sym ? sym : (s->own_sym = symbolizer_new(NULL, false));
	s->dec = decoder_new(s->sym, s->p);
	s->p->freq_hz = freq_hz;
	r = open_all(s, pid, true, true, freq_hz);
	if (r > 0) {
		s->p->event = xstrdup("cycles");
		s->p->kernel = true;
		return s;
	}
	r = open_all(s, pid, false, true, freq_hz);
	if (r == -EACCES || r == -EPERM) {
		profile_note_missing(s->p,
				     "kernel frames: sampling the kernel is "
				     "not allowed (perf_event_paranoid)");
		r = open_all(s, pid, false, false, freq_hz);
	} else if (r > 0) {
		s->p->kernel = true;
	}
	if (r > 0)
		s->p->event = xstrdup("cpu-clock");
	else
		profile_note_missing(s->p, "cannot sample: perf_event_open: %s",
				     strerror((int)-r));
	return s;
}

static void raw_append(struct profile_sampler *s, const char *p, size_t n)
{
	if (s->len + n > RAW_MAX) {
		s->dropped++;
		return;
	}
	if (s->len + n > s->cap) {
		while (s->len + n > s->cap)
			s->cap = s->cap ? s->cap * 2 : 1 << 20;
		s->raw = xrealloc(s->raw, s->cap);
	}
	memcpy(s->raw + s->len, p, n);
	s->len += n;
}

size_t profile_sampler_nfds(const struct profile_sampler *s)
{
	return s ? s->nrings : 0;
}

size_t profile_sampler_pollfds(const struct profile_sampler *s,
			       struct pollfd *pfd, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; s && i < s->nrings && n < max; i++)
		if (!s->rings[i].hup)
			pfd[n++] = (struct pollfd){s->rings[i].fd, POLLIN, 0};
	return n;
}

void profile_sampler_drain(struct profile_sampler *s, const struct pollfd *pfd,
			   size_t npfd)
{
	for (size_t k = 0; s && k < npfd; k++)
		for (size_t i = 0; i < s->nrings; i++)
			if (s->rings[i].fd == pfd[k].fd &&
			    (pfd[k].revents & (POLLHUP | POLLERR | POLLNVAL)))
				s->rings[i].hup = true;
	for (size_t i = 0; s && i < s->nrings; i++) {
		struct ring *r = &s->rings[i];
		struct perf_event_mmap_page *meta = r->base;
		const char *data = (const char *)r->base + meta->data_offset;
		uint64_t head =
		    __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = meta->data_tail;

		if (!meta->data_offset) /* kernels before 4.1 */
			data = (const char *)r->base + sysconf(_SC_PAGESIZE);
		if (head - tail > r->size) /* cannot happen: resync */
			tail = head - r->size;
		while (tail < head) {
			size_t off = tail & (r->size - 1);
			size_t n = head - tail;

			if (n > r->size - off)
				n = r->size - off;
			raw_append(s, data + off, n);
			tail += n;
		}
		__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	}
	/* A long run: fold what is surely complete, keep memory bounded. */
	if (s && s->len > FLUSH_AT) {
		char *rest = NULL;
		size_t n = 0;

		decode_until(s->dec, (unsigned char *)s->raw, s->len,
			     FLUSH_LAG_NS, &rest, &n);
		free(s->raw);
		s->raw = rest;
		s->len = s->cap = n;
	}
}

void profile_sampler_free(struct profile_sampler *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nrings; i++) {
		munmap(s->rings[i].base,
		       s->rings[i].size + (size_t)sysconf(_SC_PAGESIZE));
		close(s->rings[i].fd);
	}
	free(s->rings);
	free(s->raw);
	decoder_free(s->dec);
	symbolizer_free(s->own_sym);
	profile_free(s->p);
	free(s);
}

struct profile *profile_sampler_finish(struct profile_sampler *s)
{
	struct profile *p;

	profile_sampler_drain(s, NULL, 0);
	decode_until(s->dec, (unsigned char *)s->raw, s->len, 0, NULL, NULL);
	p = s->p;
	s->p = NULL;
	decode_done(p);
	if (s->dropped)
		profile_note_missing(p,
				     "%llu chunks of records beyond %u MiB "
				     "were not kept",
				     (unsigned long long)s->dropped,
				     RAW_MAX >> 20);
	profile_sampler_free(s);
	return p;
}

/* ---- decoding ---- */

struct map {
	uint64_t start, len, pgoff;
	char *path;
};

struct task {
	uint32_t id;
	char comm[17];
	struct map *maps; /* meaningful for a process (id == pid) */
	size_t nmaps;
};

struct decoder {
	struct task **tasks; /* open addressing by id, hcap slots */
	size_t ntasks, hcap;
	struct symbolizer *sym;
	struct profile *p;
};

struct rec {
	const unsigned char *at;
	uint64_t time;
	size_t seq;
	uint32_t type;
	uint16_t misc, size;
};

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static size_t task_slot(struct task **tab, size_t cap, uint32_t id)
{
	size_t h = (id * 2654435761u) & (cap - 1);

	while (tab[h] && tab[h]->id != id)
		h = (h + 1) & (cap - 1);
	return h;
}

static struct task *task_get(struct decoder *d, uint32_t id)
{
	size_t h;

	if ((d->ntasks + 1) * 2 > d->hcap) {
		size_t ncap = d->hcap ? d->hcap * 2 : 64;
		struct task **tab = xcalloc(ncap, sizeof(*tab));

		for (size_t i = 0; i < d->hcap; i++)
			if (d->tasks[i])
				tab[task_slot(tab, ncap, d->tasks[i]->id)] =
				    d->tasks[i];
		free(d->tasks);
		d->tasks = tab;
		d->hcap = ncap;
	}
	h = task_slot(d->tasks, d->hcap, id);
	if (!d->tasks[h]) {
		d->tasks[h] = xcalloc(1, sizeof(struct task));
		d->tasks[h]->id = id;
		d->ntasks++;
	}
	return d->tasks[h];
}

static void maps_clear(struct task *t)
{
	for (size_t i = 0; i < t->nmaps; i++)
		free(t->maps[i].path);
	free(t->maps);
	t->maps = NULL;
	t->nmaps = 0;
}

static void map_add(struct task *t, uint64_t start, uint64_t len,
		    uint64_t pgoff, const char *path)
{
	t->maps = xrealloc(t->maps, (t->nmaps + 1) * sizeof(*t->maps));
	t->maps[t->nmaps++] = (struct map){start, len, pgoff, xstrdup(path)};
}

static const struct map *map_find(const struct task *t, uint64_t addr)
{
	/* the newest mapping wins where they overlap */
	for (size_t i = t->nmaps; i-- > 0;)
		if (addr >= t->maps[i].start &&
		    addr - t->maps[i].start < t->maps[i].len)
			return &t->maps[i];
	return NULL;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A string field of at most N bytes at P: copied NUL-terminated to OUT. */
static void str_field(const unsigned char *p, size_t n, char *out, size_t len)
{
	size_t k = 0;

	while (k < n && k + 1 < len && p[k])
		k++;
	memcpy(out, p, k);
	out[k] = '\0';
}

/* The function at address A, in the kernel or in PROC's mappings. */
static const char *symbolize(struct decoder *d, struct task *proc,
			     bool kernel_ctx, uint64_t a)
{
	const struct map *m;

	if (kernel_ctx)
		return symbolizer_kernel(d->sym, d->p, a);
	m = map_find(proc, a);
	if (m)
		return symbolizer_user(d->sym, d->p, m->path,
				       a - m->start + m->pgoff);
	profile_note_missing(d->p, "user addresses outside any mapping seen");
	return PROFILE_UNKNOWN;
}

/*
 * The NR addresses of the call chain at CHAIN, leaf first, into LEAF
 * (PROFILE_MAX_DEPTH at most); how many.  *KERNEL_CTX follows the chain's
 * context markers; *UNKNOWN when a frame has no name.
 */
static size_t sample_chain(struct decoder *d, struct task *proc,
			   const unsigned char *chain, uint64_t nr,
			   bool *kernel_ctx, const char **leaf, bool *unknown)
{
	size_t nleaf = 0;

	for (uint64_t i = 0; i < nr && nleaf < PROFILE_MAX_DEPTH; i++) {
		uint64_t a = get64(chain + i * 8);
		const char *name;

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			*kernel_ctx = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		/* return addresses point after the call: look up the call */
		if (nleaf)
			a--;
		name = symbolize(d, proc, *kernel_ctx, a);
		*unknown |= !strcmp(name, PROFILE_UNKNOWN);
		leaf[nleaf++] = name;
		/* glibc's start code has no frame pointers: what the kernel
		 * found above it is not a caller (only _start is) */
		if (!*kernel_ctx &&
		    (!strcmp(name, "__libc_start_call_main") ||
		     !strcmp(name, "__libc_start_main")))
			break;
	}
	return nleaf;
}

static void on_sample(struct decoder *d, const struct rec *r)
{
	const unsigned char *b = r->at + 8;
	size_t body = r->size - 8;
	uint64_t ip, nr;
	const char *frames[PROFILE_MAX_DEPTH + 1];
	const char *leaf[PROFILE_MAX_DEPTH];
	size_t nleaf, nf = 0;
	bool kernel_ctx = (r->misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
			  PERF_RECORD_MISC_KERNEL;
	bool unknown = false;
	struct task *proc, *thr;

	if (body < 32) {
		profile_note_missing(d->p, "sample records too short to "
					   "decode were skipped");
		return;
	}
	ip = get64(b);
	proc = task_get(d, get32(b + 8));
	thr = task_get(d, get32(b + 12));
	nr = get64(b + 24);
	if (nr > (body - 32) / 8)
		nr = (body - 32) / 8;
	nleaf = sample_chain(d, proc, b + 32, nr, &kernel_ctx, leaf, &unknown);
	if (!nleaf) { /* no call chain: the ip alone */
		leaf[nleaf] = symbolize(d, proc, kernel_ctx, ip);
		unknown |= !strcmp(leaf[nleaf], PROFILE_UNKNOWN);
		nleaf++;
	}
	frames[nf++] = *thr->comm    ? thr->comm
		       : *proc->comm ? proc->comm
				     : PROFILE_UNKNOWN;
	while (nleaf)
		frames[nf++] = leaf[--nleaf];
	if (unknown)
		d->p->unknown++;
	profile_add(d->p, frames, nf, 1);
}

/* PERF_RECORD_COMM: a task's name; an exec also drops its mappings. */
static void on_comm(struct decoder *d, const struct rec *r)
{
	const unsigned char *b = r->at + 8;
	size_t body = r->size - 8;
	struct task *t;

	if (body < 8 + 16)
		return;
	t = task_get(d, get32(b + 4));
	str_field(b + 8, body - 8 - 16, t->comm, sizeof(t->comm));
	if (r->misc & PERF_RECORD_MISC_COMM_EXEC) {
		t = task_get(d, get32(b));
		maps_clear(t);
		str_field(b + 8, body - 8 - 16, t->comm, sizeof(t->comm));
	}
}

/* PERF_RECORD_MMAP: a mapping of a file into a task. */
static void on_mmap(struct decoder *d, const struct rec *r)
{
	const unsigned char *b = r->at + 8;
	size_t body = r->size - 8;
	char str[4096];
	struct task *t;

	if (body < 32 + 16)
		return;
	t = task_get(d, get32(b));
	str_field(b + 32, body - 32 - 16, str, sizeof(str));
	map_add(t, get64(b + 8), get64(b + 16), get64(b + 24), str);
}

/* PERF_RECORD_FORK: the child's name; a new process, the mappings too. */
static void on_fork(struct decoder *d, const struct rec *r)
{
	const unsigned char *b = r->at + 8;
	size_t body = r->size - 8;
	uint32_t pid, ppid, tid, ptid;
	struct task *child, *parent;

	if (body < 24)
		return;
	pid = get32(b);
	ppid = get32(b + 4);
	tid = get32(b + 8);
	ptid = get32(b + 12);
	parent = task_get(d, ptid);
	child = task_get(d, tid);
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	if (pid != ppid && tid == pid) {
		/* a new process: the parent's mappings */
		parent = task_get(d, ppid);
		child = task_get(d, pid);
		maps_clear(child);
		for (size_t i = 0; i < parent->nmaps; i++)
			map_add(child, parent->maps[i].start,
				parent->maps[i].len, parent->maps[i].pgoff,
				parent->maps[i].path);
	}
}

static void on_record(struct decoder *d, const struct rec *r)
{
	const unsigned char *b = r->at + 8;
	size_t body = r->size - 8;

	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(d, r);
		break;
	case PERF_RECORD_COMM:
		on_comm(d, r);
		break;
	case PERF_RECORD_MMAP:
		on_mmap(d, r);
		break;
	case PERF_RECORD_FORK:
		on_fork(d, r);
		break;
	case PERF_RECORD_LOST:
		if (body >= 16)
			d->p->lost += get64(b + 8);
		break;
	default:
		break;
	}
}

static struct decoder *decoder_new(struct symbolizer *sym, struct profile *p)
{
	struct decoder *d = xcalloc(1, sizeof(*d));

	d->sym = sym;
	d->p = p;
	return d;
}

static void decoder_free(struct decoder *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->hcap; i++) {
		if (d->tasks[i])
			maps_clear(d->tasks[i]);
		free(d->tasks[i]);
	}
	free(d->tasks);
	free(d);
}

/*
 * Decode the records of BASE[0..LEN) in time order.  With REST, only those
 * at least LAG_NS older than the newest: the others are copied, in order,
 * to *REST (owned, *REST_LEN bytes) for a later call.
 */
static void decode_until(struct decoder *d, const unsigned char *base,
			 size_t len, uint64_t lag_ns, char **rest,
			 size_t *rest_len)
{
	struct profile *p = d->p;
	struct rec *recs = NULL;
	size_t n = 0, cap = 0, pos = 0, k = 0;
	uint64_t newest = 0, until;

	while (pos + sizeof(struct perf_event_header) <= len) {
		struct perf_event_header h;
		struct rec r;

		memcpy(&h, base + pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - pos || h.size % 8) {
			profile_note_missing(p,
					     "malformed record at byte %zu: "
					     "the rest is not decoded",
					     pos);
			break;
		}
		r = (struct rec){base + pos, 0, n, h.type, h.misc, h.size};
		if (h.type == PERF_RECORD_SAMPLE && h.size >= 8 + 24)
			r.time = get64(base + pos + 8 + 16);
		else if (h.size >= 8 + 16)
			r.time = get64(base + pos + h.size - 8);
		if (r.time > newest)
			newest = r.time;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			recs = xrealloc(recs, cap * sizeof(*recs));
		}
		recs[n++] = r;
		pos += h.size;
	}
	if (!rest && pos < len && pos + sizeof(struct perf_event_header) > len)
		profile_note_missing(p, "%zu trailing bytes not decoded",
				     len - pos);
	if (rest) {
		until = newest > lag_ns ? newest - lag_ns : 0;
		*rest = xmalloc(len ? len : 1);
		*rest_len = 0;
		for (size_t i = 0; i < n; i++) {
			if (recs[i].time <= until) {
				recs[k++] = recs[i];
				continue;
			}
			memcpy(*rest + *rest_len, recs[i].at, recs[i].size);
			*rest_len += recs[i].size;
		}
		n = k;
	}
	/* the CPUs' buffers are concatenated: replay in time order */
	if (n)
		qsort(recs, n, sizeof(*recs), rec_cmp);
	for (size_t i = 0; i < n; i++)
		on_record(d, &recs[i]);
	free(recs);
}

static void decode_done(struct profile *p)
{
	if (p->lost)
		profile_note_missing(p, "%llu samples lost (ring buffer full)",
				     (unsigned long long)p->lost);
}

void profile_decode(const void *raw, size_t len, struct symbolizer *sym,
		    struct profile *p)
{
	struct decoder *d = decoder_new(sym, p);

	decode_until(d, raw, len, 0, NULL, NULL);
	decode_done(p);
	decoder_free(d);
}
