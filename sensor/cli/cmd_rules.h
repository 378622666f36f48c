/* SPDX-License-Identifier: MIT */
/*
 * cmd_rules.h - `plumbline rules ...` and `plumbline replay` (docs/cli.md).
 * Neither needs root or a kernel: they are how rule authors work.
 */
#ifndef PL_CMD_RULES_H
#define PL_CMD_RULES_H

/* argv[0] is "rules". 0, 1 when `check` found errors (a result, not a
 * failure of the command), or -errno (logged). */
int cmd_rules(int argc, char **argv);

/* argv[0] is "replay". 0 or -errno (logged). */
int cmd_replay(int argc, char **argv);

#endif
