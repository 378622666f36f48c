// SPDX-License-Identifier: MIT
/*
 * signing.c - Ed25519 bundle keys through OpenSSL 3's EVP interface.
 *
 * Ed25519 signs the message itself (no digest first: EVP_DigestSign with a
 * NULL md), so a bundle's signature is over its bytes as they are on disk
 * and `openssl pkeyutl -verify -rawin` checks it the same way. Key files
 * are read whole through an fd that is checked before anything is parsed:
 * a regular file, bounded, with a mode that keeps others out.
 */
#include "signing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "cleanup.h"
#include "fdwrite.h"
#include "fileio.h"

struct bl_signkey {
	EVP_PKEY *pk;
	char id[BL_KEY_ID_LEN + 1];
};

struct trusted {
	EVP_PKEY *pk;
	char id[BL_KEY_ID_LEN + 1];
};

struct bl_keyring {
	struct trusted *k;
	size_t n;
};

const char *bl_sig__text(enum bl_sig s)
{
	switch (s) {
	case BL_SIG_NONE:
		return "unsigned";
	case BL_SIG_GOOD:
		return "good";
	case BL_SIG_BAD:
		return "bad signature";
	case BL_SIG_UNKNOWN_KEY:
		return "signed by an unknown key";
	}
	return "?";
}

/* "path: why" into err; returns r. */
static int fail(char *err, size_t errlen, int r, const char *path, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, why);
	return r;
}

/* The id of an Ed25519 key: SHA-256 of its raw public key, 16 hex digits. */
static int key_id(EVP_PKEY *pk, char ret[BL_KEY_ID_LEN + 1])
{
	unsigned char raw[32], md[EVP_MAX_MD_SIZE];
	size_t len = sizeof(raw);
	unsigned mdlen = 0;

	if (EVP_PKEY_get_raw_public_key(pk, raw, &len) != 1 || len != sizeof(raw) ||
	    EVP_Digest(raw, len, md, &mdlen, EVP_sha256(), NULL) != 1)
		return -EINVAL;
	for (int i = 0; i < BL_KEY_ID_LEN / 2; i++)
		snprintf(ret + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/*
 * A key file, whole: a regular file (opened O_NONBLOCK: a FIFO never
 * blocks) of at most BL_KEY_FILE_MAX bytes, with none of the mode bits in
 * forbid. *ret is malloc'd and NUL-terminated.
 */
static int read_key_file(const char *path, unsigned forbid, char **ret, size_t *ret_len, char *err, size_t errlen)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	char why[96];

	if (fd < 0 || fstat(fd, &st) < 0)
		return fail(err, errlen, -errno, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, -EINVAL, path, "not a regular file");
	if (st.st_mode & forbid) {
		snprintf(why, sizeof(why), "%s by group or others (mode %04o); fix: chmod %s",
			 forbid & 044 ? "readable" : "writable", (unsigned)(st.st_mode & 07777),
			 forbid & 044 ? "0600" : "go-w");
		return fail(err, errlen, -EPERM, path, why);
	}
	if (st.st_size > BL_KEY_FILE_MAX) {
		snprintf(why, sizeof(why), "%lld bytes, larger than a key file may be (%d)", (long long)st.st_size,
			 BL_KEY_FILE_MAX);
		return fail(err, errlen, -EFBIG, path, why);
	}
	buf = malloc(BL_KEY_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t got = read(fd, buf + len, BL_KEY_FILE_MAX + 1 - len);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return fail(err, errlen, -errno, path, strerror(errno));
		if (got == 0)
			break;
		len += (size_t)got;
		if (len > BL_KEY_FILE_MAX) /* it grew since the fstat */
			return fail(err, errlen, -EFBIG, path, "larger than a key file may be");
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

static void wipe_free(char *buf, size_t len)
{
	if (buf)
		OPENSSL_cleanse(buf, len);
	free(buf);
}

/* An Ed25519 key from PEM text: private (priv) or public. NULL when it is not one. */
static EVP_PKEY *parse_pem(const char *buf, size_t len, bool priv)
{
	BIO *bio = BIO_new_mem_buf(buf, (int)len);
	EVP_PKEY *pk;

	if (!bio)
		return NULL;
	pk = priv ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (pk && EVP_PKEY_get_id(pk) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(pk);
		pk = NULL;
	}
	return pk;
}

/*
 * data (len bytes) into a new file at path, mode, never over anything
 * there: written and fsynced as a temp file beside it, then linked into
 * place (link(2) fails on an existing name, so nothing is overwritten, and
 * a crash leaves the whole file or none), the directory fsynced.
 */
static int write_new(const char *path, const char *data, size_t len, unsigned mode)
{
	char tmp[4096], dir[4096], *slash;
	int fd, dfd, r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fchmod(fd, mode) < 0 ? -errno : 0; /* whatever the umask */
	if (!r)
		r = fd_write_all(fd, data, len);
	if (!r && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && !r)
		r = -errno;
	if (!r && link(tmp, path) < 0)
		r = -errno;
	unlink(tmp);
	if (r)
		return r;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	dfd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* The PEM text of a key, private or public, into *ret (malloc'd). */
static int pem_of(EVP_PKEY *pk, bool priv, char **ret, size_t *ret_len)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *p;
	long len;
	int r = -ENOMEM;

	if (!bio)
		return -ENOMEM;
	if ((priv ? PEM_write_bio_PrivateKey(bio, pk, NULL, NULL, 0, NULL, NULL) : PEM_write_bio_PUBKEY(bio, pk)) ==
		1 &&
	    (len = BIO_get_mem_data(bio, &p)) > 0 && (*ret = malloc((size_t)len))) {
		memcpy(*ret, p, (size_t)len);
		*ret_len = (size_t)len;
		r = 0;
	}
	BIO_free(bio);
	return r;
}

int bl_signkey__generate(const char *priv_path, const char *pub_path, char *err, size_t errlen)
{
	EVP_PKEY *pk;
	char *priv = NULL, *pub = NULL;
	size_t privlen = 0, publen = 0;
	struct stat st;
	int r;

	if (lstat(pub_path, &st) == 0)
		return fail(err, errlen, -EEXIST, pub_path, "exists already; not overwritten");
	if (lstat(priv_path, &st) == 0)
		return fail(err, errlen, -EEXIST, priv_path, "exists already; not overwritten");
	pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!pk)
		return fail(err, errlen, -ENOMEM, priv_path, "OpenSSL could not make an Ed25519 key");
	r = pem_of(pk, true, &priv, &privlen);
	if (!r)
		r = pem_of(pk, false, &pub, &publen);
	EVP_PKEY_free(pk);
	if (r) {
		wipe_free(priv, privlen);
		free(pub);
		return fail(err, errlen, r, priv_path, "out of memory");
	}
	r = write_new(priv_path, priv, privlen, 0600);
	if (r)
		fail(err, errlen, r, priv_path, r == -EEXIST ? "exists already; not overwritten" : strerror(-r));
	if (!r) {
		r = write_new(pub_path, pub, publen, 0644);
		if (r) {
			fail(err, errlen, r, pub_path, r == -EEXIST ? "exists already; not overwritten" : strerror(-r));
			unlink(priv_path);
		}
	}
	wipe_free(priv, privlen);
	free(pub);
	return r;
}

int bl_signkey__load(const char *priv_path, struct bl_signkey **ret, char *err, size_t errlen)
{
	struct bl_signkey *k;
	char *buf;
	size_t len;
	int r = read_key_file(priv_path, 077, &buf, &len, err, errlen);

	if (r < 0)
		return r;
	k = calloc(1, sizeof(*k));
	if (!k) {
		wipe_free(buf, len);
		return -ENOMEM;
	}
	k->pk = parse_pem(buf, len, true);
	wipe_free(buf, len);
	if (!k->pk || key_id(k->pk, k->id) < 0) {
		bl_signkey__free(k);
		return fail(err, errlen, -EINVAL, priv_path, "not an Ed25519 private key in PEM");
	}
	*ret = k;
	return 0;
}

void bl_signkey__free(struct bl_signkey *k)
{
	if (!k)
		return;
	EVP_PKEY_free(k->pk);
	free(k);
}

void bl_signkey__id(const struct bl_signkey *k, char ret_id[BL_KEY_ID_LEN + 1])
{
	memcpy(ret_id, k->id, BL_KEY_ID_LEN + 1);
}

int bl_signkey__sign(const struct bl_signkey *k, const void *data, size_t len, uint8_t ret_sig[BL_SIG_LEN])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t siglen = BL_SIG_LEN;
	int r = -EINVAL;

	if (!ctx)
		return -ENOMEM;
	if (EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pk) == 1 &&
	    EVP_DigestSign(ctx, ret_sig, &siglen, data, len) == 1 && siglen == BL_SIG_LEN)
		r = 0;
	EVP_MD_CTX_free(ctx);
	return r;
}

static void keyring_free(struct bl_keyring *r)
{
	for (size_t i = 0; r && i < r->n; i++)
		EVP_PKEY_free(r->k[i].pk);
	if (r)
		free(r->k);
	free(r);
}

void bl_keyring__free(struct bl_keyring *r)
{
	keyring_free(r);
}

size_t bl_keyring__count(const struct bl_keyring *r)
{
	return r ? r->n : 0;
}

static const struct trusted *find(const struct bl_keyring *r, const char *key_id)
{
	for (size_t i = 0; r && i < r->n; i++)
		if (strcmp(r->k[i].id, key_id) == 0)
			return &r->k[i];
	return NULL;
}

int bl_keyring__has(const struct bl_keyring *r, const char *key_id)
{
	return find(r, key_id) != NULL;
}

/* One public key file into r (room for it is there). */
static int add_file(struct bl_keyring *r, const char *path, char *err, size_t errlen)
{
	struct trusted t = {0};
	char *buf;
	size_t len;
	int e = read_key_file(path, 022, &buf, &len, err, errlen);

	if (e < 0)
		return e;
	t.pk = parse_pem(buf, len, false);
	free(buf);
	if (!t.pk || key_id(t.pk, t.id) < 0) {
		EVP_PKEY_free(t.pk);
		return fail(err, errlen, -EINVAL, path, "not an Ed25519 public key in PEM");
	}
	if (find(r, t.id)) {
		EVP_PKEY_free(t.pk); /* the same key under two names */
		return 0;
	}
	r->k[r->n++] = t;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.pub names of dir, sorted (so errors name the same file each time). */
static int pub_names(const char *dir, char ***ret, size_t *ret_n, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	int r = 0;

	if (!d)
		return fail(err, errlen, -errno, dir, strerror(errno));
	names = calloc(BL_KEYRING_MAX, sizeof(*names));
	if (!names)
		r = -ENOMEM;
	while (!r && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l < 5 || strcmp(de->d_name + l - 4, ".pub") != 0)
			continue;
		if (n == BL_KEYRING_MAX) {
			char why[96];

			snprintf(why, sizeof(why), "holds more than %d *.pub keys", BL_KEYRING_MAX);
			r = fail(err, errlen, -E2BIG, dir, why);
			break;
		}
		if (!(names[n] = strdup(de->d_name)))
			r = -ENOMEM;
		else
			n++;
	}
	closedir(d);
	if (r) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return r;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	*ret = names;
	*ret_n = n;
	return 0;
}

int bl_keyring__load(const char *path, struct bl_keyring **ret, char *err, size_t errlen)
{
	struct bl_keyring *r = calloc(1, sizeof(*r));
	struct stat st;
	char **names = NULL;
	size_t nnames = 0;
	int e = 0;

	if (!r || !(r->k = calloc(BL_KEYRING_MAX, sizeof(*r->k)))) {
		keyring_free(r);
		return -ENOMEM;
	}
	if (stat(path, &st) < 0) {
		e = fail(err, errlen, -errno, path, strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		e = add_file(r, path, err, errlen);
	} else {
		char why[200];

		e = bl_dir__check(path, why, sizeof(why));
		if (e < 0)
			fail(err, errlen, e, path, why);
		if (!e)
			e = pub_names(path, &names, &nnames, err, errlen);
		if (!e && nnames == 0)
			e = fail(err, errlen, -ENOENT, path, "holds no *.pub key");
		for (size_t i = 0; i < nnames; i++) {
			char file[4096];

			if (!e && (size_t)snprintf(file, sizeof(file), "%s/%s", path, names[i]) >= sizeof(file))
				e = fail(err, errlen, -ENAMETOOLONG, path, "a key's path is too long");
			if (!e)
				e = add_file(r, file, err, errlen);
			free(names[i]);
		}
		free(names);
	}
	if (e < 0) {
		keyring_free(r);
		return e;
	}
	*ret = r;
	return 0;
}

enum bl_sig bl_keyring__verify(const struct bl_keyring *r, const char *key_id, const void *data, size_t len,
			       const uint8_t sig[BL_SIG_LEN])
{
	const struct trusted *t = find(r, key_id);
	EVP_MD_CTX *ctx;
	enum bl_sig v = BL_SIG_BAD;

	if (!t)
		return BL_SIG_UNKNOWN_KEY;
	ctx = EVP_MD_CTX_new();
	if (ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, t->pk) == 1 &&
	    EVP_DigestVerify(ctx, sig, BL_SIG_LEN, data, len) == 1)
		v = BL_SIG_GOOD;
	EVP_MD_CTX_free(ctx);
	return v;
}

void bl_sig__encode(const uint8_t sig[BL_SIG_LEN], char ret[BL_SIG_B64_LEN + 1])
{
	EVP_EncodeBlock((unsigned char *)ret, sig, BL_SIG_LEN);
}

int bl_sig__decode(const char *s, size_t len, uint8_t ret[BL_SIG_LEN])
{
	unsigned char out[BL_SIG_B64_LEN], again[BL_SIG_B64_LEN + 1];

	/* 64 bytes are 88 characters, the last two "=": anything else is not one */
	if (len != BL_SIG_B64_LEN || memchr(s, '\0', len))
		return -EINVAL;
	if (EVP_DecodeBlock(out, (const unsigned char *)s, (int)len) != BL_SIG_LEN + 2)
		return -EINVAL;
	/* the one spelling of these bytes: no other string verifies as the same signature */
	EVP_EncodeBlock(again, out, BL_SIG_LEN);
	if (memcmp(again, s, len) != 0)
		return -EINVAL;
	memcpy(ret, out, BL_SIG_LEN);
	return 0;
}
