/* SPDX-License-Identifier: MIT */
/* The one signal flag and its handler (stop-signals.h). */
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "stop-signals.h"

static volatile sig_atomic_t stop_signals;
static struct host_ctx *volatile signal_host;
#define DEFAULT_MSG "vmtax: second signal: stopping now\n"
static const char *signal_msg = DEFAULT_MSG;
static size_t signal_msg_len = sizeof(DEFAULT_MSG) - 1;

static void on_signal(int sig)
{
	if (++stop_signals >= 2) {
		if (signal_host)
			host_restore_async(signal_host);
		if (write(STDERR_FILENO, signal_msg, signal_msg_len) < 0) {
			/* nothing to do */
		}
		_exit(128 + sig);
	}
}

volatile sig_atomic_t *stop_signals_flag(void)
{
	return &stop_signals;
}

void stop_signals_take(const char *second_msg, bool restart)
{
	struct sigaction sa;

	signal_msg = second_msg;
	signal_msg_len = strlen(second_msg);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void stop_signals_host(struct host_ctx *host)
{
	signal_host = host;
}
