// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * shared.bpf.c - the one definition of everything the probe families
 * share (shared.bpf.h): the maps, rodata and counters more than one family
 * uses, and the license. No programs.
 */
#define PL_SHARED_DEFINE
#include "shared.bpf.h"
#include "files.bpf.h"
#include "net.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";
