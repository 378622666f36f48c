/* SPDX-License-Identifier: MIT */
/*
 * cmd_evidence.h - `plumbline evidence` (docs/cli.md, docs/outputs.md):
 * an alert's stack evidence, read back from the JSON output, as text,
 * folded stacks or a flame graph SVG. No root, no kernel.
 */
#ifndef PL_CMD_EVIDENCE_H
#define PL_CMD_EVIDENCE_H

/* argv[0] is "evidence". 0 or -errno (logged). */
int cmd_evidence(int argc, char **argv);

#endif
