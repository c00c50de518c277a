// SPDX-License-Identifier: MIT
/*
 * Unit tests for host/: knobs, journal, lock and undo against a fake sysfs
 * tree in a temp dir and a fake module loader.  Nothing on the real host is
 * touched.
 *
 * The fake kernel: this file defines open(), write() and fsync(), which take
 * precedence over libc's for the code linked from libvmtax.a.  A write to a
 * file under FAKE_ROOT/sys behaves as sysfs does (the file is replaced, THP
 * files move their brackets, a 1G pool is clamped to what "fits"), or is
 * dropped when the test asks for a file that ignores writes.  fsync() of the
 * journal takes a snapshot so a test can prove the journal was durable
 * before the knob changed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "host.h"
#include "util.h"

/* Test-only fake kernel state (globals are fine in a test). */
static char fake_root[64];
static bool fake_ignore_writes;
static long fake_1g_max = -1;	/* clamp for the 1G pool, -1: none */
static char fsync_thp[128];	/* THP enabled when the journal was fsynced */
static char fsync_journal[512]; /* journal content at that fsync */
static int fsync_journal_count;

static ssize_t real_write(int fd, const void *buf, size_t n)
{
	return syscall(SYS_write, fd, buf, n);
}

static void slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t r = fd < 0 ? 0 : read(fd, buf, len - 1);

	buf[r > 0 ? r : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

static bool fd_path(int fd, char *path, size_t len)
{
	char link[64];
	ssize_t r;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	r = readlink(link, path, len - 1);
	if (r < 0)
		return false;
	path[r] = '\0';
	return true;
}

/* "always [madvise] never" with WORD selected; WORD must be listed. */
static bool thp_select(const char *cur, const char *word, char *out, size_t len)
{
	char copy[256], *tok, *save = NULL;
	size_t n = 0;
	bool found = false;

	snprintf(copy, sizeof(copy), "%s", cur);
	out[0] = '\0';
	for (tok = strtok_r(copy, " []\n", &save); tok;
	     tok = strtok_r(NULL, " []\n", &save)) {
		bool sel = !strcmp(tok, word);

		found |= sel;
		n += snprintf(out + n, len - n, "%s%s%s%s", n ? " " : "",
			      sel ? "[" : "", tok, sel ? "]" : "");
	}
	snprintf(out + n, len - n, "\n");
	return found;
}

/* Whether PATH is a file of the fake kernel: FAKE_ROOT/sys, /proc/sys. */
static bool fake_kernel_file(const char *path)
{
	size_t rl = strlen(fake_root);

	return rl && !strncmp(path, fake_root, rl) &&
	       (!strncmp(path + rl, "/sys/", 5) ||
		!strncmp(path + rl, "/proc/sys/", 10));
}

/*
 * sysfs and procfs ignore O_TRUNC (write_str() opens with it, as the
 * shell's '>' does); the fake's regular files would be emptied by it.
 */
int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	if (fake_kernel_file(path))
		flags &= ~O_TRUNC;
	return syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	char path[PATH_MAX], val[128], cur[256], out[256];
	size_t rl = strlen(fake_root);

	if (!rl || !fd_path(fd, path, sizeof(path)) ||
	    strncmp(path, fake_root, rl) ||
	    (strncmp(path + rl, "/sys/", 5) &&
	     strncmp(path + rl, "/proc/sys/", 10)))
		return real_write(fd, buf, n);
	if (fake_ignore_writes)
		return n;
	snprintf(val, sizeof(val), "%.*s", (int)n, (const char *)buf);
	strstrip(val);
	if (!strncmp(path + rl, "/proc/sys/", 10)) {
		char *p;

		/* proc_dointvec: integers only; fields shown tab-separated */
		if (strspn(val, "0123456789- ") != strlen(val)) {
			errno = EINVAL;
			return -1;
		}
		for (p = val; *p; p++)
			if (*p == ' ')
				*p = '\t';
		snprintf(out, sizeof(out), "%s\n", val);
	} else if (strstr(path, "transparent_hugepage/")) {
		slurp(path, cur, sizeof(cur));
		if (!thp_select(cur, val, out, sizeof(out))) {
			errno = EINVAL;
			return -1;
		}
	} else if (strstr(path, "hugepages-1048576kB") && fake_1g_max >= 0 &&
		   atol(val) > fake_1g_max) {
		snprintf(out, sizeof(out), "%ld\n", fake_1g_max);
	} else if (strstr(path, "nx_huge_pages")) {
		/* the kernel shows the mitigation as a bool */
		snprintf(out, sizeof(out), "%s\n",
			 !strcmp(val, "force") || !strcmp(val, "auto") ? "Y"
			 : !strcmp(val, "off")			       ? "N"
								       : val);
	} else {
		snprintf(out, sizeof(out), "%s\n", val);
	}
	if (ftruncate(fd, 0) < 0 ||
	    pwrite(fd, out, strlen(out), 0) != (ssize_t)strlen(out))
		return -1;
	return n;
}

int fsync(int fd)
{
	char path[PATH_MAX], thp[PATH_MAX];

	if (fd_path(fd, path, sizeof(path)) && strstr(path, "host-journal")) {
		snprintf(thp, sizeof(thp),
			 "%s/sys/kernel/mm/transparent_hugepage/enabled",
			 fake_root);
		slurp(thp, fsync_thp, sizeof(fsync_thp));
		slurp(path, fsync_journal, sizeof(fsync_journal));
		fsync_journal_count++;
	}
	return syscall(SYS_fsync, fd);
}

/* Fake files are written with the raw syscall, not the fake kernel. */
static void put(const char *rel, const char *content)
{
	char path[PATH_MAX], *p;
	int fd;

	snprintf(path, sizeof(path), "%s%s", fake_root, rel);
	for (p = path + strlen(fake_root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(real_write(fd, content, strlen(content)),
			 (ssize_t)strlen(content));
	close(fd);
}

static void get(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", fake_root, rel);
	slurp(path, buf, len);
	strstrip(buf);
}

static bool exists(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", fake_root, rel);
	return !lstat(path, &st);
}

#define THP_EN "/sys/kernel/mm/transparent_hugepage/enabled"
#define THP_DF "/sys/kernel/mm/transparent_hugepage/defrag"
#define HP2M "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
#define HP1G "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
#define EPT "/sys/module/kvm_intel/parameters/ept"

static const char cpu_intel[] =
    "processor\t: 0\nvendor_id\t: GenuineIntel\n"
    "model name\t: Fake Xeon\nflags\t\t: fpu vmx ept vpid pdpe1gb lm\n";
static const char cpu_amd_pvm[] =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
    "model name\t: Fake EPYC\nflags\t\t: fpu lm pdpe1gb hypervisor\n";

/* A fresh fake host: Intel with a loadable kvm_intel, ept=Y. */
static int setup(void **state)
{
	(void)state;
	snprintf(fake_root, sizeof(fake_root), "/tmp/vmtax-test-host.XXXXXX");
	if (!mkdtemp(fake_root))
		return -1;
	put("/proc/cpuinfo", cpu_intel);
	put("/dev/kvm", "");
	put(THP_EN, "always [madvise] never\n");
	put(THP_DF, "always defer defer+madvise [madvise] never\n");
	put(HP2M, "0\n");
	put(HP1G, "0\n");
	put("/sys/module/kvm/parameters/nx_huge_pages", "N\n");
	put("/sys/module/kvm_intel/initstate", "live\n");
	put("/sys/module/kvm_intel/refcnt", "0\n");
	put(EPT, "Y\n");
	put("/state/.keep", "");
	put("/run/.keep", "");
	fake_ignore_writes = false;
	fake_1g_max = -1;
	fsync_journal_count = 0;
	fsync_thp[0] = fsync_journal[0] = '\0';
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_root);
	fake_root[0] = '\0';
	return system(cmd) == 0 ? 0 : -1;
}

/* The fake module loader: logs and rewrites the parameter file. */
struct fake_mods {
	char log[512];
	char journal_at_rmmod[512];
	int fail_insert; /* fail this many inserts */
};

static int fake_remove(void *arg, const char *name)
{
	struct fake_mods *m = arg;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/state/host-journal", fake_root);
	slurp(path, m->journal_at_rmmod, sizeof(m->journal_at_rmmod));
	snprintf(m->log + strlen(m->log), sizeof(m->log) - strlen(m->log),
		 "rmmod %s;", name);
	return 0;
}

static int fake_insert(void *arg, const char *name, const char *options)
{
	struct fake_mods *m = arg;
	char rel[128];

	snprintf(m->log + strlen(m->log), sizeof(m->log) - strlen(m->log),
		 "insmod %s %s;", name, options);
	if (m->fail_insert-- > 0)
		return -ENOEXEC;
	snprintf(rel, sizeof(rel), "/sys/module/%s/parameters/%.*s", name,
		 (int)strcspn(options, "="), options);
	put(rel, options[strcspn(options, "=") + 1] == '1' ? "Y\n" : "N\n");
	return 0;
}

static const struct host_module_ops fake_module_ops = {
    .remove = fake_remove,
    .insert = fake_insert,
};

struct fake_vms {
	const char *names; /* ", "-joined, or NULL */
	int count;
	int calls;    /* how often it was asked */
	int gone_at;  /* > 0: from that call on, none runs */
};

static int fake_list_vms(void *arg, char *buf, size_t len)
{
	struct fake_vms *v = arg;

	v->calls++;
	if (v->gone_at > 0 && v->calls >= v->gone_at) {
		snprintf(buf, len, "%s", "");
		return 0;
	}
	snprintf(buf, len, "%s", v->names ? v->names : "");
	return v->count;
}

struct fixture {
	char state[PATH_MAX];
	char journal[PATH_MAX];
	struct fake_mods mods;
	struct fake_vms vms;
	struct host_opts opts;
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->state, sizeof(f->state), "%s/state", fake_root);
	snprintf(f->journal, sizeof(f->journal), "%s/state/host-journal",
		 fake_root);
	f->opts.root = fake_root;
	f->opts.state_dir = f->state;
	f->opts.modules = &fake_module_ops;
	f->opts.modules_arg = &f->mods;
	f->opts.list_vms = fake_list_vms;
	f->opts.list_vms_arg = &f->vms;
}

/* stderr capture, to check what the user is told. */
static int saved_stderr = -1;
static char captured[4096];

static void capture_begin(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/stderr", fake_root);
	fflush(stderr);
	saved_stderr = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	dup2(fd, 2);
	close(fd);
}

static const char *capture_end(void)
{
	char path[PATH_MAX];

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	snprintf(path, sizeof(path), "%s/stderr", fake_root);
	slurp(path, captured, sizeof(captured));
	return captured;
}

static void test_accel(void **state)
{
	char why[256];

	(void)state;
	assert_string_equal(host_accel_decide(fake_root, why, sizeof(why)),
			    "kvm");
	put("/proc/cpuinfo", cpu_amd_pvm);
	put("/sys/module/kvm_pvm/initstate", "live\n");
	assert_string_equal(host_accel_decide(fake_root, why, sizeof(why)),
			    "tcg");
	assert_non_null(strstr(why, "no vmx or svm"));
	assert_non_null(strstr(why, "kvm_pvm"));
	put("/proc/cpuinfo", cpu_intel);
	assert_string_equal(host_accel_decide(fake_root, why, sizeof(why)),
			    "kvm");
	put("/proc/cpuinfo", cpu_intel);
	{
		char path[PATH_MAX];

		snprintf(path, sizeof(path), "%s/dev/kvm", fake_root);
		unlink(path);
	}
	assert_string_equal(host_accel_decide(fake_root, why, sizeof(why)),
			    "tcg");
	assert_non_null(strstr(why, "cannot open '/dev/kvm'"));
}

static void test_thp_set_restore(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[128];

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_get(ctx, "thp.enabled", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "madvise");
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), 0);
	assert_int_equal(host_set(ctx, "thp.defrag", "defer"), 0);
	assert_int_equal(host_set(ctx, "thp.enabled", "always"), 0);
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "[always] madvise never");
	assert_true(exists("/state/host-journal"));
	get("/state/host-journal", buf, sizeof(buf));
	/* the first change of each knob only, in order */
	assert_string_equal(buf, "thp.enabled\tmadvise\nthp.defrag\tmadvise");

	assert_int_equal(host_restore(ctx), 0);
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "always [madvise] never");
	get(THP_DF, buf, sizeof(buf));
	assert_string_equal(buf, "always defer defer+madvise [madvise] never");
	assert_false(exists("/state/host-journal"));
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);
}

/*
 * A restore that fails when the context is freed is an error, and
 * --quiet (errors only) still shows it with the journal to use: the
 * host is left changed, the user must act.
 */
static void test_restore_failure_survives_quiet(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char path[PATH_MAX];
	const char *said;

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), 0);
	/* the knob's file becomes a directory: the write back fails */
	snprintf(path, sizeof(path), "%s" THP_EN, fake_root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
	verbosity_set(VERBOSITY_QUIET);
	capture_begin();
	host_ctx_free(ctx);
	said = capture_end();
	verbosity_set(VERBOSITY_NORMAL);
	assert_non_null(strstr(said, "error: host settings not fully restored"));
	assert_non_null(strstr(said, "kept for 'vmtax host restore'"));
	assert_true(exists("/state/host-journal"));
	assert_int_equal(rmdir(path), 0);
}

static void test_thp_bad_value(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char why[256];

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_false(
	    host_supported(ctx, "thp.enabled", "sometimes", why, sizeof(why)));
	assert_non_null(strstr(why, "'sometimes'"));
	capture_begin();
	assert_int_equal(host_set(ctx, "thp.enabled", "sometimes"),
			 -EOPNOTSUPP);
	assert_int_equal(host_set(ctx, "no.such.knob", "1"), -EINVAL);
	capture_end();
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);
}

static void test_journal_before_change(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), 0);
	/* journal created (1 fsync) then the record (2nd fsync) */
	assert_int_equal(fsync_journal_count, 2);
	assert_string_equal(fsync_journal, "thp.enabled\tmadvise\n");
	assert_string_equal(fsync_thp, "always [madvise] never\n");
	/* Setting the value it already has journals nothing more. */
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), 0);
	assert_int_equal(fsync_journal_count, 2);
	host_ctx_free(ctx);
	assert_false(exists("/state/host-journal"));
}

static void test_readback_mismatch(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	fake_ignore_writes = true;
	capture_begin();
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), -EIO);
	msg = capture_end();
	assert_non_null(strstr(msg, "reads back 'madvise', expected 'never'"));
	fake_ignore_writes = false;
	host_ctx_free(ctx);
}

static void test_paging_reload(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[64], why[256];

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_true(host_supported(ctx, "paging", "shadow", why, sizeof(why)));
	assert_int_equal(host_get(ctx, "paging", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hw");
	assert_int_equal(host_set(ctx, "paging", "shadow"), 0);
	assert_string_equal(f.mods.log,
			    "rmmod kvm_intel;insmod kvm_intel ept=0;");
	assert_string_equal(f.mods.journal_at_rmmod, "paging\thw\n");
	get(EPT, buf, sizeof(buf));
	assert_string_equal(buf, "N");
	assert_int_equal(host_get(ctx, "paging", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "shadow");

	f.mods.log[0] = '\0';
	assert_int_equal(host_restore(ctx), 0);
	assert_string_equal(f.mods.log,
			    "rmmod kvm_intel;insmod kvm_intel ept=1;");
	get(EPT, buf, sizeof(buf));
	assert_string_equal(buf, "Y");
	host_ctx_free(ctx);
}

/* A Hygon host: accel kvm by svm, and paging is kvm_amd's npt. */
static void test_paging_hygon(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[64], why[256];

	(void)state;
	fixture_init(&f);
	put("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: HygonGenuine\n"
			     "model name\t: Hygon C86 7185 32-core Processor\n"
			     "flags\t\t: fpu svm npt lm\n");
	put("/sys/module/kvm_amd/initstate", "live\n");
	put("/sys/module/kvm_amd/parameters/npt", "1\n");
	assert_string_equal(host_accel_decide(fake_root, why, sizeof(why)),
			    "kvm");
	assert_string_equal(why, "/dev/kvm is usable and the cpu has svm");
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_true(host_supported(ctx, "paging", "shadow", why, sizeof(why)));
	assert_int_equal(host_get(ctx, "paging", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "hw");
	assert_int_equal(host_set(ctx, "paging", "shadow"), 0);
	assert_string_equal(f.mods.log, "rmmod kvm_amd;insmod kvm_amd npt=0;");
	f.mods.log[0] = '\0';
	assert_int_equal(host_restore(ctx), 0);
	assert_string_equal(f.mods.log, "rmmod kvm_amd;insmod kvm_amd npt=1;");
	host_ctx_free(ctx);
}

static void test_paging_insert_fails(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;

	(void)state;
	fixture_init(&f);
	f.mods.fail_insert = 1;
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "paging", "shadow"), -ENOEXEC);
	capture_end();
	/* put back as it was rather than leave the host without kvm_intel */
	assert_string_equal(f.mods.log,
			    "rmmod kvm_intel;insmod kvm_intel ept=0;"
			    "insmod kvm_intel ept=1;");
	host_ctx_free(ctx);
}

static void test_paging_refused_while_vms_run(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;
	char buf[16];

	(void)state;
	fixture_init(&f);
	f.vms.names = "vmtax-a1, webserver";
	f.vms.count = 2;
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "paging", "shadow"), -EBUSY);
	msg = capture_end();
	assert_non_null(strstr(msg, "vmtax-a1, webserver"));
	assert_string_equal(f.mods.log, "");
	get(EPT, buf, sizeof(buf));
	assert_string_equal(buf, "Y");
	host_ctx_free(ctx);
	/* no VM lister: refused too */
	f.opts.list_vms = NULL;
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "paging", "shadow"), -EBUSY);
	capture_end();
	assert_string_equal(f.mods.log, "");
	host_ctx_free(ctx);
}

/*
 * The guest of the cell before, still being torn down: waited for (it is
 * gone at the third look), then the reload goes ahead.  One that stays past
 * vm_drain_s is refused, naming it and saying it was waited for.
 */
static void test_paging_waits_for_vms(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;
	char buf[16];

	(void)state;
	fixture_init(&f);
	f.vms.names = "vmtax-lab-npt-5-327";
	f.vms.count = 1;
	f.vms.gone_at = 3;
	f.opts.vm_drain_s = 30;
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "paging", "shadow"), 0);
	msg = capture_end();
	assert_non_null(strstr(msg, "waiting up to 30 s for 1 domain to go "
				    "before reloading 'kvm_intel' with ept=0: "
				    "vmtax-lab-npt-5-327"));
	assert_non_null(strstr(msg, "the domains are gone after"));
	assert_int_equal(f.vms.calls, 3);
	assert_string_equal(f.mods.log, "rmmod kvm_intel;insmod kvm_intel ept=0;");
	get(EPT, buf, sizeof(buf));
	assert_string_equal(buf, "N");
	host_ctx_free(ctx);

	fixture_init(&f);
	f.vms.names = "webserver";
	f.vms.count = 1;
	f.opts.vm_drain_s = 0.6;
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "paging", "shadow"), -EBUSY);
	msg = capture_end();
	assert_non_null(strstr(msg, "while 1 domain runs (waited for them): "
				    "webserver"));
	assert_true(f.vms.calls >= 2);
	assert_string_equal(f.mods.log, "");
	host_ctx_free(ctx);
}

static void test_paging_builtin(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char why[256], path[PATH_MAX];

	(void)state;
	fixture_init(&f);
	snprintf(path, sizeof(path), "%s/sys/module/kvm_intel/initstate",
		 fake_root);
	unlink(path);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_false(host_supported(ctx, "paging", "shadow", why, sizeof(why)));
	assert_non_null(strstr(why, "kvm_intel is built into the kernel"));
	capture_begin();
	assert_int_equal(host_set(ctx, "paging", "shadow"), -EOPNOTSUPP);
	capture_end();
	assert_string_equal(f.mods.log, "");
	host_ctx_free(ctx);
}

static void test_paging_pvm(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char why[256];

	(void)state;
	fixture_init(&f);
	put("/proc/cpuinfo", cpu_amd_pvm);
	put("/sys/module/kvm_pvm/initstate", "live\n");
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_false(host_supported(ctx, "paging", NULL, why, sizeof(why)));
	assert_string_equal(why, "no vmx or svm flag in /proc/cpuinfo "
				 "(/dev/kvm is kvm_pvm, which has no ept or "
				 "npt to toggle)");
	/* vmx present but PVM: still unsupported */
	put("/proc/cpuinfo", cpu_intel);
	assert_false(host_supported(ctx, "paging", "hw", why, sizeof(why)));
	assert_non_null(strstr(why, "kvm_pvm"));
	capture_begin();
	assert_int_equal(host_set(ctx, "paging", "shadow"), -EOPNOTSUPP);
	capture_end();
	assert_string_equal(f.mods.log, "");
	host_ctx_free(ctx);
}

static void test_crash_then_restore(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;
	char buf[128];
	pid_t pid;
	int status;

	(void)state;
	fixture_init(&f);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (host_ctx_new(&f.opts, &ctx) < 0 ||
		    host_set(ctx, "thp.enabled", "never") < 0 ||
		    host_set(ctx, "hugetlb.2M", "16") < 0)
			_exit(1);
		_exit(0); /* "crash": no restore, lock dies with us */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "always madvise [never]");
	assert_true(exists("/state/host-journal"));

	capture_begin();
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	msg = capture_end();
	assert_non_null(strstr(msg, "did not finish"));
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "always [madvise] never");
	get(HP2M, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_false(exists("/state/host-journal"));
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);

	/* host_restore_stale() with nothing to do is quiet and fine */
	assert_int_equal(host_restore_stale(&f.opts), 0);
}

static void test_lock(void **state)
{
	struct host_ctx *a, *b, *ro;
	struct fixture f;
	const char *msg;
	char want[128];

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &a), 0);
	capture_begin();
	assert_int_equal(host_ctx_new(&f.opts, &b), -EBUSY);
	msg = capture_end();
	assert_null(b);
	snprintf(want, sizeof(want), "another vmtax (pid %ld) holds '",
		 (long)getpid());
	assert_non_null(strstr(msg, want));
	/* a read-only context (probe) needs no lock and may not set */
	f.opts.readonly = true;
	assert_int_equal(host_ctx_new(&f.opts, &ro), 0);
	capture_begin();
	assert_int_equal(host_set(ro, "thp.enabled", "never"), -EPERM);
	capture_end();
	host_ctx_free(ro);
	f.opts.readonly = false;
	host_ctx_free(a);
	assert_int_equal(host_ctx_new(&f.opts, &b), 0);
	host_ctx_free(b);
}

/*
 * The lock and the journal are files of one name: a hard link in their
 * place (to a file that is root's and 0600, as the lock would be) is
 * refused naming the file, and the file it shares is neither truncated
 * nor written.  Before, the lock got a PID and the journal a knob.
 */
static void test_state_hard_links(void **state)
{
	char keep[PATH_MAX], lock[PATH_MAX + 8], journal[PATH_MAX + 16];
	char want[PATH_MAX + 128], buf[256];
	struct host_ctx *ctx = NULL;
	struct fixture f;
	const char *msg;

	(void)state;
	fixture_init(&f);
	put("/run/precious", "precious\n");
	snprintf(keep, sizeof(keep), "%s/run/precious", fake_root);
	snprintf(lock, sizeof(lock), "%s/lock", f.state);
	snprintf(journal, sizeof(journal), "%s/host-journal", f.state);
	assert_int_equal(chmod(keep, 0600), 0);

	assert_int_equal(link(keep, lock), 0);
	capture_begin();
	assert_int_equal(host_ctx_new(&f.opts, &ctx), -EPERM);
	msg = capture_end();
	assert_null(ctx);
	snprintf(want, sizeof(want), "the lock '%s' is a hard link (2 names)",
		 lock);
	if (!strstr(msg, want))
		fail_msg("lock: %s", msg);
	get("/run/precious", buf, sizeof(buf));
	assert_string_equal(buf, "precious");
	assert_int_equal(unlink(lock), 0);

	/* the journal made once the run sets its first knob */
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(link(keep, journal), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), -EPERM);
	msg = capture_end();
	snprintf(want, sizeof(want),
		 "the journal '%s' is a hard link (2 names)", journal);
	if (!strstr(msg, want) || !strstr(msg, "not written"))
		fail_msg("journal: %s", msg);
	get("/run/precious", buf, sizeof(buf));
	assert_string_equal(buf, "precious");
	/* nothing journalled, nothing changed */
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "always [madvise] never");
	host_ctx_free(ctx);
}

static void test_hugetlb(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;
	char buf[32], why[256];

	(void)state;
	fixture_init(&f);
	fake_1g_max = 2;
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "hugetlb.2M", "512"), 0);
	assert_int_equal(host_get(ctx, "hugetlb.2M", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "512");
	assert_int_equal(host_set(ctx, "hugetlb.1G", "2"), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "hugetlb.1G", "4"), -EIO);
	msg = capture_end();
	assert_non_null(strstr(msg, "only 2 of 4 1G pages"));
	assert_false(
	    host_supported(ctx, "hugetlb.2M", "lots", why, sizeof(why)));
	assert_int_equal(host_restore(ctx), 0);
	get(HP2M, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	get(HP1G, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	host_ctx_free(ctx);

	/* no pdpe1gb: a 1G pool is unsupported */
	put("/proc/cpuinfo", cpu_amd_pvm);
	{
		char cpu[512];

		snprintf(cpu, sizeof(cpu), "%s", cpu_amd_pvm);
		*strstr(cpu, "pdpe1gb") = 'X';
		put("/proc/cpuinfo", cpu);
	}
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_false(host_supported(ctx, "hugetlb.1G", "1", why, sizeof(why)));
	assert_non_null(strstr(why, "pdpe1gb"));
	host_ctx_free(ctx);
}

static void test_nx_huge_pages(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[32];

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "kvm.nx_huge_pages", "force"), 0);
	get("/sys/module/kvm/parameters/nx_huge_pages", buf, sizeof(buf));
	assert_string_equal(buf, "Y");
	assert_int_equal(host_set(ctx, "kvm.nx_huge_pages", "auto"), 0);
	assert_int_equal(host_get(ctx, "kvm.nx_huge_pages", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "Y");
	host_ctx_free(ctx);
	get("/sys/module/kvm/parameters/nx_huge_pages", buf, sizeof(buf));
	assert_string_equal(buf, "N");
}

static void test_restore_async(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[128];

	(void)state;
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), 0);
	assert_int_equal(host_set(ctx, "hugetlb.2M", "8"), 0);
	assert_int_equal(host_restore_async(ctx), 0);
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "always [madvise] never");
	get(HP2M, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);

	/* with paging changed the journal must stay for the next start */
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), 0);
	assert_int_equal(host_set(ctx, "paging", "shadow"), 0);
	assert_int_equal(host_restore_async(ctx), -1);
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "always [madvise] never");
	assert_true(exists("/state/host-journal"));
	host_ctx_free(ctx);
	assert_false(exists("/state/host-journal"));
	get(EPT, buf, sizeof(buf));
	assert_string_equal(buf, "Y");
}

#define SWAP "/proc/sys/vm/swappiness"
#define KSM "/sys/kernel/mm/ksm/run"
#define SHMEM "/sys/kernel/mm/transparent_hugepage/shmem_enabled"
#define PRINTK "/proc/sys/kernel/printk"

/* A few generic knob files on top of setup()'s tree. */
static void put_generic(void)
{
	put(SWAP, "60\n");
	put(KSM, "0\n");
	put(SHMEM, "always within_size advise [never] deny force\n");
	put(PRINTK, "4\t4\t1\t7\n");
}

static void test_generic_set_restore(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[256], why[256];

	(void)state;
	put_generic();
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_true(host_supported(ctx, "sysctl.vm.swappiness", "10", why,
				   sizeof(why)));
	assert_int_equal(
	    host_get(ctx, "sysctl.vm.swappiness", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "60");
	/* the bracketed word is the value */
	assert_int_equal(host_get(ctx, "mm.transparent_hugepage.shmem_enabled",
				  buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "never");
	assert_int_equal(host_set(ctx, "sysctl.vm.swappiness", "10"), 0);
	assert_int_equal(host_set(ctx, "mm.ksm.run", "1"), 0);
	assert_int_equal(
	    host_set(ctx, "mm.transparent_hugepage.shmem_enabled", "advise"),
	    0);
	assert_int_equal(host_set(ctx, "sysctl.vm.swappiness", "20"), 0);
	get(SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "20");
	get(KSM, buf, sizeof(buf));
	assert_string_equal(buf, "1");
	get(SHMEM, buf, sizeof(buf));
	assert_string_equal(buf,
			    "always within_size [advise] never deny force");
	assert_int_equal(host_get(ctx, "mm.transparent_hugepage.shmem_enabled",
				  buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "advise");
	get("/state/host-journal", buf, sizeof(buf));
	assert_string_equal(buf,
			    "sysctl.vm.swappiness\t60\nmm.ksm.run\t0\n"
			    "mm.transparent_hugepage.shmem_enabled\tnever");

	assert_int_equal(host_restore(ctx), 0);
	get(SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "60");
	get(KSM, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	get(SHMEM, buf, sizeof(buf));
	assert_string_equal(buf,
			    "always within_size advise [never] deny force");
	assert_false(exists("/state/host-journal"));
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);
}

/* Multi-field sysctls: tabs read back as single spaces, and go back. */
static void test_generic_fields(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[256];

	(void)state;
	put_generic();
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(
	    host_get(ctx, "sysctl.kernel.printk", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4 4 1 7");
	assert_int_equal(host_set(ctx, "sysctl.kernel.printk", "3 4 1 7"), 0);
	get(PRINTK, buf, sizeof(buf));
	assert_string_equal(buf, "3\t4\t1\t7");
	get("/state/host-journal", buf, sizeof(buf));
	assert_string_equal(buf, "sysctl.kernel.printk\t4 4 1 7");
	assert_int_equal(host_restore(ctx), 0);
	get(PRINTK, buf, sizeof(buf));
	assert_string_equal(buf, "4\t4\t1\t7");
	host_ctx_free(ctx);
}

static void test_generic_bad_names(void **state)
{
	static const struct {
		const char *name, *why;
	} bad[] = {
	    {"", "'' is not a host knob (they are thp.enabled, "},
	    {"vm.swappiness", "'vm.swappiness' is not a host knob"},
	    {"proc.sys.vm.swappiness", "sysctl.NAME or mm.NAME for any file"},
	    {"sysctl.", "'sysctl.' names no file after its prefix"},
	    {"mm.", "'mm.' names no file after its prefix"},
	    {"sysctl..vm", "'sysctl..vm' has an empty part between dots"},
	    {"sysctl.vm.", "'sysctl.vm.' ends with a dot"},
	    {"mm.ksm/run", "'mm.ksm/run' has a character other than"},
	    {"sysctl.vm.*", "'sysctl.vm.*' has a character other than"},
	    {"sysctl.vm.swap piness", "has a character other than"},
	    {"mm.transparent_hugepage.enabled",
	     "'mm.transparent_hugepage.enabled' is "
	     "'/sys/kernel/mm/transparent_hugepage/enabled', the file of the "
	     "host knob 'thp.enabled': use 'thp.enabled'"},
	    {"mm.transparent_hugepage.defrag",
	     "the file of the host knob 'thp.defrag': use 'thp.defrag'"},
	    {"mm.hugepages.hugepages-2048kB.nr_hugepages",
	     "the file of the host knob 'hugetlb.2M': use 'hugetlb.2M'"},
	    {"mm.hugepages.hugepages-2048kB.nr_hugepages_mempolicy",
	     "'mm.hugepages.hugepages-2048kB.nr_hugepages_mempolicy' sizes a "
	     "hugetlb pool: use 'hugetlb.2M' or 'hugetlb.1G'"},
	    {"mm.hugepages.hugepages-1048576kB.nr_hugepages_mempolicy",
	     "sizes a hugetlb pool"},
	    {"sysctl.vm.nr_hugepages", "'sysctl.vm.nr_hugepages' sizes a "
				       "hugetlb pool"},
	    {"sysctl.vm.nr_hugepages_mempolicy", "sizes a hugetlb pool"},
	};
	static const char *const good[] = {
	    "thp.enabled",
	    "paging",
	    "hugetlb.1G",
	    "kvm.nx_huge_pages",
	    "sysctl.vm.swappiness",
	    "mm.ksm.run",
	    "mm.transparent_hugepage.khugepaged.defrag",
	    "mm.transparent_hugepage.hugepages-2048kB.enabled",
	    "mm.hugepages.hugepages-2048kB.nr_overcommit_hugepages",
	    "sysctl.vm.nr_overcommit_hugepages",
	};
	char why[512], longname[200];
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;
	size_t i;

	(void)state;
	put_generic();
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_false(host_knob_name_known(bad[i].name));
		assert_false(
		    host_knob_name_check(bad[i].name, why, sizeof(why)));
		if (!strstr(why, bad[i].why))
			fail_msg("'%s': why '%s' lacks '%s'", bad[i].name, why,
				 bad[i].why);
		assert_false(
		    host_supported(ctx, bad[i].name, "1", why, sizeof(why)));
		assert_non_null(strstr(why, bad[i].why));
		capture_begin();
		assert_int_equal(host_set(ctx, bad[i].name, "1"), -EINVAL);
		assert_int_equal(host_get(ctx, bad[i].name, why, sizeof(why)),
				 -EINVAL);
		msg = capture_end();
		assert_non_null(strstr(msg, bad[i].why));
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memcpy(longname, "sysctl.", 7);
	assert_false(host_knob_name_check(longname, why, sizeof(why)));
	assert_non_null(strstr(why, "is too long"));
	assert_false(host_knob_name_known(NULL));
	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (!host_knob_name_known(good[i]))
			fail_msg("'%s' should be a host knob", good[i]);
	/* the registered knobs still show their values */
	assert_string_equal(host_knob_values("paging"), "hw, shadow");
	assert_non_null(host_knob_values("sysctl.vm.swappiness"));
	assert_null(host_knob_values("sysctl..x"));
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);
}

static void test_generic_unsupported(void **state)
{
	static const struct {
		const char *knob, *value, *why;
	} bad[] = {
	    {"sysctl.vm.no_such_knob", NULL,
	     "no '/proc/sys/vm/no_such_knob': No such file or directory"},
	    {"sysctl.vm", NULL,
	     "'/proc/sys/vm' is a directory: name a file in it "
	     "(sysctl.vm.NAME)"},
	    {"sysctl.vm.overcommit_ratio_ro", NULL,
	     "'/proc/sys/vm/overcommit_ratio_ro' is read-only"},
	    {"mm.ksm.empty", NULL,
	     "cannot read '/sys/kernel/mm/ksm/empty': it holds no value"},
	    {"sysctl.vm.swappiness", "", "the value '' is empty"},
	    {"sysctl.vm.swappiness", "1\n2", "has a control character"},
	    {"sysctl.vm.swappiness", "1\t2", "has a control character"},
	    {"sysctl.vm.swappiness", " 10", "starts or ends with a blank"},
	    {"sysctl.vm.swappiness", "10 ", "starts or ends with a blank"},
	    {"sysctl.vm.swappiness",
	     "0123456789012345678901234567890123456789012345678901234567890123",
	     "is too long"},
	};
	struct host_ctx *ctx;
	struct fixture f;
	char why[512], path[PATH_MAX];
	size_t i;

	(void)state;
	put_generic();
	put("/proc/sys/vm/overcommit_ratio_ro", "50\n");
	snprintf(path, sizeof(path), "%s/proc/sys/vm/overcommit_ratio_ro",
		 fake_root);
	assert_int_equal(chmod(path, 0444), 0);
	put("/sys/kernel/mm/ksm/empty", "\n");
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		assert_false(host_supported(ctx, bad[i].knob, bad[i].value, why,
					    sizeof(why)));
		if (!strstr(why, bad[i].why))
			fail_msg("%s=%s: why '%s' lacks '%s'", bad[i].knob,
				 bad[i].value ? bad[i].value : "(null)", why,
				 bad[i].why);
		if (bad[i].value) {
			/* the same verdict without touching the host */
			assert_false(host_knob_value_check(
			    bad[i].knob, bad[i].value, why, sizeof(why)));
			assert_non_null(strstr(why, bad[i].why));
		}
		capture_begin();
		assert_int_equal(host_set(ctx, bad[i].knob,
					  bad[i].value ? bad[i].value : "1"),
				 -EOPNOTSUPP);
		capture_end();
	}
	assert_true(host_knob_value_check("sysctl.vm.swappiness", "10", why,
					  sizeof(why)));
	assert_true(host_knob_value_check("sysctl.kernel.printk", "3 4 1 7",
					  why, sizeof(why)));
	/* nothing changed, nothing journalled */
	assert_false(exists("/state/host-journal"));
	get(SWAP, why, sizeof(why));
	assert_string_equal(why, "60");
	host_ctx_free(ctx);
}

static void test_generic_refused(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;
	char buf[128];

	(void)state;
	put_generic();
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	capture_begin();
	assert_int_equal(host_set(ctx, "sysctl.vm.swappiness", "lots"),
			 -EINVAL);
	msg = capture_end();
	assert_non_null(strstr(msg, "cannot set 'sysctl.vm.swappiness' to "
				    "'lots': the kernel refuses the value "
				    "(writing '/proc/sys/vm/swappiness'): "
				    "Invalid argument"));
	get(SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "60");
	/* a write the kernel takes but does not keep */
	fake_ignore_writes = true;
	capture_begin();
	assert_int_equal(host_set(ctx, "mm.ksm.run", "1"), -EIO);
	msg = capture_end();
	fake_ignore_writes = false;
	assert_non_null(strstr(msg, "'/sys/kernel/mm/ksm/run' (mm.ksm.run) "
				    "reads back '0', expected '1'"));
	assert_int_equal(host_restore(ctx), 0);
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);
}

static void test_generic_crash_then_restore(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	const char *msg;
	char buf[256];
	pid_t pid;
	int status;

	(void)state;
	put_generic();
	fixture_init(&f);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (host_ctx_new(&f.opts, &ctx) < 0 ||
		    host_set(ctx, "sysctl.vm.swappiness", "5") < 0 ||
		    host_set(ctx, "thp.enabled", "never") < 0 ||
		    host_set(ctx, "mm.transparent_hugepage.shmem_enabled",
			     "force") < 0)
			_exit(1);
		_exit(0); /* "crash": no restore, lock dies with us */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	get(SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "5");

	capture_begin();
	assert_int_equal(host_restore_stale(&f.opts), 3);
	msg = capture_end();
	assert_non_null(strstr(msg, "did not finish"));
	get(SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "60");
	get(SHMEM, buf, sizeof(buf));
	assert_string_equal(buf,
			    "always within_size advise [never] deny force");
	get(THP_EN, buf, sizeof(buf));
	assert_string_equal(buf, "always [madvise] never");
	assert_false(exists("/state/host-journal"));
	assert_false(exists("/state/host-journal"));

	/* a journal line whose name is no (longer a) knob: kept, with why */
	put("/state/host-journal", "sysctl.vm.swappiness\t60\n"
				 "mm.transparent_hugepage.enabled\tnever\n");
	snprintf(buf, sizeof(buf), "%s/state/host-journal", fake_root);
	assert_int_equal(chmod(buf, 0600), 0);
	capture_begin();
	assert_true(host_restore_stale(&f.opts) < 0);
	msg = capture_end();
	assert_non_null(strstr(msg, "the file of the host knob 'thp.enabled'"));
	assert_non_null(strstr(msg, "is kept"));
	assert_true(exists("/state/host-journal"));
	assert_true(exists("/state/host-journal"));
}

/*
 * A journal this vmtax did not write is never replayed: another owner, one
 * writable by others or its group, a link to a run directory's journal,
 * an older vmtax's STATE/journal link, a hard link.  Each is refused with
 * its own reason and the fix; the fake sysctl stays as it was.
 */
static void test_journal_refused(void **state)
{
	static const struct {
		const char *what;
		unsigned mode;
		int uid; /* -1: ours */
		int kind; /* 0 the file; 1 a symlink to /run; 2 the old link;
			     3 a hard link */
		const char *why;
	} rows[] = {
		{ "mode 0666", 0666, -1, 0, "is writable by others (mode 0666)" },
		{ "mode 0620", 0620, -1, 0,
		  "is writable by its group (mode 0620)" },
		{ "nobody's", 0600, 65534, 0, "is owned by uid 65534, not by " },
		{ "a link to a run directory", 0644, -1, 1,
		  "cannot open the journal" },
		{ "an older vmtax's link", 0644, -1, 2,
		  "is an older vmtax's link to a journal outside the state "
		  "directory" },
		{ "a hard link", 0600, -1, 3, "is a hard link (2 names)" },
	};
	/* the review's journal set kernel.core_pattern to "|/tmp/x"; the fake
	 * /proc/sys takes integers only, so: a knob it takes */
	static const char evil[] = "sysctl.vm.swappiness\t1\n";
	char jpath[PATH_MAX], rpath[PATH_MAX], lpath[PATH_MAX], buf[256];
	struct host_ctx *ctx = NULL;
	struct fixture f;
	const char *msg;
	size_t i;
	int r1, r2;

	(void)state;
	fixture_init(&f);
	snprintf(jpath, sizeof(jpath), "%s/state/host-journal", fake_root);
	snprintf(rpath, sizeof(rpath), "%s/run/host-journal", fake_root);
	snprintf(lpath, sizeof(lpath), "%s/state/journal", fake_root);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		put(SWAP, "60\n");
		unlink(jpath);
		unlink(lpath);
		put("/run/host-journal", evil);
		assert_int_equal(chmod(rpath, 0644), 0);
		if (rows[i].kind == 0) {
			put("/state/host-journal", evil);
			assert_int_equal(chmod(jpath, rows[i].mode), 0);
		} else if (rows[i].kind == 1) {
			assert_int_equal(symlink(rpath, jpath), 0);
		} else if (rows[i].kind == 2) {
			assert_int_equal(symlink(rpath, lpath), 0);
		} else {
			assert_int_equal(chmod(rpath, 0600), 0);
			assert_int_equal(link(rpath, jpath), 0);
		}
		if (rows[i].uid >= 0) {
			if (geteuid() != 0)
				continue; /* cannot chown: not root */
			assert_int_equal(chown(jpath, (uid_t)rows[i].uid, 0),
					 0);
		}
		capture_begin();
		r1 = host_restore_stale(&f.opts);
		r2 = host_ctx_new(&f.opts, &ctx);
		msg = capture_end();
		if (r1 >= 0 || r2 >= 0 || !strstr(msg, rows[i].why) ||
		    !strstr(msg, "not replayed"))
			fail_msg("%s: %d %d: %s", rows[i].what, r1, r2, msg);
		get(SWAP, buf, sizeof(buf));
		assert_string_equal(buf, "60");
		assert_true(exists("/run/host-journal"));
	}
	unlink(jpath);
	unlink(lpath);
	/* ours again: replayed */
	put("/state/host-journal", evil);
	assert_int_equal(chmod(jpath, 0600), 0);
	capture_begin();
	r1 = host_restore_stale(&f.opts);
	msg = capture_end();
	if (r1 != 1)
		fail_msg("ours: %d: %s", r1, msg);
	get(SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "1");
	assert_false(exists("/state/host-journal"));
}

/* The lock and the journal are root's only, in a root-only directory. */
static void test_state_modes(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	struct stat st;
	char path[PATH_MAX + 32];

	(void)state;
	fixture_init(&f);
	assert_int_equal(chmod(f.state, 0777), 0);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "thp.enabled", "never"), 0);
	assert_int_equal(stat(f.state, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	snprintf(path, sizeof(path), "%s/lock", f.state);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(path, sizeof(path), "%s/host-journal", f.state);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	host_ctx_free(ctx);
	assert_false(exists("/state/host-journal"));
}

static void test_generic_restore_async(void **state)
{
	struct host_ctx *ctx;
	struct fixture f;
	char buf[256];

	(void)state;
	put_generic();
	fixture_init(&f);
	assert_int_equal(host_ctx_new(&f.opts, &ctx), 0);
	assert_int_equal(host_set(ctx, "sysctl.vm.swappiness", "1"), 0);
	assert_int_equal(
	    host_set(ctx, "mm.transparent_hugepage.shmem_enabled", "deny"), 0);
	assert_int_equal(host_set(ctx, "sysctl.kernel.printk", "7 4 1 7"), 0);
	assert_int_equal(host_restore_async(ctx), 0);
	get(SWAP, buf, sizeof(buf));
	assert_string_equal(buf, "60");
	get(SHMEM, buf, sizeof(buf));
	assert_string_equal(buf,
			    "always within_size advise [never] deny force");
	get(PRINTK, buf, sizeof(buf));
	assert_string_equal(buf, "4\t4\t1\t7");
	assert_false(exists("/state/host-journal"));
	assert_false(exists("/state/host-journal"));
	host_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_accel, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_journal_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_state_modes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_restore_failure_survives_quiet,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_thp_set_restore, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_thp_bad_value, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_journal_before_change, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_readback_mismatch, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_paging_reload, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_paging_hygon, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_paging_insert_fails, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_paging_refused_while_vms_run,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_paging_waits_for_vms, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_paging_builtin, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_paging_pvm, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crash_then_restore, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_state_hard_links, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_hugetlb, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_nx_huge_pages, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_restore_async, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_generic_set_restore, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_generic_fields, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_generic_bad_names, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_generic_unsupported, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_generic_refused, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_generic_crash_then_restore,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_generic_restore_async, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
