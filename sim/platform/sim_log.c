// SPDX-License-Identifier: MIT
#include "sim_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void (*log_fn)(void *ctx, enum hroce_sim_log_level level, const char *msg);
static void *log_ctx;
static int log_max = -1; /* the most verbose level the default handler prints */

static void log_stderr(enum hroce_sim_log_level level, const char *msg)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };

	if (log_max < 0) {
		const char *env = getenv("HROCE_SIM_LOG");

		log_max = env ? atoi(env) : HROCE_SIM_LOG_WARN;
	}
	if ((int)level <= log_max)
		fprintf(stderr, "hroce-sim: %s: %s\n", names[level], msg);
}

void hroce_sim_set_log(void (*fn)(void *ctx, enum hroce_sim_log_level level, const char *msg),
		       void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void sim_log(enum hroce_sim_log_level level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_fn)
		log_fn(log_ctx, level, msg);
	else
		log_stderr(level, msg);
}
