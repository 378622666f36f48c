/* SPDX-License-Identifier: MIT */
/*
 * signing.h - Ed25519 keys that sign baseline bundles, and the trusted
 * public keys that verify them (OpenSSL 3's EVP_PKEY_ED25519).
 *
 * A fleet's bundles decide what its sensors call normal, so a sensor takes
 * one only when a key it trusts signed it. The keys are files an operator
 * handles with ordinary tools: the private key a PKCS#8 PEM file (mode
 * 0600, `openssl genpkey -algorithm ed25519` makes the same), the public
 * key a SubjectPublicKeyInfo PEM file (`openssl pkey -pubout`). A key is
 * named by its id, 16 hex digits of the SHA-256 of its 32 raw public key
 * bytes, which a signature carries so that a keyring of many keys knows
 * which one to check against.
 *
 * Every file is bounded before it is parsed; a key file that others could
 * write (or a private key others could read) is refused with the fix.
 */
#ifndef PL_SIGNING_H
#define PL_SIGNING_H

#include <stddef.h>
#include <stdint.h>

#define BL_SIG_LEN	64    /* an Ed25519 signature */
#define BL_KEY_ID_LEN	16    /* hex digits of a key id */
#define BL_KEYRING_MAX	256   /* keys a keyring directory may hold */
#define BL_KEY_FILE_MAX 16384 /* a PEM key file (an Ed25519 one is about 120 bytes) */

struct bl_signkey; /* a private key */
struct bl_keyring; /* trusted public keys */

/* What a bundle's signature says, checked against a keyring. */
enum bl_sig {
	BL_SIG_NONE,	    /* unsigned */
	BL_SIG_GOOD,	    /* signed by a trusted key, and the bytes are the ones it signed */
	BL_SIG_BAD,	    /* signed by a trusted key, but not these bytes */
	BL_SIG_UNKNOWN_KEY, /* signed by a key not in the keyring (or no keyring given) */
};

/* "unsigned", "good", "bad signature", "signed by an unknown key". */
const char *bl_sig__text(enum bl_sig s);

/*
 * Make a new key pair: the private key at priv_path (PEM, mode 0600) and
 * the public key at pub_path (PEM, mode 0644), each created O_EXCL and
 * never through a symlink, so no existing file is overwritten; fsynced.
 * 0, -EEXIST when either exists (neither is written), or another -errno;
 * err says what. On failure no file is left behind.
 */
int bl_signkey__generate(const char *priv_path, const char *pub_path, char *err, size_t errlen);

/*
 * Load the private key at priv_path: a regular file of at most
 * BL_KEY_FILE_MAX bytes, not readable or writable by group or others, an
 * Ed25519 private key in PEM. 0 with *ret (bl_signkey__free it); -EINVAL
 * (not an Ed25519 private key), -EPERM (mode), or the -errno of the read,
 * err saying what, *ret untouched.
 */
int bl_signkey__load(const char *priv_path, struct bl_signkey **ret, char *err, size_t errlen);
void bl_signkey__free(struct bl_signkey *k);

/* The key's id: 16 lowercase hex of the SHA-256 of its raw public key, NUL-terminated. */
void bl_signkey__id(const struct bl_signkey *k, char ret_id[BL_KEY_ID_LEN + 1]);

/* Sign len bytes of data into ret_sig. 0 or -ENOMEM / -EINVAL (OpenSSL failed). */
int bl_signkey__sign(const struct bl_signkey *k, const void *data, size_t len, uint8_t ret_sig[BL_SIG_LEN]);

/*
 * Load trusted public keys from path: one PEM public key file, or a
 * directory whose *.pub files are each one (other names are ignored; at
 * most BL_KEYRING_MAX of them; the directory must pass bl_dir__check). Each
 * file is a regular file of at most BL_KEY_FILE_MAX bytes that group and
 * others cannot write, holding an Ed25519 public key. The same key twice is
 * kept once. 0 with *ret (bl_keyring__free it); -ENOENT for a directory
 * without any *.pub, -EINVAL, -EPERM, -E2BIG (too many), or the -errno of
 * the read, err naming the file and what is wrong, *ret untouched.
 */
int bl_keyring__load(const char *path, struct bl_keyring **ret, char *err, size_t errlen);
size_t bl_keyring__count(const struct bl_keyring *r);
void bl_keyring__free(struct bl_keyring *r);

/* Whether the keyring holds the key of this id. */
int bl_keyring__has(const struct bl_keyring *r, const char *key_id);

/*
 * Check sig over data with the key of key_id: BL_SIG_GOOD, BL_SIG_BAD, or
 * BL_SIG_UNKNOWN_KEY when r is NULL or holds no key of that id.
 */
enum bl_sig bl_keyring__verify(const struct bl_keyring *r, const char *key_id, const void *data, size_t len,
			       const uint8_t sig[BL_SIG_LEN]);

/* A signature in base64 (RFC 4648, padded, no newlines): 88 characters. */
#define BL_SIG_B64_LEN 88
void bl_sig__encode(const uint8_t sig[BL_SIG_LEN], char ret[BL_SIG_B64_LEN + 1]);

/* The 64 bytes of a signature from exactly its canonical base64 (len bytes of s). 0 or -EINVAL. */
int bl_sig__decode(const char *s, size_t len, uint8_t ret[BL_SIG_LEN]);

#endif
