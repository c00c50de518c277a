/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the host side of the agent protocol's caps
 * (orchestrator/guest/agent-client.c, lib/caps.h): a fake guest, in place of
 * orchestrator/guest/vm.c's channel, that floods, sends too much, claims a huge
 * file or puts escape sequences in its errors.  Each exceeded cap fails the
 * call with its own message and a line in the transcript; nothing crashes.
 * The caps are lowered in the client so that the floods stay small.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent-client.h"
#include "base64.h"
#include "fake-channel.h"
#include "util.h"

enum mode {
	M_BIG,	     /* a reply larger than the transcript may hold */
	M_SPAM,	     /* stale messages, never the reply */
	M_FILE_HUGE, /* read-file says the file has 1 TiB */
	M_FILE_GROW, /* read-file always says there is more */
	M_FILE_OK,   /* a 5-byte file */
	M_ERR,	     /* an error reply with escape sequences */
	M_STUCK,     /* a heartbeat naming a stuck CPU, with an ESC */
};

/* The fake channel: what the "guest" sends back, and how. */
struct vm {
	enum mode mode;
	struct fake_rx rx;
	unsigned long long id;
	long sent; /* messages sent to the host */
};

static void queue(struct vm *vm, json_t *msg /* stolen */)
{
	fake_rx_queue(&vm->rx, msg);
	vm->sent++;
}

static void read_file_reply(struct vm *vm, long long offset)
{
	char data[1000];
	char *b64;
	long long size = vm->mode == M_FILE_HUGE   ? 1LL << 40
			 : vm->mode == M_FILE_GROW ? offset + 2 * sizeof(data)
						   : 5;
	size_t n = vm->mode == M_FILE_OK ? 5 : sizeof(data);

	memset(data, 'x', sizeof(data));
	if (vm->mode == M_FILE_OK)
		memcpy(data, "hello", 5);
	b64 = base64_encode_new(data, n);
	queue(vm,
	      proto_reply_ok_new(vm->id, json_pack("{s:s, s:I}", "data", b64,
						   "size", (json_int_t)size)));
	free(b64);
}

int vm_send(struct vm *vm, const void *buf, size_t len, double timeout_s)
{
	json_t *req = fake_request_decode(buf, len);
	char *blob;

	(void)timeout_s;
	vm->id = proto_id(req);
	switch (vm->mode) {
	case M_BIG:
		blob = xmalloc(4001);
		memset(blob, 'b', 4000);
		blob[4000] = '\0';
		queue(vm, proto_reply_ok_new(vm->id,
					     json_pack("{s:s}", "blob", blob)));
		free(blob);
		break;
	case M_SPAM:
		break; /* vm_recv() floods */
	case M_FILE_HUGE:
	case M_FILE_GROW:
	case M_FILE_OK:
		read_file_reply(
		    vm, json_integer_value(json_object_get(req, "offset")));
		break;
	case M_ERR:
		queue(vm,
		      proto_reply_err_new(vm->id, "io-error",
					  "bad\x1b]0;title\x07\nnext\x1b[2J"));
		break;
	case M_STUCK: {
		json_t *hb = proto_event_new(vm->id, "heartbeat");

		json_object_set_new(hb, "kernel_stuck",
				    json_string("BUG: soft lockup\x1b[31m"));
		queue(vm, hb);
		break;
	}
	}
	json_decref(req);
	return 0;
}

int vm_recv(struct vm *vm, void *buf, size_t len, double timeout_s)
{
	(void)timeout_s;
	if (vm->mode == M_SPAM && fake_rx_drained(&vm->rx))
		for (int i = 0; i < 10; i++)
			queue(vm, proto_event_new(vm->id + 1000, "heartbeat"));
	return fake_rx_read(&vm->rx, buf, len);
}

const char *vm_stop_reason(struct vm *vm)
{
	(void)vm;
	return "fake";
}

/* Every vm_* the client calls is faked here, so that the linker never
 * takes orchestrator/guest/vm.o (and libvirt) from the library. */
int vm_running(struct vm *vm)
{
	(void)vm;
	return 1;
}

struct fixture {
	struct vm vm;
	struct agent_client a;
	FILE *log;
	char *logtext;
	size_t loglen;
	char why[512];
};

static struct fixture *setup(enum mode mode)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	f->vm.mode = mode;
	f->log = open_memstream(&f->logtext, &f->loglen);
	agent_client_init(&f->a, &f->vm, f->log);
	return f;
}

static void teardown(struct fixture *f)
{
	agent_client_release(&f->a);
	fclose(f->log);
	free(f->logtext);
	fake_rx_release(&f->vm.rx);
	free(f);
}

static bool has_ctrl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

static void test_transcript_cap(void **state)
{
	struct fixture *f = setup(M_BIG);
	json_t *res = NULL;

	(void)state;
	f->a.max_log = 3000;
	assert_int_equal(agent_call(&f->a, "observe", NULL, 5, 5, &res, f->why,
				    sizeof(f->why)),
			 -EMSGSIZE);
	assert_null(res);
	assert_string_equal(f->why, "the agent's transcript passed 3000 bytes "
				    "(AGENT_TRANSCRIPT_MAX)");
	fflush(f->log);
	assert_non_null(strstr(f->logtext, "transcript cap reached: "));
	assert_true(f->loglen < 3000 + 200);
	/* and every later call fails at once, writing nothing */
	f->vm.mode = M_FILE_OK;
	assert_int_equal(agent_call(&f->a, "observe", NULL, 5, 5, &res, f->why,
				    sizeof(f->why)),
			 -EMSGSIZE);
	teardown(f);
}

static void test_message_cap(void **state)
{
	struct fixture *f = setup(M_SPAM);
	json_t *res = NULL;

	(void)state;
	f->a.max_msgs = 100;
	assert_int_equal(
	    agent_call(&f->a, "run", NULL, 5, 5, &res, f->why, sizeof(f->why)),
	    -EMSGSIZE);
	assert_string_equal(f->why,
			    "the agent sent more than 100 messages while 'run' "
			    "waited for its reply (AGENT_CALL_MSGS_MAX)");
	fflush(f->log);
	assert_non_null(strstr(f->logtext, "(AGENT_CALL_MSGS_MAX)\n"));
	assert_true(f->vm.sent <= 110);
	teardown(f);
}

static void test_file_claims_too_much(void **state)
{
	char local[] = "/tmp/vmtax-test-agent-client-XXXXXX";
	int fd = mkstemp(local);
	struct fixture *f = setup(M_FILE_HUGE);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(local);
	assert_int_equal(
	    agent_get_file(&f->a, "/r", local, NULL, f->why, sizeof(f->why)),
	    -EFBIG);
	assert_string_equal(f->why, "'/r' is larger than 268435456 bytes "
				    "(AGENT_FILE_MAX): the guest says "
				    "1099511627776");
	assert_int_equal(access(local, F_OK), -1);

	/* a guest that always says there is more: stopped at the cap */
	f->vm.mode = M_FILE_GROW;
	f->a.max_file = 5000;
	assert_int_equal(
	    agent_get_file(&f->a, "/g", local, NULL, f->why, sizeof(f->why)),
	    -EFBIG);
	assert_non_null(strstr(f->why, "'/g' is larger than 5000 bytes "
				       "(AGENT_FILE_MAX)"));
	assert_int_equal(access(local, F_OK), -1);

	/* an honest file still comes */
	f->vm.mode = M_FILE_OK;
	assert_int_equal(
	    agent_get_file(&f->a, "/ok", local, NULL, f->why, sizeof(f->why)),
	    0);
	{
		char *text = NULL;
		size_t n;

		assert_int_equal(read_file(local, 100, &text, &n), 0);
		assert_string_equal(text, "hello");
		free(text);
	}
	unlink(local);
	teardown(f);
}

static void test_guest_text_scrubbed(void **state)
{
	struct fixture *f = setup(M_ERR);
	json_t *res = NULL;

	(void)state;
	assert_int_equal(agent_call(&f->a, "observe", NULL, 5, 5, &res, f->why,
				    sizeof(f->why)),
			 -EREMOTEIO);
	assert_false(has_ctrl(f->why));
	assert_string_equal(f->why,
			    "agent error io-error: bad?]0;title??next?[2J");
	f->vm.mode = M_STUCK;
	assert_int_equal(
	    agent_call(&f->a, "run", NULL, 5, 5, &res, f->why, sizeof(f->why)),
	    -ETIMEDOUT);
	assert_string_equal(f->why, "the guest's kernel says a CPU is stuck: "
				    "BUG: soft lockup?[31m");
	teardown(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_transcript_cap),
	    cmocka_unit_test(test_message_cap),
	    cmocka_unit_test(test_file_claims_too_much),
	    cmocka_unit_test(test_guest_text_scrubbed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
