/* SPDX-License-Identifier: MIT */
/*
 * fleet-cmd.c - the commands a fleet host runs (fleet.h): where its run
 * goes, the run of the matrix (or of its share) and the resume of that run,
 * each one POSIX sh command line built here from sh-quoted words; and the
 * size of its run directory, asked before the copy back, with what is made
 * of the answer.  Pure.
 */
#include "fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "util.h"

char *fleet_remote_dir_new(const char *rundir)
{
	char *dir = xstrdup(rundir), *name, *d;
	size_t i = strlen(dir);

	while (i > 1 && dir[i - 1] == '/')
		dir[--i] = '\0'; /* "RUN/" is RUN */
	name = xstrdup(path_base(dir));
	free(dir);

	for (i = 0; name[i]; i++)
		if (!strchr(
			"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._-",
			name[i]) ||
		    (!i && name[i] == '.'))
			name[i] = '_';
	d = xasprintf(FLEET_REMOTE_DIR "/%s", *name ? name : "run");
	free(name);
	return d;
}

/* Whether --set S is one the hosts' runs must not get (their own are
 * added last). */
static bool set_is_fleets(const char *s)
{
	return !strncmp(s, "run.executor=", 13) || !strncmp(s, "fleet.", 6) ||
	       !strncmp(s, "workload.dir=", 13) || !strncmp(s, "run.cells=", 10);
}

/* " --set 'S'" for each of SETS[0..N) a host's run gets, then ours. */
static char *sets_new(const char *const *sets, size_t n, const char *cells)
{
	char *share = cells ? xasprintf("run.cells=%s", cells) : NULL;
	const char *const ours[] = {"run.executor=" CELL_EXEC_LOCAL,
				    "workload.dir=workloads", share};
	size_t nours = ARRAY_SIZE(ours) - !share, i;
	char *out = xstrdup(""), *q, *prev;

	for (i = 0; i < n + nours; i++) {
		const char *s = i < n ? sets[i] : ours[i - n];

		if (i < n && set_is_fleets(s))
			continue;
		q = sh_quote_new(s);
		prev = out;
		out = xasprintf("%s --set %s", prev, q);
		free(prev);
		free(q);
	}
	free(share);
	return out;
}

char *fleet_run_cmd_new(const char *rdir, const char *vmtax,
			const char *const *sets, size_t nsets,
			const char *cells)
{
	char *s = sets_new(sets, nsets, cells), *d = sh_quote_new(rdir);
	char *vm = sh_quote_new(vmtax), *cmd;

	cmd = xasprintf("cd %s || exit 97; : >run.log; "
			"%s run config.ini --out run%s >run.log 2>&1 "
			"</dev/null & p=$!; echo $p >run.pid; "
			"tail -n +1 -f --pid=$p run.log 2>/dev/null; "
			"wait $p; rc=$?; echo $rc >run.rc; exit $rc",
			d, vm, s);
	free(vm);
	free(d);
	free(s);
	return cmd;
}

char *fleet_resume_cmd_new(const char *rdir, const char *vmtax,
			   const char *run_cmd)
{
	char *d = sh_quote_new(rdir), *vm = sh_quote_new(vmtax), *cmd;
	char *again = sh_quote_new(run_cmd);

	cmd = xasprintf(
	    "cd %s || exit 97; p=$(cat run.pid 2>/dev/null); "
	    "if [ ! -f run.rc ] && [ -n \"$p\" ] && kill -0 \"$p\" 2>/dev/null; "
	    "then echo \"vmtax: fleet: the run here still runs (pid $p): "
	    "following it\"; tail -n 0 -f --pid=\"$p\" run.log 2>/dev/null; "
	    "sleep 1; fi; "
	    "if [ -f run.rc ]; then rc=$(cat run.rc); echo \"vmtax: fleet: the "
	    "run here ended (status $rc)\"; exit \"$rc\"; fi; "
	    "if [ ! -f run/results.json ]; then echo \"vmtax: fleet: the run "
	    "here had not begun: it begins again\"; rm -rf run; cd && exec sh -c "
	    "%s; fi; "
	    "s=$(wc -c <run.log 2>/dev/null || echo 0); "
	    "%s run --resume run >>run.log 2>&1 </dev/null & p=$!; "
	    "echo $p >run.pid; "
	    "tail -c +$((s + 1)) -f --pid=$p run.log 2>/dev/null; "
	    "wait $p; rc=$?; "
	    "if [ $rc = 2 ] && tail -n 1 run.log | grep -q 'nothing to "
	    "resume'; then rc=0; fi; echo $rc >run.rc; exit $rc",
	    d, again, vm);
	free(again);
	free(vm);
	free(d);
	return cmd;
}

char *fleet_usage_cmd_new(const char *dir)
{
	char *q = sh_quote_new(dir);
	char *cmd = xasprintf("du -s -b -- %s && du -s --inodes -- %s", q, q);

	free(q);
	return cmd;
}

/* The number at the start of the line at *P ("N<TAB>PATH"), *P moved to
 * the next line: 0, or -1 when it has none. */
static int usage_line(const char **p, long long *n)
{
	const char *s = *p, *nl = strchr(s, '\n');
	size_t digits = strspn(s, "0123456789");

	*p = nl ? nl + 1 : s + strlen(s);
	if (!digits || digits > 18 || (s[digits] != '\t' && s[digits] != ' '))
		return -1;
	*n = atoll(s);
	return 0;
}

int fleet_usage_parse(const char *text, long long *bytes, long long *files)
{
	const char *p = text;

	if (usage_line(&p, bytes) < 0 || usage_line(&p, files) < 0)
		return -EINVAL;
	return 0;
}

int fleet_copy_judge(long long bytes, long long files, const char *what,
		     char *why, size_t len)
{
	if (bytes > FLEET_COPY_BYTES_MAX) {
		snprintf(
		    why, len,
		    "%s %lld bytes in %lld files, over FLEET_COPY_BYTES_MAX "
		    "(%lld bytes)",
		    what, bytes, files, FLEET_COPY_BYTES_MAX);
		return -EFBIG;
	}
	if (files > FLEET_COPY_FILES_MAX) {
		snprintf(
		    why, len,
		    "%s %lld files (%lld bytes), over FLEET_COPY_FILES_MAX "
		    "(%d files)",
		    what, files, bytes, FLEET_COPY_FILES_MAX);
		return -EFBIG;
	}
	return 0;
}
