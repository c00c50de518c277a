/* SPDX-License-Identifier: MIT */
/* vm-life.c - boot, hello, probe and shut down one guest (vm-life.h). */
#include "vm-life.h"

#include <string.h>

#include "util.h"

int vm_life_boot(struct vm_life *l, struct vm_conn *conn,
		 const struct vm_spec *spec, FILE *log, double watch_s)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->t_start = mono_now();
	ret = vm_start(conn, spec, &l->vm);
	if (ret < 0)
		return ret;
	l->libvirt_s = mono_now() - l->t_start;
	agent_client_init(&l->a, l->vm, log);
	if (watch_s > 0)
		agent_client_watch_console(&l->a, spec->console_log, watch_s);
	l->client = true;
	return 0;
}

int vm_life_restore(struct vm_life *l, struct vm_conn *conn,
		    const char *state, const struct vm_spec *spec, FILE *log)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->t_start = mono_now();
	ret = vm_restore(conn, state, spec, &l->vm);
	if (ret < 0)
		return ret;
	l->libvirt_s = mono_now() - l->t_start;
	agent_client_init(&l->a, l->vm, log);
	l->client = true;
	return 0;
}

int vm_life_hello(struct vm_life *l, double timeout_s, json_t **hello,
		  char *why, size_t len)
{
	*hello = NULL;
	return agent_call(&l->a, "hello", NULL, timeout_s, timeout_s, hello,
			  why, len);
}

bool vm_life_answers(struct vm_life *l, double timeout_s)
{
	json_t *res = NULL;
	char why[256];
	int ret;

	if (!l->client || l->agent_dead)
		return false;
	ret = agent_call(&l->a, "hello", NULL, timeout_s, timeout_s, &res,
			 why, sizeof(why));
	json_decref(res);
	return ret == 0;
}

void vm_life_down(struct vm_life *l, double delay_s, double grace_s,
		  json_t **bye)
{
	json_t *res = NULL, *args;
	char why[256];

	if (bye)
		*bye = NULL;
	if (l->vm && vm_running(l->vm)) {
		/* Without a shutdown reply nothing will power it off; a hung
		 * or gone agent gets no shutdown request. */
		args = json_pack("{s:f}", "delay_s", delay_s);
		if (l->client && !l->agent_dead &&
		    agent_call(&l->a, "shutdown", args, 5, 5, &res, why,
			       sizeof(why)) == 0) {
			vm_close_channel(l->vm);
			vm_stop(l->vm, grace_s);
			if (bye) {
				*bye = res;
				res = NULL;
			}
		} else {
			vm_close_channel(l->vm);
			vm_stop(l->vm, 0);
		}
		json_decref(res);
		json_decref(args);
	}
	vm_free(l->vm);
	if (l->client)
		agent_client_release(&l->a);
	memset(l, 0, sizeof(*l));
}
