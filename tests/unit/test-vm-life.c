/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for a guest's life (orchestrator/guest/vm-life.c): a fake domain
 * and agent in place of orchestrator/guest/vm.c record what the lifecycle asks
 * of them, so that the polite shutdown (the agent's 'shutdown', the channel
 * closed, then the grace period) and its impolite cases are checked once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake-channel.h"
#include "util.h"
#include "vm-life.h"

/* The fake domain and its agent. */
struct vm {
	bool running;
	bool gone; /* the channel fails: the agent is gone */
	struct fake_rx rx;
	char last[32]; /* the last request's type */
	double shutdown_delay;
	int requests;
	double stopped; /* vm_stop()'s grace, or -1: not called */
	bool closed;	/* vm_close_channel() before vm_stop() */
	bool closed_first;
};

static struct vm the_vm;
static int start_ret;
static int freed;

int vm_start(struct vm_conn *c, const struct vm_spec *spec, struct vm **out)
{
	(void)c;
	assert_non_null(spec->console_log);
	if (start_ret < 0)
		return start_ret;
	*out = &the_vm;
	return 0;
}

/* vm_life_restore() is vm_life_boot() on a restored domain: not run here. */
int vm_restore(struct vm_conn *c, const char *state,
	       const struct vm_spec *spec, struct vm **out)
{
	(void)c;
	(void)state;
	(void)spec;
	(void)out;
	return -ENOSYS;
}

static void queue(struct vm *vm, json_t *msg /* stolen */)
{
	fake_rx_queue(&vm->rx, msg);
}

int vm_send(struct vm *vm, const void *buf, size_t len, double timeout_s)
{
	json_t *req;
	const char *type;

	(void)timeout_s;
	if (vm->gone)
		return -EPIPE;
	req = fake_request_decode(buf, len);
	type = json_string_value(json_object_get(req, "type"));
	snprintf(vm->last, sizeof(vm->last), "%s", type ? type : "?");
	vm->requests++;
	if (!strcmp(vm->last, "shutdown")) {
		vm->shutdown_delay =
		    json_number_value(json_object_get(req, "delay_s"));
		queue(vm, proto_reply_ok_new(
			      proto_id(req),
			      json_pack("{s:i}", "agent_max_rss_kb", 42)));
	} else {
		queue(vm, proto_reply_ok_new(
			      proto_id(req),
			      json_pack("{s:s}", "kernel", "6.1-fake")));
	}
	json_decref(req);
	return 0;
}

int vm_recv(struct vm *vm, void *buf, size_t len, double timeout_s)
{
	(void)timeout_s;
	if (vm->gone)
		return -EPIPE;
	return fake_rx_read(&vm->rx, buf, len);
}

int vm_running(struct vm *vm)
{
	return vm->running;
}

const char *vm_stop_reason(struct vm *vm)
{
	(void)vm;
	return "fake";
}

int vm_stop(struct vm *vm, double timeout_s)
{
	vm->closed_first = vm->closed;
	vm->stopped = timeout_s;
	vm->running = false;
	return 0;
}

void vm_close_channel(struct vm *vm)
{
	vm->closed = true;
}

void vm_free(struct vm *vm)
{
	if (vm)
		freed++;
}

static const struct vm_spec spec = {
    .name = "vmtax-test",
    .console_log = "/nonexistent/console.log",
};

static void reset(void)
{
	fake_rx_release(&the_vm.rx);
	memset(&the_vm, 0, sizeof(the_vm));
	the_vm.running = true;
	the_vm.stopped = -1;
	start_ret = 0;
	freed = 0;
}

/* Boot, hello, then a polite shutdown with its grace period. */
static void test_polite(void **state)
{
	struct vm_life l;
	json_t *hello = NULL, *bye = NULL;
	char why[256];

	(void)state;
	reset();
	memset(&l, 0, sizeof(l));
	assert_int_equal(vm_life_boot(&l, NULL, &spec, NULL, 0), 0);
	assert_true(l.client);
	assert_ptr_equal(l.vm, &the_vm);
	assert_int_equal(vm_life_hello(&l, 5, &hello, why, sizeof(why)), 0);
	assert_string_equal(json_string_value(json_object_get(hello, "kernel")),
			    "6.1-fake");
	json_decref(hello);
	assert_true(vm_life_answers(&l, 5));
	vm_life_down(&l, 0.5, 20, &bye);
	assert_string_equal(the_vm.last, "shutdown");
	assert_true(the_vm.shutdown_delay == 0.5);
	assert_true(the_vm.closed_first);
	assert_true(the_vm.stopped == 20);
	assert_int_equal(
	    json_integer_value(json_object_get(bye, "agent_max_rss_kb")), 42);
	json_decref(bye);
	assert_int_equal(freed, 1);
	assert_null(l.vm);
	assert_false(l.client);
	reset();
}

/* An agent marked dead gets no request: the guest is destroyed at once. */
static void test_agent_dead(void **state)
{
	struct vm_life l;
	json_t *bye = NULL;

	(void)state;
	reset();
	assert_int_equal(vm_life_boot(&l, NULL, &spec, NULL, 0), 0);
	l.agent_dead = true;
	assert_false(vm_life_answers(&l, 5));
	vm_life_down(&l, 2, 60, &bye);
	assert_int_equal(the_vm.requests, 0);
	assert_true(the_vm.closed_first);
	assert_true(the_vm.stopped == 0);
	assert_null(bye);
	assert_int_equal(freed, 1);
	assert_false(l.agent_dead);
	reset();
}

/* A gone agent: no answer to the probe, no shutdown reply, destroyed. */
static void test_agent_gone(void **state)
{
	struct vm_life l;
	json_t *bye = NULL;

	(void)state;
	reset();
	assert_int_equal(vm_life_boot(&l, NULL, &spec, NULL, 0), 0);
	the_vm.gone = true;
	assert_false(vm_life_answers(&l, 5));
	vm_life_down(&l, 2, 60, &bye);
	assert_true(the_vm.stopped == 0);
	assert_null(bye);
	assert_int_equal(freed, 1);
	reset();
}

/* A guest that already stopped is only freed; one never started, not. */
static void test_not_running(void **state)
{
	struct vm_life l;

	(void)state;
	reset();
	assert_int_equal(vm_life_boot(&l, NULL, &spec, NULL, 0), 0);
	the_vm.running = false;
	vm_life_down(&l, 2, 60, NULL);
	assert_int_equal(the_vm.requests, 0);
	assert_true(the_vm.stopped == -1);
	assert_int_equal(freed, 1);
	reset();
	start_ret = -EIO;
	assert_int_equal(vm_life_boot(&l, NULL, &spec, NULL, 0), -EIO);
	assert_null(l.vm);
	assert_false(l.client);
	assert_false(vm_life_answers(&l, 5));
	vm_life_down(&l, 2, 60, NULL);
	assert_int_equal(freed, 0);
	reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_polite),
	    cmocka_unit_test(test_agent_dead),
	    cmocka_unit_test(test_agent_gone),
	    cmocka_unit_test(test_not_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
