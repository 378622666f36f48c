/* SPDX-License-Identifier: MIT */
/*
 * bundle.h - many baselines in one file, to move them between hosts
 * (`baseline export`, `import`, `merge`):
 *
 *   {"format":"plumbline-baselines","version":1,"role":"ssh","host":"web1",
 *    "created":"2026-12-03T14:00:00.000000000Z","created_ns":...,"hosts":1,
 *    "baselines":[...],"signature":{"alg":"ed25519","key_id":"...","value":"..."}}
 *
 * where each member is a baseline in its file format (without "format").
 * Every member but format, version and baselines is optional (bundles
 * written before fleets have none of them). A merge's "host" is the list of
 * the hosts it holds (the first BL_BUNDLE_HOSTS_LISTED), its "hosts" their
 * number. The signature, when there is one, is the last member, over every
 * byte of the file before the comma that precedes it (docs/baselines.md).
 *
 * A bundle comes from another host, so it is bounded before anything in it
 * is parsed: the file's size, the number of baselines and each one's size.
 * Its outer structure is then scanned without building anything, and the
 * baselines are parsed one at a time: json-c's tree of a whole bundle would
 * cost 15 to 20 times the text, while this costs the text plus the
 * baselines themselves.
 */
#ifndef PL_BUNDLE_H
#define PL_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "baseline.h"
#include "signing.h"

/*
 * The largest bundle read or written: a full store (BL_STORE_MAX, 65536
 * baselines) of baselines averaging 8 KiB. Baseline files measured on a
 * real host average 6.7 KB (p90 8.5 KB, largest 74 KB), so a full store of
 * them is about 440 MB. docs/baselines.md has the measurements.
 */
#define BL_BUNDLE_MAX (512u << 20)

/*
 * Write the n baselines (not consumed) as one bundle at path, atomically,
 * mode 0600. The baselines are serialized one at a time. 0, -EFBIG when the
 * bundle would be larger than BL_BUNDLE_MAX (nothing is written: no
 * plumbline could read it), -ENOMEM, or the -errno of the write.
 */
int bl_bundle__write(const char *path, struct baseline *const *bs, size_t n);

/*
 * Read and validate the bundle at path: a regular file (a symlink to one is
 * followed; a FIFO or device is refused, never waited on) of at most
 * BL_BUNDLE_MAX bytes, holding at most BL_STORE_MAX baselines of at most
 * BL_FILE_MAX bytes each, every one valid. Returns 0 with *ret, an array of
 * *n baselines (free each, and the array); or -EFBIG, -EINVAL, -ENOMEM or
 * the -errno of the read, with err saying what and where (the byte offset,
 * or "baseline #i: ..."), and *ret and *n untouched.
 */
int bl_bundle__read(const char *path, struct baseline ***ret, size_t *n, char *err, size_t errlen);

#define BL_ROLE_MAX	       63  /* bytes of a role name, [A-Za-z0-9._-] */
#define BL_HOST_MAX	       255 /* bytes of a host name, [A-Za-z0-9._-] */
#define BL_BUNDLE_HOSTS_LISTED 32  /* hosts a merge names ("hosts" counts them all) */

/* What a bundle says of itself. */
struct bl_bundle_meta {
	char role[BL_ROLE_MAX + 1]; /* "" when none */
	char host[BL_HOST_MAX + 1]; /* an export: the host; a merge: "" */
	uint64_t created_ns;	    /* CLOCK_REALTIME; 0 when not said */
	uint32_t hosts;		    /* host exports it holds (1 when not said) */
	size_t nbaselines;	    /* read: how many it holds (ignored when writing) */
	/* a merge: the first BL_BUNDLE_HOSTS_LISTED hosts it holds, each
	 * ending in a ',' ("a,b,"); "" for an export (host says it) */
	char host_list[BL_BUNDLE_HOSTS_LISTED * (BL_HOST_MAX + 1) + 1];
};

/* Whether s is a role name: 1 to 63 of [A-Za-z0-9._-]. */
bool bl_bundle__valid_role(const char *s);
/* Whether s is a host name as a bundle carries it: 1 to 255 of [A-Za-z0-9._-]. */
bool bl_bundle__valid_host(const char *s);

/* ns (CLOCK_REALTIME) in RFC 3339 UTC with nanoseconds, as "created" is:
 * 2026-12-03T14:00:00.123456789Z. */
#define BL_TIME_LEN 40
void bl_bundle__format_time(uint64_t ns, char ret[BL_TIME_LEN]);

/*
 * Add the hosts of a bundle (its meta) to a merge's list (meta->host_list),
 * each once, until BL_BUNDLE_HOSTS_LISTED are listed; the count is the
 * caller's (meta->hosts). Pure.
 */
void bl_bundle_meta__add_hosts(struct bl_bundle_meta *merge, const struct bl_bundle_meta *from);

/*
 * Write the n baselines as one bundle at path, as bl_bundle__write, with the
 * header of meta (role and host when not "", created, hosts; host_list when
 * host is ""), signed by key when key is not NULL. 0; -EINVAL when meta's
 * role or a host is not a valid name, or hosts is 0; or what
 * bl_bundle__write returns. meta NULL: the header of bl_bundle__write.
 */
int bl_bundle__write_meta(const char *path, struct baseline *const *bs, size_t n, const struct bl_bundle_meta *meta,
			  const struct bl_signkey *key);

/*
 * Read the bundle at path as bl_bundle__read does (the same bounds), its
 * header into *ret_meta and its signature's verdict, checked against trust,
 * into *ret_sig: BL_SIG_NONE unsigned, BL_SIG_GOOD, BL_SIG_BAD, or
 * BL_SIG_UNKNOWN_KEY (also whenever trust is NULL and it is signed: no key
 * was checked). The signature covers the whole file, so it is checked
 * however little of the bundle is wanted. ret_key_id (17 bytes, may be
 * NULL) gets the signing key's id ("" unsigned).
 *
 * With ret not NULL the baselines go into *ret (*ret_n of them; free each,
 * and the array), except when trust is given and the verdict is not
 * BL_SIG_GOOD: then none is parsed (*ret NULL, *ret_n 0), so what an
 * untrusted bundle holds is never taken by mistake. With ret NULL only the
 * header, the signature and the bounds are looked at.
 *
 * 0, or -EFBIG, -EINVAL (a malformed header or signature member: one not
 * last, twice, not an object of alg "ed25519", key_id and value), -ENOMEM or
 * the -errno of the read, err saying what; the outputs are then untouched.
 * A bad signature is not an error: *ret_sig says it.
 */
int bl_bundle__read_meta(const char *path, const struct bl_keyring *trust, struct bl_bundle_meta *ret_meta,
			 enum bl_sig *ret_sig, char *ret_key_id, struct baseline ***ret, size_t *ret_n, char *err,
			 size_t errlen);

#endif
