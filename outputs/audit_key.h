/* SPDX-License-Identifier: MIT */
/*
 * audit_key.h - the audit log's forward-secure sealing key (the scheme in
 * docs/outputs.md, "The keyed chain"; what it protects in SECURITY.md).
 *
 * The line of seq s carries HMAC-SHA256(k_s, its bytes up to its prev),
 * where k_1 is a random seed and k_{s+1} = SHA-256("plumbline-audit-evolve"
 * || k_s): the Schneier-Kelsey evolving key that journald's Forward Secure
 * Sealing also builds on. The host keeps only the key of the next line to
 * write; once a line is sealed its key is evolved and the old one wiped, in
 * memory and in the key file, so whoever reads the host later can seal
 * nothing that was written before. The seed, kept off the host, derives
 * every key: `audit verify --key SEED` checks every line's MAC.
 *
 * The key file is 128 bytes: two 64-byte slots, each `PLAK`, a version, the
 * epoch (the seq the key seals next, little-endian), the key and a
 * checksum. A step writes the new state into the empty slot and syncs it,
 * then wipes the old slot in place (on the disk by the next step's sync):
 * a crash at any point leaves one whole valid slot (the newest wins at
 * load), and no write leaves an old key behind in a renamed-away file's
 * blocks. Root-only: the
 * file must be a regular file of the caller's uid, mode 0600 or stricter.
 */
#ifndef PL_AUDIT_KEY_H
#define PL_AUDIT_KEY_H

#include <stddef.h>
#include <stdint.h>

#define PL_AUDIT_KEY_LEN 32
#define PL_AUDIT_MAC_HEX 64
/* the most steps one advance takes (about 10 s of SHA-256): a log far
 * ahead of its key is not this key's log */
#define PL_AUDIT_KEY_MAX_ADVANCE (1u << 24)

struct audit_key;

/* Derive the next key from k, in place (the old bytes are overwritten). */
void audit_key__evolve(uint8_t k[PL_AUDIT_KEY_LEN]);

/* HMAC-SHA256(key, buf[len]) as lowercase hex. */
void audit_key__hmac_hex(const uint8_t key[PL_AUDIT_KEY_LEN], const void *buf, size_t len,
			 char ret[PL_AUDIT_MAC_HEX + 1]);

/* A seed in text (64 hex digits, either case; surrounding blanks allowed).
 * 0 and ret, or -EINVAL (ret untouched). */
int audit_seed__parse(const char *text, uint8_t ret[PL_AUDIT_KEY_LEN]);

/*
 * Create the key file at path (O_EXCL: never over an existing one; 0600)
 * holding seed as the key of epoch 1, synced with its directory. 0, or
 * -errno (-EEXIST: a file is there).
 */
int audit_key__install(const char *path, const uint8_t seed[PL_AUDIT_KEY_LEN]);

/*
 * Open the key file at path for sealing: a regular file (a symlink is
 * -ELOOP), owned by the effective uid with no group or other permission
 * (else -EPERM), of exactly two slots with one valid (else -EBADMSG). A
 * crash between a step's two writes is finished here (the stale slot
 * wiped). The fd stays open until audit_key__free(). 0 and *ret, or -errno.
 */
int audit_key__open(const char *path, struct audit_key **ret);

/* The seq the key seals next. */
uint64_t audit_key__epoch(const struct audit_key *k);

/* The MAC of buf[len] under the current key. */
void audit_key__mac(const struct audit_key *k, const void *buf, size_t len, char ret[PL_AUDIT_MAC_HEX + 1]);

/*
 * Evolve to epoch+1 (or, advance_to, to the given later epoch), wipe the
 * old key in memory and write the new state to the file. The key in memory
 * moves on even when the write fails (-errno): the file then holds an older
 * key, which the next open evolves forward. More than
 * PL_AUDIT_KEY_MAX_ADVANCE steps at once is -ERANGE, nothing changed.
 */
int audit_key__step(struct audit_key *k);
int audit_key__advance_to(struct audit_key *k, uint64_t epoch);

/* Wipe the key and close the file. NULL is fine. */
void audit_key__free(struct audit_key *k);

#endif
