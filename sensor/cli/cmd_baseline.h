/* SPDX-License-Identifier: MIT */
/*
 * cmd_baseline.h - `plumbline baseline` (docs/cli.md, docs/baselines.md).
 */
#ifndef PL_CMD_BASELINE_H
#define PL_CMD_BASELINE_H

/* argv[0] is "baseline". 0 or -errno (logged). */
int cmd_baseline(int argc, char **argv);

#endif
