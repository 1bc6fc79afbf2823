/* SPDX-License-Identifier: MIT */
/* The library's one way to say something: through the handler set by hroce_sim_set_log(). */
#ifndef HROCE_SIM_LOG_H
#define HROCE_SIM_LOG_H

#include "hroce_sim.h"

void sim_log(enum hroce_sim_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* HROCE_SIM_LOG_H */
