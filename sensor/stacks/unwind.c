// SPDX-License-Identifier: MIT
/*
 * unwind.c - user stacks walked through each object's CFI (unwind.h).
 *
 * The on-CPU sampler (oncpu.c) walks every sample with it. A walk looks up,
 * for each frame, the CFI row of the pc: libdw finds the FDE (a binary
 * search of .eh_frame_hdr) and runs its CIE and FDE instructions up to the
 * pc, which costs far more than applying the row. Rows are kept in a
 * direct-mapped cache by (CFI, address): a busy loop's samples hit the
 * same few hundred addresses again and again.
 */
#include "stacks/unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileread.h"

#include "identity/identity.h"
#include "stacks/vdso.h"

#define SLOTS (2 * UNWIND_MAX_OBJECTS)
#define MAX_LOADS 16
#define EVAL_DEPTH 16
#define ROWS 8192 /* CFI rows cached, a power of two */
#define ENTRY_CODE 64 /* bytes from an object's entry point that are a stack's outermost code */

/* How a register is recovered in a caller's frame, compiled from libdw's
 * row for the forms compilers emit (the CFA plus an offset); anything else
 * is evaluated from the row itself (RULE_EXPR). */
enum rule_how { RULE_UNDEF, RULE_SAME, RULE_AT_CFA, RULE_CFA_PLUS, RULE_EXPR };

struct rule {
	int32_t off;
	uint8_t how;
};

/* The CFI row of one address (fr NULL: the CFI has none for it). */
struct row {
	const Dwarf_CFI *cfi;
	uint64_t vaddr;
	Dwarf_Frame *fr;
	int8_t ra;         /* the return address column, -1 when unusable */
	int8_t cfa_reg;    /* the CFA is cfa_reg + cfa_off, or -1: an expression */
	int32_t cfa_off;
	struct rule r[UNWIND_NREGS];
};

struct load {
	uint64_t off, vaddr, filesz;
};

struct uobj {
	bool used, bad;
	uint8_t key[UNWIND_BUILD_ID_SIZE];
	bool by_path;
	Elf *elf;
	Dwarf_CFI *eh;   /* .eh_frame */
	Dwarf *dbg;      /* the separate debug file, when installed */
	Elf *dbg_elf;
	Dwarf_CFI *dbgcfi; /* its (or the file's) .debug_frame */
	void *image;       /* the vDSO's copy that elf is read from */
	uint64_t entry;    /* e_entry, 0 when none */
	struct load loads[MAX_LOADS];
	uint32_t nloads;
};

struct unwind {
	struct uobj *objs;
	uint32_t nobjs;
	struct row *rows;
	struct unwind_stats st;
};

static const char *const stop_names[UNWIND_STOP_COUNT] = {
	"end", "truncated", "no_mapping", "no_cfi", "no_file", "bad_cfi", "depth",
};

const char *unwind_stop__name(enum unwind_stop s)
{
	return s < UNWIND_STOP_COUNT ? stop_names[s] : "?";
}

int unwind__new(struct unwind **ret)
{
	struct unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->objs = calloc(SLOTS, sizeof(*u->objs));
	u->rows = calloc(ROWS, sizeof(*u->rows));
	if (!u->objs || !u->rows) {
		free(u->objs);
		free(u->rows);
		free(u);
		return -ENOMEM;
	}
	elf_version(EV_CURRENT);
	*ret = u;
	return 0;
}

static void close_obj(struct uobj *o)
{
	if (o->dbg)
		dwarf_end(o->dbg);
	if (o->dbg_elf)
		elf_end(o->dbg_elf);
	if (o->eh)
		dwarf_cfi_end(o->eh); /* dwarf_getcfi_elf()'s is the caller's to end */
	if (o->elf)
		elf_end(o->elf);
	free(o->image);
}

void unwind__free(struct unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < ROWS; i++)
		free(u->rows[i].fr);
	free(u->rows);
	for (size_t i = 0; i < SLOTS; i++)
		if (u->objs[i].used)
			close_obj(&u->objs[i]);
	free(u->objs);
	free(u);
}

const struct unwind_stats *unwind__stats(const struct unwind *u)
{
	return &u->st;
}

/* An object file: a regular file of at most UNWIND_MAX_FILE bytes, never a
 * device or a FIFO put in its place (fileread.h). */
static int open_regular(const char *path)
{
	struct stat st;

	return file_open_regular(path, UNWIND_MAX_FILE, 0, &st, NULL);
}

static Elf *open_elf(const char *path)
{
	int fd = open_regular(path);
	Elf *e;

	if (fd < 0)
		return NULL;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e && elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		e = NULL;
	}
	if (e)
		elf_cntl(e, ELF_C_FDDONE); /* mapped: the descriptor is no longer needed */
	close(fd);
	return e;
}

static bool build_id_matches(const char *path, const uint8_t *want)
{
	char hex[2 * UNWIND_BUILD_ID_SIZE + 1], w[2 * UNWIND_BUILD_ID_SIZE + 1];
	size_t n = UNWIND_BUILD_ID_SIZE;
	int fd = open_regular(path), r;

	if (fd < 0)
		return false;
	r = identity__read_build_id(fd, hex, sizeof(hex));
	close(fd);
	if (r < 0)
		return false;
	while (n > 1 && !want[n - 1])
		n--;
	for (size_t i = 0; i < n; i++)
		snprintf(w + 2 * i, 3, "%02x", want[i]);
	return !strncmp(hex, w, 2 * n) && strlen(hex) == 2 * n;
}

/* Whether e has a section of this name (bounded by the section count). */
static bool has_section(Elf *e, const char *want)
{
	size_t shstrndx, n = 0;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn)) && n < 65536; n++) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(e, shstrndx, sh.sh_name)) && !strcmp(name, want))
			return true;
	}
	return false;
}

/* A .debug_frame of e, through a Dwarf handle kept in *dbg. */
static Dwarf_CFI *debug_frame(Elf *e, Dwarf **dbg)
{
	if (!e || !has_section(e, ".debug_frame"))
		return NULL;
	*dbg = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	return *dbg ? dwarf_getcfi(*dbg) : NULL;
}

static void load_obj(struct unwind *u, struct uobj *o, const struct unwind_map *m)
{
	size_t nph = 0;
	char dbg[96];

	o->bad = true;
	if (vdso__is(m->path)) {
		o->elf = vdso__elf(&o->image);
	} else {
		if (m->has_build_id && !build_id_matches(m->path, m->build_id))
			return;
		o->elf = open_elf(m->path);
	}
	if (!o->elf || elf_getphdrnum(o->elf, &nph))
		return;
	GElf_Ehdr eh;

	if (gelf_getehdr(o->elf, &eh))
		o->entry = eh.e_entry;
	for (size_t i = 0; i < nph && o->nloads < MAX_LOADS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(o->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			o->loads[o->nloads++] = (struct load){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	o->eh = dwarf_getcfi_elf(o->elf);
	/* .debug_frame: from the operator's -dbgsym package, by build-id */
	if (m->has_build_id) {
		int n = snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%02x/", m->build_id[0]);

		for (size_t i = 1; i < UNWIND_BUILD_ID_SIZE && n > 0 && (size_t)n < sizeof(dbg) - 8; i++)
			n += snprintf(dbg + n, sizeof(dbg) - (size_t)n, "%02x", m->build_id[i]);
		if (n > 0 && (size_t)n < sizeof(dbg) - 7) {
			snprintf(dbg + n, sizeof(dbg) - (size_t)n, ".debug");
			o->dbg_elf = open_elf(dbg);
			o->dbgcfi = debug_frame(o->dbg_elf, &o->dbg);
		}
	}
	if (!o->dbgcfi && !o->dbg)
		o->dbgcfi = debug_frame(o->elf, &o->dbg);
	if (o->dbgcfi)
		u->st.debug_frame_objects++;
	o->bad = !o->eh && !o->dbgcfi && !o->nloads;
}

static uint64_t key_hash(const uint8_t *k)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < UNWIND_BUILD_ID_SIZE; i++)
		h = (h ^ k[i]) * 1099511628211ull;
	return h;
}

static struct uobj *object(struct unwind *u, const struct unwind_map *m)
{
	uint8_t key[UNWIND_BUILD_ID_SIZE] = { 0 };
	uint64_t h;

	if (m->has_build_id) {
		memcpy(key, m->build_id, sizeof(key));
	} else {
		/* no build-id: the path names the object (hashed into the key) */
		uint64_t a = 1469598103934665603ull, b = 0x9e3779b97f4a7c15ull;

		for (const char *p = m->path; p && *p; p++) {
			a = (a ^ (unsigned char)*p) * 1099511628211ull;
			b = (b ^ (unsigned char)*p) * 0x100000001b3ull + 7;
		}
		memcpy(key, &a, 8);
		memcpy(key + 8, &b, 8);
		key[19] = 0xff;
	}
	h = key_hash(key);
	for (uint32_t i = 0; i < SLOTS; i++) {
		struct uobj *o = &u->objs[(h + i) & (SLOTS - 1)];

		if (o->used && !memcmp(o->key, key, sizeof(key)))
			return o->bad ? NULL : o;
		if (o->used)
			continue;
		if (u->nobjs >= UNWIND_MAX_OBJECTS) {
			u->st.objects_refused++;
			return NULL;
		}
		o->used = true;
		memcpy(o->key, key, sizeof(key));
		u->nobjs++;
		u->st.objects++;
		load_obj(u, o, m);
		return o->bad ? NULL : o;
	}
	return NULL;
}

static int find_map(const struct unwind_maps *maps, uint64_t pc)
{
	size_t lo = 0, hi = maps ? maps->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pc < maps->maps[mid].start)
			hi = mid;
		else if (pc >= maps->maps[mid].end)
			lo = mid + 1;
		else
			return (int)mid;
	}
	return -1;
}

/* The ELF address of file offset off, by the PT_LOAD that maps it. */
static bool vaddr_of(const struct uobj *o, uint64_t off, uint64_t *ret)
{
	for (uint32_t i = 0; i < o->nloads; i++)
		if (off >= o->loads[i].off && off < o->loads[i].off + o->loads[i].filesz) {
			*ret = off - o->loads[i].off + o->loads[i].vaddr;
			return true;
		}
	return false;
}

struct walk {
	uint64_t regs[UNWIND_NREGS];
	uint32_t known; /* bit per register */
	uint64_t sp0;
	const uint8_t *stack;
	size_t len;
};

static bool read_stack(const struct walk *w, uint64_t addr, uint64_t *ret)
{
	if (addr < w->sp0 || addr - w->sp0 > w->len || w->len - (addr - w->sp0) < 8)
		return false;
	memcpy(ret, w->stack + (addr - w->sp0), 8);
	return true;
}

static bool reg(const struct walk *w, unsigned r, uint64_t *ret)
{
	if (r >= UNWIND_NREGS || !(w->known & (1u << r)))
		return false;
	*ret = w->regs[r];
	return true;
}

enum eval { EV_OK, EV_TRUNC, EV_BAD };

/* A CFI expression, bounded: *ret is its value; *is_value false when the
 * value is the address of the register (the usual "offset(N)" rule). */
static enum eval eval(const struct walk *w, const Dwarf_Op *ops, size_t n, uint64_t cfa, bool *is_value,
		      uint64_t *ret)
{
	uint64_t st[EVAL_DEPTH], v;
	size_t sp = 0;

	*is_value = false;
#define PUSH(x)                                   \
	do {                                      \
		if (sp == EVAL_DEPTH)             \
			return EV_BAD;            \
		st[sp++] = (x);                   \
	} while (0)
#define NEED(k)                                   \
	do {                                      \
		if (sp < (k))                     \
			return EV_BAD;            \
	} while (0)
	for (size_t i = 0; i < n; i++) {
		uint8_t op = ops[i].atom;

		if (op >= DW_OP_breg0 && op <= DW_OP_breg31) {
			if (!reg(w, op - DW_OP_breg0, &v))
				return EV_BAD;
			PUSH(v + (uint64_t)(int64_t)ops[i].number);
		} else if (op >= DW_OP_reg0 && op <= DW_OP_reg31) {
			if (!reg(w, op - DW_OP_reg0, &v))
				return EV_BAD;
			PUSH(v);
			*is_value = true;
		} else if (op >= DW_OP_lit0 && op <= DW_OP_lit31) {
			PUSH(op - DW_OP_lit0);
		} else {
			switch (op) {
			case DW_OP_bregx:
				if (!reg(w, (unsigned)ops[i].number, &v))
					return EV_BAD;
				PUSH(v + (uint64_t)(int64_t)ops[i].number2);
				break;
			case DW_OP_call_frame_cfa:
				PUSH(cfa);
				break;
			case DW_OP_consts:
			case DW_OP_const1s:
			case DW_OP_const2s:
			case DW_OP_const4s:
			case DW_OP_const8s:
				PUSH((uint64_t)(int64_t)ops[i].number);
				break;
			case DW_OP_constu:
			case DW_OP_const1u:
			case DW_OP_const2u:
			case DW_OP_const4u:
			case DW_OP_const8u:
				PUSH(ops[i].number);
				break;
			case DW_OP_plus_uconst:
				NEED(1);
				st[sp - 1] += ops[i].number;
				break;
			case DW_OP_plus:
			case DW_OP_minus:
			case DW_OP_and:
			case DW_OP_ge:
			case DW_OP_shl:
				NEED(2);
				v = st[--sp];
				st[sp - 1] = op == DW_OP_plus  ? st[sp - 1] + v
					     : op == DW_OP_minus ? st[sp - 1] - v
					     : op == DW_OP_and   ? st[sp - 1] & v
					     : op == DW_OP_ge    ? (uint64_t)((int64_t)st[sp - 1] >= (int64_t)v)
								 : (v < 64 ? st[sp - 1] << v : 0);
				break;
			case DW_OP_deref:
				NEED(1);
				if (!read_stack(w, st[sp - 1], &st[sp - 1]))
					return EV_TRUNC;
				break;
			case DW_OP_stack_value:
				*is_value = true;
				break;
			default:
				return EV_BAD;
			}
		}
	}
	NEED(1);
#undef PUSH
#undef NEED
	*ret = st[sp - 1];
	return EV_OK;
}

/* One step by CFI: false with *stop set when the walk ends here. */
/* ops as "CFA + off" (a location) or "CFA + off, stack_value" (a value). */
static enum rule_how compile_reg(const Dwarf_Op *ops, size_t n, int32_t *off)
{
	int64_t o = 0;
	bool value = false;

	if (!n || ops[0].atom != DW_OP_call_frame_cfa)
		return RULE_EXPR;
	for (size_t i = 1; i < n; i++) {
		if (ops[i].atom == DW_OP_plus_uconst && i == 1)
			o = (int64_t)ops[i].number;
		else if (ops[i].atom == DW_OP_stack_value && i == n - 1)
			value = true;
		else
			return RULE_EXPR;
	}
	if (o < INT32_MIN || o > INT32_MAX)
		return RULE_EXPR;
	*off = (int32_t)o;
	return value ? RULE_CFA_PLUS : RULE_AT_CFA;
}

static void compile_row(struct row *w)
{
	Dwarf_Op *ops, mem[3];
	size_t nops;
	int ra = dwarf_frame_info(w->fr, NULL, NULL, NULL);

	w->ra = ra >= 0 && ra < UNWIND_NREGS ? (int8_t)ra : -1;
	w->cfa_reg = -1;
	if (dwarf_frame_cfa(w->fr, &ops, &nops) == 0 && nops == 1 && ops[0].atom >= DW_OP_breg0 &&
	    ops[0].atom < DW_OP_breg0 + UNWIND_NREGS && (int64_t)ops[0].number >= INT32_MIN &&
	    (int64_t)ops[0].number <= INT32_MAX) {
		w->cfa_reg = (int8_t)(ops[0].atom - DW_OP_breg0);
		w->cfa_off = (int32_t)(int64_t)ops[0].number;
	}
	for (int r = 0; r < UNWIND_NREGS; r++) {
		struct rule *ru = &w->r[r];

		*ru = (struct rule){ .how = RULE_UNDEF };
		if (dwarf_frame_register(w->fr, r, mem, &ops, &nops) != 0)
			continue;
		if (!nops) /* libdw: ops NULL is "same value", ops == mem "undefined" */
			ru->how = ops ? RULE_UNDEF : RULE_SAME;
		else
			ru->how = (uint8_t)compile_reg(ops, nops, &ru->off);
	}
}

/* The CFI row of vaddr, from the cache or from libdw (NULL: none). Objects
 * stay open as long as u, so a CFI pointer names one object for good. */
static const struct row *row(struct unwind *u, Dwarf_CFI *cfi, uint64_t vaddr)
{
	uint64_t h = ((uint64_t)(uintptr_t)cfi ^ vaddr * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
	struct row *r = &u->rows[h >> 32 & (ROWS - 1)];
	Dwarf_Frame *fr = NULL;

	if (r->cfi == cfi && r->vaddr == vaddr) {
		u->st.rows_cached++;
		return r->fr ? r : NULL;
	}
	if (dwarf_cfi_addrframe(cfi, vaddr, &fr) != 0)
		fr = NULL;
	free(r->fr);
	*r = (struct row){ .cfi = cfi, .vaddr = vaddr, .fr = fr };
	if (fr)
		compile_row(r);
	u->st.rows_read++;
	return fr ? r : NULL;
}

/* One step by CFI: false with *stop set when the walk ends here. */
static bool step_cfi(struct unwind *u, struct walk *w, Dwarf_CFI *cfi, uint64_t vaddr, enum unwind_stop *stop,
		     int *found)
{
	const struct row *ro;
	Dwarf_Op *ops, mem[3];
	size_t nops = 0;
	uint64_t cfa, v;
	struct walk next = *w;
	bool is_value;
	enum eval e = EV_BAD;
	int ra;

	*found = 0;
	if (!cfi || !(ro = row(u, cfi, vaddr)))
		return false;
	*found = 1;
	ra = ro->ra;
	if (ra < 0) {
		*stop = UNWIND_STOP_BAD;
		return false;
	}
	if (ro->cfa_reg >= 0) {
		if (!reg(w, (unsigned)ro->cfa_reg, &cfa)) {
			*stop = UNWIND_STOP_BAD;
			return false;
		}
		cfa += (uint64_t)(int64_t)ro->cfa_off;
	} else if (dwarf_frame_cfa(ro->fr, &ops, &nops) != 0 || (e = eval(w, ops, nops, 0, &is_value, &cfa)) != EV_OK) {
		*stop = nops && e == EV_TRUNC ? UNWIND_STOP_TRUNCATED : UNWIND_STOP_BAD;
		return false;
	}
	next.known = 0;
	for (int r = 0; r < UNWIND_NREGS; r++) {
		const struct rule *ru = &ro->r[r];

		switch (ru->how) {
		case RULE_UNDEF:
			continue;
		case RULE_SAME:
			if (w->known & (1u << r)) {
				next.regs[r] = w->regs[r];
				next.known |= 1u << r;
			}
			continue;
		case RULE_CFA_PLUS:
			v = cfa + (uint64_t)(int64_t)ru->off;
			break;
		case RULE_AT_CFA:
			if (!read_stack(w, cfa + (uint64_t)(int64_t)ru->off, &v)) {
				if (r == ra) {
					*stop = UNWIND_STOP_TRUNCATED;
					return false;
				}
				continue;
			}
			break;
		default: /* RULE_EXPR */
			if (dwarf_frame_register(ro->fr, r, mem, &ops, &nops) != 0)
				continue;
			e = eval(w, ops, nops, cfa, &is_value, &v);
			if (e == EV_TRUNC && r == ra) {
				*stop = UNWIND_STOP_TRUNCATED;
				return false;
			}
			if (e != EV_OK)
				continue;
			if (!is_value && !read_stack(w, v, &v)) {
				if (r == ra) {
					*stop = UNWIND_STOP_TRUNCATED;
					return false;
				}
				continue;
			}
			break;
		}
		next.regs[r] = v;
		next.known |= 1u << r;
	}
	if (!(next.known & (1u << ra)) || !next.regs[ra]) {
		*stop = UNWIND_STOP_END; /* the return address is undefined: the outermost frame */
		return false;
	}
	if (cfa <= w->regs[UNWIND_REG_RSP]) {
		*stop = UNWIND_STOP_BAD; /* the stack must grow towards the callers */
		return false;
	}
	next.regs[UNWIND_REG_RIP] = next.regs[ra];
	next.regs[UNWIND_REG_RSP] = cfa;
	next.known |= 1u << UNWIND_REG_RIP | 1u << UNWIND_REG_RSP;
	*w = next;
	return true;
}

/* One step by frame pointer: [rbp] the caller's rbp, [rbp + 8] the return address. */
static bool step_fp(struct walk *w)
{
	uint64_t bp, nbp, ra;

	if (!reg(w, UNWIND_REG_RBP, &bp) || bp < w->regs[UNWIND_REG_RSP] || !read_stack(w, bp, &nbp) ||
	    !read_stack(w, bp + 8, &ra) || !ra)
		return false;
	w->regs[UNWIND_REG_RBP] = nbp;
	w->regs[UNWIND_REG_RSP] = bp + 16;
	w->regs[UNWIND_REG_RIP] = ra;
	w->known = 1u << UNWIND_REG_RBP | 1u << UNWIND_REG_RSP | 1u << UNWIND_REG_RIP;
	return true;
}

uint32_t unwind__stack(struct unwind *u, const struct unwind_maps *maps, const uint64_t *regs, const uint8_t *stack,
		       size_t len, struct unwind_frame *frames, uint32_t max, struct unwind_result *ret)
{
	struct walk w = { .sp0 = regs[UNWIND_REG_RSP], .stack = stack, .len = stack ? len : 0 };
	uint32_t n = 0;

	memcpy(w.regs, regs, sizeof(w.regs));
	w.known = (1u << UNWIND_NREGS) - 1;
	*ret = (struct unwind_result){ .stop = UNWIND_STOP_DEPTH };
	u->st.stacks++;
	while (n < max) {
		uint64_t pc = w.regs[UNWIND_REG_RIP], look = n ? pc - 1 : pc, vaddr;
		int m = find_map(maps, look);
		struct unwind_frame *f = &frames[n++];
		struct uobj *o;
		int found = 0;

		*f = (struct unwind_frame){ .pc = pc, .map = m };
		if (m < 0) {
			ret->stop = UNWIND_STOP_NO_MAP;
			break;
		}
		f->file_off = pc - maps->maps[m].start + maps->maps[m].pgoff;
		if (n == max)
			break;
		o = object(u, &maps->maps[m]);
		if (!o) {
			ret->stop = UNWIND_STOP_NO_FILE;
			break;
		}
		if (!vaddr_of(o, look - maps->maps[m].start + maps->maps[m].pgoff, &vaddr)) {
			ret->stop = UNWIND_STOP_NO_CFI;
			break;
		}
		enum unwind_stop stop = UNWIND_STOP_NO_CFI;

		if (step_cfi(u, &w, o->eh, vaddr, &stop, &found) ||
		    (!found && step_cfi(u, &w, o->dbgcfi, vaddr, &stop, &found))) {
			ret->by_cfi++;
			continue;
		}
		/* the dynamic loader's entry code has no CFI: where a program's
		 * first instructions call on, the stack begins */
		if (!found && o->entry && vaddr - o->entry < ENTRY_CODE) {
			ret->stop = UNWIND_STOP_END;
			break;
		}
		if (!found && step_fp(&w)) {
			ret->by_fp++;
			continue;
		}
		ret->stop = stop;
		break;
	}
	ret->n = n;
	u->st.frames += n;
	u->st.stops[ret->stop]++;
	return n;
}
