/* SPDX-License-Identifier: MIT */
/*
 * run.h - `plumbline run`: the daemon's event loop.
 */
#ifndef PL_RUN_H
#define PL_RUN_H

#include "config/options.h"

/* Run the sensor until a stop signal or the duration. 0 or -errno (logged). */
int sensor_run(const struct run_opts *opts);

#endif
