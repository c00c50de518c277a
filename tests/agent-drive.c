/* SPDX-License-Identifier: MIT */
/*
 * agent-drive - boot one guest and talk to its agent through
 * orchestrator/guest/agent-client.h, for the shell tests
 *(tests/t0230-agent-observe.sh).
 *
 *	agent-drive KERNEL INITRD VCPUS MEMORY_MIB CMDLINE CONSOLE_LOG <REQUESTS
 *
 * The domain is "vmtax-agent-drive-PID" on qemu:///system, KVM when the host
 * has it, else TCG (host_accel_decide()); under TCG the environment's
 * AGENT_DRIVE_CPU (a QEMU CPU model) and AGENT_DRIVE_CPU_FEATURES ("-erms
 * -fsrm") make its <cpu> (tests/slow/lockup-loop.sh).  CONSOLE_LOG is
 * watched as vmtax watches it (agent_client_watch_console(), 3 s of
 * silence): a lockup there ends a call.  After the hello handshake each
 * line of REQUESTS is one JSON request object without v and id:
 *	{"type": "set-knob", "name": N, "value": V}   -> agent_set_knob()
 *	{"type": "observe"}                            -> agent_observe()
 *	{"type": T, ...}                               -> agent_call(T, ...)
 * and each gets one line on stdout:
 *	{"type": T, "ret": 0, "result": {...}}
 *	{"type": T, "ret": -121, "why": "agent error bad-knob: ..."}
 * The first line is the hello's.  At the end of input the guest is shut
 * down through the agent.  Exit status 0 when every line was answered
 * (whatever the answer), 1 when the guest could not be started or stopped
 * answering, 2 for a usage error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent-client.h"
#include "host.h"
#include "util.h"
#include "vm.h"

#define BOOT_TIMEOUT_S 180.0

static void print_answer(const char *type, int ret, json_t *result,
			 const char *why)
{
	json_t *line = json_pack("{s:s, s:i}", "type", type, "ret", ret);
	char *s;

	if (ret == 0)
		json_object_set(line, "result", result ? result : json_null());
	else
		json_object_set_new(line, "why", json_string(why));
	s = json_dumps(line, JSON_COMPACT);
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	json_decref(line);
}

/* Answer one request line; a negative return means the agent is gone. */
static int one(struct agent_client *a, const char *text)
{
	json_t *req = json_loads(text, 0, NULL), *res = NULL;
	char why[1024] = "", got[256], *type;
	int ret;

	if (!json_is_string(json_object_get(req, "type"))) {
		json_decref(req);
		return err("not a request object: '%s'", text);
	}
	/* A copy: "type" is removed from REQ before a generic call. */
	type = xstrdup(json_string_value(json_object_get(req, "type")));
	if (!strcmp(type, "set-knob")) {
		const char *n = json_string_value(json_object_get(req, "name"));
		const char *v =
		    json_string_value(json_object_get(req, "value"));

		ret = agent_set_knob(a, n ? n : "", v ? v : "", got,
				     sizeof(got), why, sizeof(why));
		if (ret == 0)
			res = json_pack("{s:s}", "value", got);
	} else if (!strcmp(type, "observe")) {
		ret = agent_observe(a, &res, why, sizeof(why));
	} else {
		json_object_del(req, "type");
		ret = agent_call(a, type, req, 30, 60, &res, why, sizeof(why));
	}
	print_answer(type, ret, res, why);
	json_decref(res);
	json_decref(req);
	free(type);
	return ret == -EPIPE || ret == -ETIMEDOUT ? ret : 0;
}

int main(int argc, char **argv)
{
	struct vm_conn *conn = NULL;
	struct agent_client a;
	struct vm_spec spec;
	struct vm *vm = NULL;
	char name[64], why[1024], accel_why[256], line[4096];
	json_t *res = NULL, *sargs;
	bool client = false;
	int ret = 1;

	if (argc != 7) {
		fprintf(stderr, "usage: agent-drive KERNEL INITRD VCPUS "
				"MEMORY_MIB CMDLINE CONSOLE_LOG <REQUESTS\n");
		return 2;
	}
	snprintf(name, sizeof(name), "vmtax-agent-drive-%d", (int)getpid());
	memset(&spec, 0, sizeof(spec));
	spec.name = name;
	spec.type =
	    strcmp(host_accel_decide("", accel_why, sizeof(accel_why)), "kvm")
		? "qemu"
		: "kvm";
	spec.kernel = argv[1];
	spec.initrd = argv[2];
	spec.vcpus = (unsigned)atoi(argv[3]);
	spec.memory_bytes = strtoull(argv[4], NULL, 10) << 20;
	spec.cmdline = argv[5];
	spec.console_log = argv[6];
	spec.backing = "thp";
	spec.cpu_model = getenv("AGENT_DRIVE_CPU");
	spec.cpu_features = getenv("AGENT_DRIVE_CPU_FEATURES");
	if (spec.cpu_model && !*spec.cpu_model)
		spec.cpu_model = NULL;

	if (vm_conn_open("qemu:///system", &conn) < 0 ||
	    vm_start(conn, &spec, &vm) < 0)
		goto out;
	agent_client_init(&a, vm, NULL);
	agent_client_watch_console(&a, argv[6], 3);
	client = true;
	ret = agent_call(&a, "hello", NULL, BOOT_TIMEOUT_S, BOOT_TIMEOUT_S,
			 &res, why, sizeof(why));
	print_answer("hello", ret, res, why);
	json_decref(res);
	res = NULL;
	if (ret < 0) {
		ret = 1;
		goto out;
	}
	ret = 0;
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		if (one(&a, line) < 0) {
			ret = 1;
			break;
		}
	}
	sargs = json_pack("{s:f}", "delay_s", 2.0);
	if (ret == 0 && agent_call(&a, "shutdown", sargs, 5, 5, &res, why,
				   sizeof(why)) == 0) {
		vm_close_channel(vm);
		vm_stop(vm, 20);
	}
	json_decref(sargs);
	json_decref(res);
out:
	if (vm) {
		vm_close_channel(vm);
		vm_free(vm);
	}
	if (client)
		agent_client_release(&a);
	vm_conn_close(conn);
	return ret;
}
