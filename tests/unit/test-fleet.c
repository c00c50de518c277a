/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the fleet (orchestrator/fleet/fleet.h): destinations, each bad
 * one with its own reason; the ssh and scp command lines; a command run
 * with its output and a timeout; the host checks judged from a probe's
 * answers (a table); the merge of what came back.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "caps.h"
#include "fleet.h"
#include "util.h"

static void test_dest(void **state)
{
	static const char *const good[] = {
	    "box", "root@box", "a.b-c_d", "root@10.0.0.1", "lab1.example.org",
	};
	static const struct {
		const char *dest;
		const char *why; /* a substring of the reason */
	} bad[] = {
	    { "", "an empty destination" },
	    { "-oProxyCommand=x", "starts with '-': ssh would take it as an "
				  "option" },
	    { "-p22", "starts with '-'" },
	    { "a b", "0x20 at 2: white space: one destination is one word" },
	    { "a\tb", "0x09 at 2: white space" },
	    { "a\nb", "0x0a at 2: white space" },
	    { "a;b", "0x3b at 2: a shell metacharacter or ssh syntax" },
	    { "a$(id)", "0x24 at 2: a shell metacharacter" },
	    { "a`id`", "0x60 at 2: a shell metacharacter" },
	    { "a|b", "0x7c at 2: a shell metacharacter" },
	    { "a&b", "0x26 at 2: a shell metacharacter" },
	    { "a>b", "0x3e at 2: a shell metacharacter" },
	    { "a'b", "0x27 at 2: a shell metacharacter" },
	    { "a\"b", "0x22 at 2: a shell metacharacter" },
	    { "a*", "0x2a at 2: a shell metacharacter" },
	    { "a%h", "0x25 at 2: a shell metacharacter" },
	    { "ssh://box", "0x3a at 4: ports, ssh:// URIs and IPv6 literals go "
			   "in your ssh config: give its Host alias" },
	    { "box:22", "0x3a at 4: ports" },
	    { "[::1]", "0x5b at 1: ports" },
	    { "a/b", "0x2f at 2: ports" },
	    { "a\x01", "0x01 at 2: a control character" },
	    { "b\xc3\xa9", "0xc3 at 2: not ASCII" },
	    { "a@b@c", "want USER@HOST or HOST (one '@'" },
	    { "@box", "want USER@HOST or HOST" },
	    { "root@", "want USER@HOST or HOST" },
	    { "..", "a host name starts with a letter or a digit" },
	    { "root@-x", "a host name starts with a letter or a digit" },
	    { "root@.x", "a host name starts with a letter or a digit" },
	};
	char why[512], big[300];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (fleet_dest_check(good[i], why, sizeof(why)))
			fail_msg("'%s' refused: %s", good[i], why);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		if (fleet_dest_check(bad[i].dest, why, sizeof(why)) != -EINVAL)
			fail_msg("row %zu ('%s') was accepted", i, bad[i].dest);
		if (!strstr(why, bad[i].why))
			fail_msg("row %zu: got '%s', wanted '%s'", i, why,
				 bad[i].why);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(fleet_dest_check(big, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "a destination of 299 characters (at most "
				 "255)");
	assert_string_equal(fleet_dest_host("root@box"), "box");
	assert_string_equal(fleet_dest_host("box"), "box");
}

static void test_argv(void **state)
{
	static const char *const ssh[] = {
	    "ssh", "-o", "ControlMaster=auto", "-o",
	    "ControlPath=/tmp/vmtax-ssh-x/%C", "-o", "ControlPersist=60", "-o",
	    "BatchMode=yes", "-o", "ConnectTimeout=7", "-o",
	    "StrictHostKeyChecking=yes", "-o", "ServerAliveInterval=15", "-o",
	    "ServerAliveCountMax=4", "-T", "--", "root@box", "id -u",
	};
	struct fleet_ssh s = { .dir = "/tmp/vmtax-ssh-x", .connect_timeout_s = 7 };
	size_t n, i;
	char **v = fleet_ssh_argv_new(&s, "root@box", "id -u", &n);

	(void)state;
	assert_int_equal(n, ARRAY_SIZE(ssh));
	for (i = 0; i < n; i++)
		assert_string_equal(v[i], ssh[i]);
	assert_null(v[n]);
	strv_free(v, n);
	v = fleet_scp_argv_new(&s, "box", "vmtax-fleet/r/run", "/x/hosts/box",
			       &n);
	assert_string_equal(v[0], "scp");
	assert_string_equal(v[1], "-r");
	assert_string_equal(v[n - 3], "--");
	assert_string_equal(v[n - 2], "box:vmtax-fleet/r/run");
	assert_string_equal(v[n - 1], "/x/hosts/box");
	for (i = 0; i < n && strcmp(v[i], "StrictHostKeyChecking=yes"); i++)
		;
	assert_true(i < n);
	strv_free(v, n);
	/* [fleet] ssh_config: -F FILE first, for ssh and scp alike */
	snprintf(s.config, sizeof(s.config), "/x/ssh.conf");
	v = fleet_ssh_argv_new(&s, "lab1", "id -u", &n);
	assert_int_equal(n, ARRAY_SIZE(ssh) + 2);
	assert_string_equal(v[1], "-F");
	assert_string_equal(v[2], "/x/ssh.conf");
	assert_string_equal(v[3], "-o");
	strv_free(v, n);
	v = fleet_scp_argv_new(&s, "lab1", "r", "/x/l", &n);
	assert_string_equal(v[3], "-F");
	assert_string_equal(v[4], "/x/ssh.conf");
	strv_free(v, n);
}

/* The watch of test_copy_caps(): past the cap once PATH exists. */
static int grown(void *path)
{
	return access(path, F_OK) == 0;
}

static void test_capture(void **state)
{
	char *argv[] = { "sh", "-c", "echo one; echo two >&2; exit 3", NULL };
	char *slow[] = { "sleep", "5", NULL };
	char *none[] = { "/nonexistent/ssh", NULL };
	char *out = NULL;
	int status;
	double t0;

	(void)state;
	assert_int_equal(fleet_run_capture(argv, -1, 10, &out, &status), 0);
	assert_int_equal(status, 3);
	assert_string_equal(out, "one\ntwo\n");
	free(out);
	t0 = mono_now();
	assert_int_equal(fleet_run_capture(slow, -1, 0.3, &out, &status),
			 -ETIMEDOUT);
	assert_true(mono_now() - t0 < 3);
	assert_int_equal(status, 128 + 9);
	free(out);
	assert_int_equal(fleet_run_capture(none, -1, 10, &out, &status), 0);
	assert_int_equal(status, 127);
	assert_non_null(strstr(out, "cannot run '/nonexistent/ssh'"));
	free(out);
}

/* Several at once: each its own output and status, one timeout for all. */
static void test_capture_all(void **state)
{
	char *a[] = { "sh", "-c", "sleep 0.2; echo a", NULL };
	char *b[] = { "sh", "-c", "echo b; exit 255", NULL };
	char *c[] = { "sleep", "5", NULL };
	char *const *argvs[] = { a, b, c };
	char *outs[3];
	int statuses[3], rets[3];
	double t0 = mono_now();
	size_t i;

	(void)state;
	fleet_run_capture_all(argvs, 3, 1.0, outs, statuses, rets);
	assert_true(mono_now() - t0 < 3); /* together, not one by one */
	assert_int_equal(rets[0], 0);
	assert_int_equal(statuses[0], 0);
	assert_string_equal(outs[0], "a\n");
	assert_int_equal(rets[1], 0);
	assert_int_equal(statuses[1], 255);
	assert_string_equal(outs[1], "b\n");
	assert_int_equal(rets[2], -ETIMEDOUT);
	for (i = 0; i < 3; i++)
		free(outs[i]);
}

/*
 * What may come back from a host: its du's answer read, the caps judged
 * (each refusal with the size and the cap), a copy counted with no link
 * followed, and one stopped while it comes once past a cap.
 */
static void test_copy_caps(void **state)
{
	static const struct {
		const char *text;
		int ret;
		long long bytes, files;
	} answers[] = {
	    {"123\tvmtax-fleet/r/run\n45\tvmtax-fleet/r/run\n", 0, 123, 45},
	    {"5368709120 run\n7 run\n", 0, 5368709120LL, 7},
	    {"123\trun\n", -EINVAL, 0, 0}, /* no --inodes line */
	    {"du: unrecognized option '--inodes'\n", -EINVAL, 0, 0},
	    {"", -EINVAL, 0, 0},
	    {"-1\trun\n2\trun\n", -EINVAL, 0, 0},
	    {"99999999999999999999\trun\n2\trun\n", -EINVAL, 0, 0},
	};
	static const struct {
		long long bytes, files;
		const char *why; /* NULL: allowed */
	} sizes[] = {
	    {1 << 20, 40, NULL},
	    {FLEET_COPY_BYTES_MAX, FLEET_COPY_FILES_MAX, NULL},
	    {FLEET_COPY_BYTES_MAX + 1, 3,
	     "its run directory there is 4294967297 bytes in 3 files, "
	     "over FLEET_COPY_BYTES_MAX (4294967296 bytes)"},
	    {4096, FLEET_COPY_FILES_MAX + 1,
	     "its run directory there is 100001 files (4096 bytes), over "
	     "FLEET_COPY_FILES_MAX (100000 files)"},
	};
	char dir[] = "/tmp/vmtax-test-fleet-copy.XXXXXX", path[128], why[256];
	char *cmd, *out = NULL;
	char *grow[] = {"sh", "-c", NULL, NULL};
	long long bytes, files;
	size_t i;
	int status, fd;

	(void)state;
	cmd = fleet_usage_cmd_new("vmtax-fleet/r 1/run");
	assert_string_equal(cmd, "du -s -b -- 'vmtax-fleet/r 1/run' && "
				 "du -s --inodes -- 'vmtax-fleet/r 1/run'");
	free(cmd);
	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		bytes = files = -1;
		assert_int_equal(
		    fleet_usage_parse(answers[i].text, &bytes, &files),
		    answers[i].ret);
		if (!answers[i].ret) {
			assert_int_equal(bytes, answers[i].bytes);
			assert_int_equal(files, answers[i].files);
		}
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		why[0] = '\0';
		assert_int_equal(fleet_copy_judge(sizes[i].bytes,
						  sizes[i].files,
						  "its run directory there is",
						  why, sizeof(why)),
				 sizes[i].why ? -EFBIG : 0);
		if (sizes[i].why)
			assert_string_equal(why, sizes[i].why);
	}

	/* a copy counted: a sparse 5 GiB file, a link not followed */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/logs", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/logs/big", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 5LL << 30), 0);
	close(fd);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("logs/big", path), 0);
	assert_int_equal(tree_usage(dir, 4, &bytes, &files), 0);
	assert_int_equal(bytes, 5LL << 30);
	assert_int_equal(files, 3); /* logs, logs/big, link */
	assert_int_equal(fleet_copy_judge(bytes, files, "its copy came to", why,
					  sizeof(why)),
			 -EFBIG);
	assert_string_equal(why, "its copy came to 5368709120 bytes in 3 "
				 "files, over FLEET_COPY_BYTES_MAX "
				 "(4294967296 bytes)");
	/* deeper than counted */
	assert_int_equal(tree_usage(dir, 0, &bytes, &files), -ELOOP);

	/* a copy that passes a cap as it comes is stopped there */
	snprintf(path, sizeof(path), "%s/growing", dir);
	grow[2] = xasprintf("echo x >'%s'; exec sleep 60", path);
	assert_int_equal(
	    fleet_run_capture_watch(grow, 120, grown, path, &out, &status),
	    -EFBIG);
	assert_int_equal(status, 128 + 9);
	free(out);
	free(grow[2]);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
}

#define PROBE(root, ver, build, libvirt, accel)                                 \
	"{\"user\": {\"root\": " root "}, \"vmtax\": {\"version\": " ver       \
	", \"build_id\": " build "}, \"versions\": {\"libvirt\": " libvirt    \
	"}, \"accel\": {\"decision\": \"" accel "\", \"why\": \"no "          \
	"/dev/kvm\"}, \"host\": {\"cpu_model\": \"EPYC\", \"machine_id\": "    \
	"\"m1\"}}"
#define GOOD PROBE("true", "\"0.1.0\"", "\"fnv1a64:1\"", "\"9.0.0\"", "kvm")

static void test_judge(void **state)
{
	static const struct {
		const char *text;
		int status;
		bool guests, kvm;
		const char *why; /* "" accepted */
	} rows[] = {
	    { "uid=0\n" GOOD "\n", 0, true, true, "" },
	    { "uid=0\n" GOOD, 0, false, false, "" },
	    { "No ED25519 host key is known for b\nHost key verification "
	      "failed.\n",
	      255, false, false,
	      "its host key is not known here or has changed "
	      "(StrictHostKeyChecking=yes: check the key and add it to "
	      "known_hosts): ssh: Host key verification failed." },
	    { "root@b: Permission denied (publickey).\n", 255, false, false,
	      "ssh cannot log in (BatchMode: a key or agent, no password): "
	      "ssh: root@b: Permission denied (publickey)." },
	    { "ssh: connect to host b port 22: Connection refused\n", 255,
	      false, false,
	      "unreachable: ssh: connect to host b port 22: Connection "
	      "refused" },
	    { "", 255, false, false, "unreachable: ssh: (it said nothing)" },
	    { "uid=1000\n" GOOD, 0, false, false,
	      "not root (uid 1000 there): vmtax changes host settings; log in "
	      "as root" },
	    { "uid=0\nsh: 1: exec: vmtax: not found\n", 127, false, false,
	      "no vmtax there (not found: set [fleet] vmtax to its path)" },
	    { "uid=0\nvmtax: error: something\n", 1, false, false,
	      "its vmtax gave no probe (status 1): vmtax: error: something" },
	    { "uid=0\n{\"user\": {\"root\": true}}", 0, false, false,
	      "its vmtax is older than 0.1.0 (its probe has no version): "
	      "install this one" },
	    { "uid=0\n" PROBE("true", "\"0.2.0\"", "\"fnv1a64:1\"", "null",
			      "kvm"),
	      0, false, false, "vmtax 0.2.0 there, 0.1.0 here: install this one" },
	    { "uid=0\n" PROBE("true", "\"0.1.0\"", "\"fnv1a64:2\"", "null",
			      "kvm"),
	      0, false, false,
	      "another build of vmtax 0.1.0 (build fnv1a64:2 there, fnv1a64:1 "
	      "here): install this one" },
	    { "uid=0\n" PROBE("true", "\"0.1.0\"", "null", "null", "kvm"), 0,
	      false, false,
	      "another build of vmtax 0.1.0 (build unknown there" },
	    { "uid=0\n" PROBE("true", "\"0.1.0\"", "\"fnv1a64:1\"", "null",
			      "kvm"),
	      0, true, false,
	      "no libvirt (libvirtd does not answer there) and the matrix has "
	      "guest cells" },
	    { "uid=0\n" PROBE("true", "\"0.1.0\"", "\"fnv1a64:1\"",
			      "\"9.0.0\"", "tcg"),
	      0, true, true, "no KVM and [guest] accel = kvm: no /dev/kvm" },
	    { "uid=0\n" PROBE("true", "\"0.1.0\"", "\"fnv1a64:1\"",
			      "\"9.0.0\"", "tcg"),
	      0, true, false, "" },
	    { PROBE("false", "\"0.1.0\"", "\"fnv1a64:1\"", "null", "kvm"), 0,
	      false, false, "not root: vmtax changes host settings" },
	};
	struct fleet_want w = { "0.1.0", "fnv1a64:1", false, false, 0, 0 };
	struct fleet_probe p;
	char why[512];
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		w.libvirt = rows[i].guests;
		w.kvm = rows[i].kvm;
		why[0] = '\0';
		fleet_probe_parse(rows[i].text, &p);
		ret = fleet_host_judge(&p, rows[i].status, rows[i].text, &w,
				       why, sizeof(why));
		if (!*rows[i].why && ret)
			fail_msg("row %zu refused: %s", i, why);
		if (*rows[i].why && (ret != -EINVAL ||
				     strncmp(why, rows[i].why,
					     strlen(rows[i].why))))
			fail_msg("row %zu: got %d '%s', wanted '%s'", i, ret,
				 why, rows[i].why);
		fleet_probe_release(&p);
	}
}

/* A guest larger than a host is refused there with both figures; a probe
 * that does not say them passes (the host's own run checks). */
static void test_judge_sizes(void **state)
{
#define SIZED(cpus, mem)                                                      \
	"uid=0\n{\"user\": {\"root\": true}, \"vmtax\": {\"version\": "        \
	"\"0.1.0\", \"build_id\": \"fnv1a64:1\"}, \"versions\": {\"libvirt\": " \
	"\"9.0.0\"}, \"accel\": {\"decision\": \"kvm\"}, \"host\": "           \
	"{\"machine_id\": \"m1\"" cpus mem "}}"
	static const struct {
		const char *text;
		long vcpus;
		unsigned long long memory;
		const char *why; /* "" accepted */
	} rows[] = {
	    { SIZED(", \"cpus\": 2", ", \"mem_bytes\": 8589934592"), 4,
	      1ULL << 30,
	      "its 2 CPUs are fewer than the 4 vCPUs a guest of the matrix "
	      "asks for: give [guest] vcpus 2 or fewer" },
	    { SIZED(", \"cpus\": 2", ", \"mem_bytes\": 8589934592"), 2,
	      200ULL << 30,
	      "its 8.0 GiB of memory (MemTotal) is less than the 200.0 GiB a "
	      "guest of the matrix asks for: lower [guest] memory" },
	    { SIZED(", \"cpus\": 2", ", \"mem_bytes\": 8589934592"), 2,
	      8ULL << 30, "" },
	    { SIZED("", ""), 64, 200ULL << 30, "" },
	};
	struct fleet_want w = { "0.1.0", "fnv1a64:1", true, false, 0, 0 };
	struct fleet_probe p;
	char why[512];
	size_t i;
	int ret;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		w.vcpus = rows[i].vcpus;
		w.memory = rows[i].memory;
		why[0] = '\0';
		fleet_probe_parse(rows[i].text, &p);
		assert_non_null(p.doc);
		ret = fleet_host_judge(&p, 0, rows[i].text, &w, why,
				       sizeof(why));
		if (!*rows[i].why && ret)
			fail_msg("row %zu refused: %s", i, why);
		if (*rows[i].why && (ret != -EINVAL || strcmp(why, rows[i].why)))
			fail_msg("row %zu: got %d '%s', wanted '%s'", i, ret,
				 why, rows[i].why);
		fleet_probe_release(&p);
	}
#undef SIZED
}

static void test_probe_host(void **state)
{
	struct fleet_probe p;
	json_t *h;

	(void)state;
	fleet_probe_parse("uid=0\n" GOOD "\nConnection closed.\n", &p);
	assert_int_equal(p.uid, 0);
	assert_non_null(p.doc);
	assert_string_equal(fleet_probe_machine_id(p.doc), "m1");
	h = fleet_probe_host_new(p.doc);
	assert_string_equal(json_string_value(json_object_get(h, "accel")),
			    "kvm");
	assert_null(json_object_get(h, "machine_id"));
	assert_string_equal(
	    json_string_value(json_object_get(h, "cpu_model")), "EPYC");
	json_decref(h);
	fleet_probe_release(&p);
	assert_null(fleet_probe_host_new(NULL));
	fleet_probe_parse("garbage", &p);
	assert_int_equal(p.uid, -1);
	assert_null(p.doc);
	assert_string_equal(fleet_probe_machine_id(NULL), "");
}

static json_t *doc_with(const char *c0, const char *c1)
{
	json_t *d = json_pack("{s:{s:{s:s}}, s:[]}", "run", "host",
			      "cpu_model", "EPYC", "cells");
	json_t *cells = json_object_get(d, "cells");

	json_array_append_new(cells, json_loads(c0, 0, NULL));
	json_array_append_new(cells, json_loads(c1, 0, NULL));
	return d;
}

static void test_merge(void **state)
{
	json_t *a = doc_with("{\"id\": \"x\", \"status\": \"ok\", \"samples\": "
			     "[{}, {}]}",
			     "{\"id\": \"y\", \"status\": \"ok\", \"samples\": "
			     "[{}]}");
	json_t *b = doc_with("{\"id\": \"x\", \"status\": \"ok\", \"samples\": "
			     "[{}]}",
			     "{\"id\": \"y\", \"status\": \"failed\", "
			     "\"reason\": \"sample 0 timed out\", "
			     "\"samples\": []}");
	struct fleet_host_result h[3] = {
	    { "a", a, NULL, 0, NULL },
	    { "root@b", b, NULL, 1, NULL },
	    { "c", NULL, NULL, -1, "the connection was lost" },
	};
	json_t *obs, *label, *e;
	char *reason;
	const char *st;

	(void)state;
	st = fleet_cell_merge(h, 2, 0, &reason, &obs);
	assert_string_equal(st, "ok");
	assert_null(reason);
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(json_object_get(obs, "hosts"), "a"),
			     "samples")),
			 2);
	json_decref(obs);
	st = fleet_cell_merge(h, 2, 1, &reason, &obs);
	assert_string_equal(st, "failed");
	assert_string_equal(reason, "host 'root@b': sample 0 timed out");
	free(reason);
	json_decref(obs);
	st = fleet_cell_merge(h, 3, 0, &reason, &obs);
	assert_string_equal(st, "failed");
	assert_string_equal(reason, "host 'c': the connection was lost");
	free(reason);
	json_decref(obs);

	label = fleet_label_new("each", h, 3);
	assert_string_equal(
	    json_string_value(json_object_get(label, "mode")), "each");
	e = json_array_get(json_object_get(label, "hosts"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "status")),
			    "ok");
	assert_true(json_is_null(json_object_get(e, "reason")));
	assert_string_equal(json_string_value(json_object_get(e, "results")),
			    "hosts/a/results.json");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(e, "host"), "cpu_model")),
			    "EPYC");
	e = json_array_get(json_object_get(label, "hosts"), 1);
	assert_string_equal(json_string_value(json_object_get(e, "reason")),
			    "the run there exited with status 1");
	assert_int_equal(json_integer_value(json_object_get(
			     json_object_get(e, "cells"), "failed")),
			 1);
	e = json_array_get(json_object_get(label, "hosts"), 2);
	assert_true(json_is_null(json_object_get(e, "exit_status")));
	assert_true(json_is_null(json_object_get(e, "results")));
	assert_true(json_is_null(json_object_get(e, "host")));
	json_decref(label);
	json_decref(a);
	json_decref(b);
}

/* Mode split: round robin, each host's share, one document whose every
 * cell comes from the host that ran it. */
/* The hosts of a split fleet that differ from the first, by their probes'
 * run.host (else their results'). */
static void test_unlike(void **state)
{
	json_t *pa = json_pack("{s:s, s:s, s:i}", "cpu_model", "EPYC",
			       "kernel", "6.1", "cpus", 8);
	json_t *pb = json_pack("{s:s, s:s, s:i}", "cpu_model", "EPYC",
			       "kernel", "6.1", "cpus", 8);
	json_t *pc = json_pack("{s:s, s:s, s:i}", "cpu_model", "Xeon",
			       "kernel", "6.12", "cpus", 8);
	struct fleet_host_result h[3] = {
	    {.name = "a", .host = pa, .rc = 0},
	    {.name = "b", .host = pb, .rc = 0},
	    {.name = "c", .host = pc, .rc = 0},
	};
	json_t *u, *e, *label;

	(void)state;
	assert_null(fleet_unlike_new(h, 2));
	label = fleet_label_new("split", h, 2);
	assert_null(json_object_get(label, "unlike"));
	json_decref(label);
	u = fleet_unlike_new(h, 3);
	assert_int_equal(json_array_size(u), 1);
	e = json_array_get(u, 0);
	assert_string_equal(json_string_value(json_object_get(e, "host")),
			    "c");
	assert_string_equal(
	    json_string_value(json_object_get(e, "differs_from")), "a");
	assert_int_equal(json_array_size(json_object_get(e, "fields")), 2);
	assert_string_equal(json_string_value(json_array_get(
				json_object_get(e, "fields"), 0)),
			    "cpu_model");
	assert_string_equal(json_string_value(json_array_get(
				json_object_get(e, "fields"), 1)),
			    "kernel");
	assert_string_equal(json_string_value(json_object_get(e, "text")),
			    "cpu_model ('EPYC' vs 'Xeon'), kernel ('6.1' vs "
			    "'6.12')");
	json_decref(u);
	/* mode split records it; mode each does not */
	label = fleet_label_new("split", h, 3);
	assert_int_equal(json_array_size(json_object_get(label, "unlike")), 1);
	json_decref(label);
	label = fleet_label_new("each", h, 3);
	assert_null(json_object_get(label, "unlike"));
	json_decref(label);
	json_decref(pa);
	json_decref(pb);
	json_decref(pc);
}

static void test_split(void **state)
{
	const char *cells_a =
	    "[{\"id\": \"c0\", \"status\": \"ok\", \"samples\": [{\"metric\": 1}]},"
	    " {\"id\": \"c1\", \"status\": \"skipped\", \"reason\": \"x\","
	    " \"stop_reason\": \"skipped\", \"samples\": []},"
	    " {\"id\": \"c2\", \"status\": \"ok\", \"samples\": [{\"metric\": 3}]}]";
	json_t *a = json_pack("{s:s, s:{s:s, s:s}, s:o}", "schema", "x", "run",
			      "status", "complete", "name", "a", "cells",
			      json_loads(cells_a, 0, NULL));
	struct fleet_host_result h[2] = {
	    {"a", a, NULL, 0, NULL},
	    {"b", NULL, NULL, -1, "the connection was lost"},
	};
	json_t *doc, *c;
	char *s;

	(void)state;
	assert_int_equal(fleet_split_host(0, 2), 0);
	assert_int_equal(fleet_split_host(3, 2), 1);
	assert_int_equal(fleet_split_host(4, 3), 1);
	s = fleet_split_cells_new(0, 2, 5);
	assert_string_equal(s, "0,2,4");
	free(s);
	s = fleet_split_cells_new(1, 2, 5);
	assert_string_equal(s, "1,3");
	free(s);
	s = fleet_split_cells_new(2, 3, 2);
	assert_string_equal(s, "");
	free(s);

	assert_null(fleet_split_doc_new(h + 1, 1, 3));
	doc = fleet_split_doc_new(h, 2, 3);
	assert_non_null(doc);
	/* b did not end: this run is not complete */
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(doc, "run"), "status")),
			    "interrupted");
	assert_int_equal(json_array_size(json_object_get(doc, "cells")), 3);
	c = json_array_get(json_object_get(doc, "cells"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "status")),
			    "ok");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(c, "observed"), "host")),
			    "a");
	assert_int_equal(json_array_size(json_object_get(c, "samples")), 1);
	/* c1 is b's, which gave no results: failed, named, no samples */
	c = json_array_get(json_object_get(doc, "cells"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "id")), "c1");
	assert_string_equal(json_string_value(json_object_get(c, "status")),
			    "failed");
	assert_string_equal(json_string_value(json_object_get(c, "reason")),
			    "host 'b': the connection was lost");
	assert_true(json_is_null(json_object_get(c, "stop_reason")));
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(c, "observed"), "host")),
			    "b");
	assert_int_equal(json_array_size(json_object_get(c, "samples")), 0);
	c = json_array_get(json_object_get(doc, "cells"), 2);
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(c, "samples"), 0),
			     "metric")),
			 3);
	json_decref(doc);
	h[1].doc = a;
	h[1].rc = 0;
	h[1].why = NULL;
	doc = fleet_split_doc_new(h, 2, 3);
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(doc, "run"), "status")),
			    "complete");
	/* b's own c1 (skipped there) is what b says of it */
	c = json_array_get(json_object_get(doc, "cells"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "reason")),
			    "host 'b': x");
	json_decref(doc);
	json_decref(a);
}

/* Mode each: the host the outermost axis of this run's record, every
 * host's cells with their host and fingerprint; undone to resume. */
static void test_each_record(void **state)
{
	const char *cells =
	    "[{\"id\": \"bare-metal/vcpus=1\", \"axes\": {\"where\": "
	    "\"bare-metal\", \"vcpus\": \"1\"}, \"status\": \"ok\", "
	    "\"samples\": [{\"metric\": 1}]},"
	    " {\"id\": \"bare-metal/vcpus=2\", \"axes\": {\"where\": "
	    "\"bare-metal\", \"vcpus\": \"2\"}, \"status\": \"ok\", "
	    "\"samples\": [{\"metric\": 2}]}]";
	json_t *a = json_pack("{s:s, s:{s:{s:{s:s}}}, s:o}", "schema", "x",
			      "run", "host", "fingerprint", "cpu", "A",
			      "cells", json_loads(cells, 0, NULL));
	json_t *probe = json_pack("{s:{s:s}}", "fingerprint", "cpu", "B");
	struct fleet_host_result h[2] = {
	    {"a", a, NULL, 0, NULL},
	    {"root@b", NULL, probe, -1, "the connection was lost"},
	};
	json_t *head = json_pack(
	    "{s:s, s:{s:s}, s:[{s:s, s:[s]}, {s:s, s:[s, s]}]}", "baseline",
	    "bare-metal/vcpus=1", "fleet", "mode", "each", "axes", "name",
	    "where", "values", "bare-metal", "name", "vcpus", "values", "1",
	    "2");
	json_t *rec, *c, *axes;

	(void)state;
	rec = fleet_each_cells_new(h, 2, head, json_object_get(a, "cells"));
	assert_int_equal(json_array_size(rec), 4);
	axes = json_object_get(head, "axes");
	assert_int_equal(json_array_size(axes), 3);
	assert_string_equal(json_string_value(json_object_get(
				json_array_get(axes, 1), "name")),
			    "host");
	assert_string_equal(json_string_value(json_object_get(head, "baseline")),
			    "bare-metal/host=a/vcpus=1");
	c = json_array_get(rec, 1);
	assert_string_equal(json_string_value(json_object_get(c, "id")),
			    "bare-metal/host=a/vcpus=2");
	assert_string_equal(json_string_value(json_object_get(
				json_object_get(c, "axes"), "host")),
			    "a");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
				json_object_get(c, "host"), "fingerprint"), "cpu")),
			    "A");
	assert_int_equal(json_integer_value(json_object_get(
			     json_array_get(json_object_get(c, "samples"), 0),
			     "metric")),
			 2);
	/* root@b's: its own cells, failed with why, its probe's fingerprint */
	c = json_array_get(rec, 2);
	assert_string_equal(json_string_value(json_object_get(c, "id")),
			    "bare-metal/host=root@b/vcpus=1");
	assert_string_equal(json_string_value(json_object_get(c, "status")),
			    "failed");
	assert_string_equal(json_string_value(json_object_get(c, "reason")),
			    "host 'root@b': the connection was lost");
	assert_int_equal(json_array_size(json_object_get(c, "samples")), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
				json_object_get(c, "host"), "fingerprint"), "cpu")),
			    "B");

	/* undone: the matrix's cells again, without their host */
	json_object_set(head, "cells", rec);
	fleet_each_cells_undo(head);
	assert_int_equal(json_array_size(json_object_get(head, "axes")), 2);
	assert_string_equal(json_string_value(json_object_get(head, "baseline")),
			    "bare-metal/vcpus=1");
	assert_int_equal(json_array_size(json_object_get(head, "cells")), 2);
	c = json_array_get(json_object_get(head, "cells"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "id")),
			    "bare-metal/vcpus=2");
	assert_null(json_object_get(json_object_get(c, "axes"), "host"));
	assert_null(json_object_get(c, "host"));
	assert_int_equal(json_array_size(json_object_get(c, "samples")), 0);
	json_decref(rec);
	json_decref(head);
	json_decref(probe);
	json_decref(a);
}

/* The commands a host runs: the fleet's own --set replaced by ours. */
static void test_cmds(void **state)
{
	const char *const sets[] = {"run.repeat=3", "fleet.mode=split",
				    "run.executor=fleet", "run.cells=1"};
	char *d = fleet_remote_dir_new("/tmp/out/my run/");
	char *c = fleet_run_cmd_new(d, "vmtax", sets, 4, "0,2");

	(void)state;
	assert_string_equal(d, "vmtax-fleet/my_run");
	assert_non_null(strstr(c, "cd 'vmtax-fleet/my_run' || exit 97; "));
	assert_non_null(strstr(c, "'vmtax' run config.ini --out run --set "
				  "'run.repeat=3' --set "
				  "'run.executor=local' --set "
				  "'workload.dir=workloads' --set "
				  "'run.cells=0,2' >run.log"));
	assert_null(strstr(c, "fleet.mode"));
	free(c);
	c = fleet_run_cmd_new(d, "vmtax", sets, 1, NULL);
	assert_null(strstr(c, "run.cells"));
	free(c);
	c = fleet_resume_cmd_new(d, "/opt/vmtax", "cd x; echo a");
	assert_non_null(strstr(c, "cd && exec sh -c 'cd x; echo a'; fi"));
	assert_non_null(strstr(c, "cd 'vmtax-fleet/my_run' || exit 97; "));
	assert_non_null(strstr(c, "if [ -f run.rc ]; then"));
	assert_non_null(
	    strstr(c, "'/opt/vmtax' run --resume run >>run.log 2>&1"));
	assert_null(strstr(c, "config.ini"));
	free(c);
	free(d);
}

static void test_probe_cmd(void **state)
{
	char *c = fleet_probe_cmd_new("/opt/vmtax/bin/vmtax");

	(void)state;
	assert_string_equal(c, "echo uid=$(id -u); exec '/opt/vmtax/bin/vmtax' "
			       "host probe --json");
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dest),
	    cmocka_unit_test(test_argv),
	    cmocka_unit_test(test_capture),
	    cmocka_unit_test(test_capture_all),
	    cmocka_unit_test(test_judge),
	    cmocka_unit_test(test_judge_sizes),
	    cmocka_unit_test(test_copy_caps),
	    cmocka_unit_test(test_probe_host),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_probe_cmd),
	    cmocka_unit_test(test_split),
	    cmocka_unit_test(test_cmds),
	    cmocka_unit_test(test_unlike),
	    cmocka_unit_test(test_each_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
