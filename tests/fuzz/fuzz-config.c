/* SPDX-License-Identifier: MIT */
/*
 * fuzz-config - libFuzzer target for run configs and workload files
 * (orchestrator/config/ini-schema.c, run-config.c, run-config-load.c,
 * workload-def.c, matrix.c):
 * reading, the table-driven INI parser and its lists, --set overrides,
 * workload resolution, the matrix expansion (axes, ids, their JSON) and the
 * config echoed into results.json.
 *
 * run_config_load() reads a path and the workload file next to it, so each
 * input is written into a private directory (made once per process):
 *
 *	DIR/run.ini                   the input up to the first "\n%%\n"
 *	DIR/workloads/fuzz.ini        the input after it, up to the next one
 *	DIR/workloads/randwalk.ini    fixed (a copy of the demo's workload)
 *	--set arguments               the lines after the second "\n%%\n"
 *
 * so a plain config from configs/ is a valid input, and a config naming
 * 'fuzz' has its workload fuzzed along with it.  Workloads outside DIR can
 * only be reached through an absolute [workload] dir and are read, never run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix.h"
#include "run-config.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SETS 16

static const char randwalk_ini[] =
	"[workload]\n"
	"description = TLB-bound dependent random reads\n"
	"run = randwalk --size-mib $SIZE_MIB --reads $READS --seed $SEED\n"
	"metric = elapsed\n"
	"unit = s\n"
	"better = lower\n"
	"\n"
	"[param.SIZE_MIB]\n"
	"default = 2048\n"
	"description = size of the mapping in MiB\n"
	"\n"
	"[param.READS]\n"
	"default = 20000000\n"
	"\n"
	"[param.SEED]\n"
	"default = 1\n";

static char dir[64], run_path[128], wl_path[128];

static int put_file(const char *path, const void *data, size_t size)
{
	size_t off = 0;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_errno("cannot create '%s'", path);
	while (off < size) {
		ssize_t w = write(fd, (const char *)data + off, size - off);

		if (w < 0) {
			ret = err_errno("cannot write '%s'", path);
			break;
		}
		off += w;
	}
	close(fd);
	return ret;
}

static void cleanup(void)
{
	char *p = xasprintf("%s/workloads/randwalk.ini", dir);

	unlink(p);
	free(p);
	unlink(wl_path);
	unlink(run_path);
	p = xasprintf("%s/workloads", dir);
	rmdir(p);
	free(p);
	rmdir(dir);
}

static int setup(void)
{
	char *p;
	int ret;

	snprintf(dir, sizeof(dir), "/tmp/vmtax-fuzz-config.XXXXXX");
	if (!mkdtemp(dir))
		return err_errno("cannot create a directory under '/tmp'");
	p = xasprintf("%s/workloads", dir);
	ret = mkdir(p, 0700) < 0 ? err_errno("cannot create '%s'", p) : 0;
	if (!ret) {
		free(p);
		p = xasprintf("%s/workloads/randwalk.ini", dir);
		ret = put_file(p, randwalk_ini, strlen(randwalk_ini));
	}
	free(p);
	snprintf(run_path, sizeof(run_path), "%s/run.ini", dir);
	snprintf(wl_path, sizeof(wl_path), "%s/workloads/fuzz.ini", dir);
	atexit(cleanup);
	return ret;
}

/*
 * The next part of [*p, end) up to "\n%%\n" (or "%%\n" at its start, for an
 * empty part); *p moves past the separator.
 */
static size_t next_part(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *s = *p, *q;

	if (end - s >= 3 && !memcmp(s, "%%\n", 3)) {
		*p = s + 3; /* an empty part */
		return 0;
	}
	for (q = s; q + 4 <= end; q++)
		if (!memcmp(q, "\n%%\n", 4)) {
			*p = q + 4;
			return q - s + 1; /* keep the newline */
		}
	*p = end;
	return end - s;
}

/* Split the --set part into at most MAX_SETS NUL-terminated lines. */
static size_t split_sets(char *text, const char **sets)
{
	char *save = NULL, *line;
	size_t n = 0;

	for (line = strtok_r(text, "\n", &save); line && n < MAX_SETS;
	     line = strtok_r(NULL, "\n", &save))
		sets[n++] = line;
	return n;
}

static void exercise(struct run_config *c)
{
	struct matrix m;
	char **env, *s;
	json_t *j;
	size_t i;

	if (matrix_expand(c, &m) == 0) {
		if (m.baseline >= m.ncells)
			abort();
		for (i = 0; i < m.ncells; i++) {
			/* every cell has an id and a host THP mode */
			if (!m.cells[i].id[0] || !m.cells[i].host_thp)
				abort();
			if (m.cells[i].where == WHERE_GUEST &&
			    (!m.cells[i].guest_thp || !m.cells[i].vcpus ||
			     !paging_name(m.cells[i].paging) ||
			     !backing_name(m.cells[i].backing)))
				abort();
			j = matrix_cell_axes_json(&m, i);
			json_decref(j);
			env = cell_env_new(&m.cells[i]);
			free_strv(env);
		}
		j = matrix_axes_json(&m);
		s = json_dumps(j, JSON_COMPACT);
		if (!s)
			abort();
		free(s);
		json_decref(j);
		matrix_release(&m);
	}
	j = run_config_to_json(c);
	s = json_dumps(j, JSON_COMPACT);
	if (!s)
		abort();
	free(s);
	json_decref(j);
	env = workload_env_new(&c->wl);
	free_strv(env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size, *part;
	const char *sets[MAX_SETS];
	struct run_config c;
	struct workload w;
	char *set_text;
	size_t n, nsets;

	if (!dir[0] && setup() < 0)
		abort();
	part = p;
	n = next_part(&p, end);
	if (put_file(run_path, part, n) < 0)
		abort();
	part = p;
	n = next_part(&p, end);
	if (put_file(wl_path, part, n) < 0)
		abort();
	set_text = xstrndup((const char *)p, end - p);
	nsets = split_sets(set_text, sets);

	if (workload_load(wl_path, &w) == 0)
		workload_release(&w);
	if (run_config_load(run_path, sets, nsets, &c) == 0)
		exercise(&c);
	run_config_release(&c);
	free(set_text);
	return 0;
}
