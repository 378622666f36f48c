// SPDX-License-Identifier: MIT
/*
 * audit_key.c - the audit log's evolving sealing key and its file
 * (audit_key.h has the scheme and the file's layout).
 */
#include "audit_key.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "hex.h"

#define EVOLVE_LABEL "plumbline-audit-evolve"
#define SLOT_LEN     64
#define SLOT_MAGIC   "PLAK"
#define SLOT_VERSION 1
/* magic 4, version 1, pad 3, epoch 8, key 32, checksum 16 */
#define SLOT_SUMMED 48

struct audit_key {
	int fd;
	uint64_t epoch;
	uint8_t key[PL_AUDIT_KEY_LEN];
};

static void sha256(const void *a, size_t alen, const void *b, size_t blen, uint8_t ret[32])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned int n = 0;

	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL) || !EVP_DigestUpdate(c, a, alen) ||
	    (blen && !EVP_DigestUpdate(c, b, blen)) || !EVP_DigestFinal_ex(c, ret, &n) || n != 32)
		memset(ret, 0, 32); /* only on OpenSSL failure: every MAC then fails to verify, visibly */
	EVP_MD_CTX_free(c);
}

void audit_key__evolve(uint8_t k[PL_AUDIT_KEY_LEN])
{
	uint8_t next[32];

	sha256(EVOLVE_LABEL, sizeof(EVOLVE_LABEL) - 1, k, PL_AUDIT_KEY_LEN, next);
	memcpy(k, next, PL_AUDIT_KEY_LEN);
	OPENSSL_cleanse(next, sizeof(next));
}

void audit_key__hmac_hex(const uint8_t key[PL_AUDIT_KEY_LEN], const void *buf, size_t len,
			 char ret[PL_AUDIT_MAC_HEX + 1])
{
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (!HMAC(EVP_sha256(), key, PL_AUDIT_KEY_LEN, buf, len, md, &n) || n != 32)
		memset(md, 0, 32);
	pl_hex_encode(md, 32, ret);
}

int audit_seed__parse(const char *text, uint8_t ret[PL_AUDIT_KEY_LEN])
{
	uint8_t k[PL_AUDIT_KEY_LEN];
	size_t n;

	while (*text == ' ' || *text == '\t' || *text == '\n')
		text++;
	n = strlen(text);
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\t' || text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	if (n != 2 * PL_AUDIT_KEY_LEN)
		return -EINVAL;
	for (size_t i = 0; i < PL_AUDIT_KEY_LEN; i++) {
		int h = pl_hex_digit(text[2 * i]), l = pl_hex_digit(text[2 * i + 1]);

		if (h < 0 || l < 0) {
			OPENSSL_cleanse(k, sizeof(k));
			return -EINVAL;
		}
		k[i] = (uint8_t)(h << 4 | l);
	}
	memcpy(ret, k, sizeof(k));
	OPENSSL_cleanse(k, sizeof(k));
	return 0;
}

static void slot_make(uint64_t epoch, const uint8_t key[PL_AUDIT_KEY_LEN], uint8_t s[SLOT_LEN])
{
	uint8_t sum[32];

	memset(s, 0, SLOT_LEN);
	memcpy(s, SLOT_MAGIC, 4);
	s[4] = SLOT_VERSION;
	for (int i = 0; i < 8; i++)
		s[8 + i] = (uint8_t)(epoch >> (8 * i));
	memcpy(s + 16, key, PL_AUDIT_KEY_LEN);
	sha256(s, SLOT_SUMMED, NULL, 0, sum);
	memcpy(s + SLOT_SUMMED, sum, SLOT_LEN - SLOT_SUMMED);
}

static bool slot_read(const uint8_t s[SLOT_LEN], uint64_t *ret_epoch, uint8_t ret_key[PL_AUDIT_KEY_LEN])
{
	uint8_t sum[32];
	uint64_t e = 0;

	if (memcmp(s, SLOT_MAGIC, 4) != 0 || s[4] != SLOT_VERSION)
		return false;
	sha256(s, SLOT_SUMMED, NULL, 0, sum);
	if (memcmp(sum, s + SLOT_SUMMED, SLOT_LEN - SLOT_SUMMED) != 0)
		return false;
	for (int i = 0; i < 8; i++)
		e |= (uint64_t)s[8 + i] << (8 * i);
	if (e == 0)
		return false;
	*ret_epoch = e;
	memcpy(ret_key, s + 16, PL_AUDIT_KEY_LEN);
	return true;
}

static int put_slot(int fd, unsigned idx, const uint8_t s[SLOT_LEN], bool sync)
{
	ssize_t n = pwrite(fd, s, SLOT_LEN, (off_t)idx * SLOT_LEN);

	if (n != SLOT_LEN)
		return n < 0 ? -errno : -EIO;
	return sync && fdatasync(fd) < 0 ? -errno : 0;
}

/*
 * The new state into the slot the epoch's parity names, synced; then the
 * other wiped. The wipe is not synced on its own: anything reading the file
 * sees it at once, and it reaches the disk with the next step's sync (which
 * overwrites that slot anyway), the kernel's writeback, or the close. One
 * sync per line instead of two; the new slot's must come first, or a crash
 * could leave no key.
 */
static int persist(struct audit_key *k)
{
	uint8_t s[SLOT_LEN], zero[SLOT_LEN] = { 0 };
	int r;

	slot_make(k->epoch, k->key, s);
	r = put_slot(k->fd, (unsigned)(k->epoch & 1), s, true);
	OPENSSL_cleanse(s, sizeof(s));
	if (r < 0)
		return r;
	return put_slot(k->fd, (unsigned)(~k->epoch & 1), zero, false);
}

int audit_key__install(const char *path, const uint8_t seed[PL_AUDIT_KEY_LEN])
{
	uint8_t file[2 * SLOT_LEN] = { 0 };
	_cleanup_free_ char *dir = strdup(path);
	_cleanup_close_ int fd = -1, dfd = -1;
	ssize_t n;

	if (!dir)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) < 0)
		return -errno;
	slot_make(1, seed, file + SLOT_LEN); /* epoch 1 is odd: slot 1 */
	n = write(fd, file, sizeof(file));
	OPENSSL_cleanse(file, sizeof(file));
	if (n != (ssize_t)sizeof(file))
		return n < 0 ? -errno : -EIO;
	if (fsync(fd) < 0)
		return -errno;
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0 && fsync(dfd) < 0)
		return -errno;
	return 0;
}

static int check_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	if (st.st_size != 2 * SLOT_LEN)
		return -EBADMSG;
	return 0;
}

int audit_key__open(const char *path, struct audit_key **ret)
{
	uint8_t file[2 * SLOT_LEN], key[2][PL_AUDIT_KEY_LEN];
	uint64_t epoch[2] = { 0, 0 };
	bool ok[2];
	struct audit_key *k;
	ssize_t n;
	int fd, r, best;

	fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	r = check_file(fd);
	n = r < 0 ? 0 : pread(fd, file, sizeof(file), 0);
	if (r == 0 && n != (ssize_t)sizeof(file))
		r = n < 0 ? -errno : -EBADMSG;
	if (r < 0) {
		close(fd);
		return r;
	}
	ok[0] = slot_read(file, &epoch[0], key[0]);
	ok[1] = slot_read(file + SLOT_LEN, &epoch[1], key[1]);
	OPENSSL_cleanse(file, sizeof(file));
	best = ok[0] && (!ok[1] || epoch[0] > epoch[1]) ? 0 : ok[1] ? 1 : -1;
	k = best < 0 ? NULL : calloc(1, sizeof(*k));
	if (k) {
		k->fd = fd;
		k->epoch = epoch[best];
		memcpy(k->key, key[best], PL_AUDIT_KEY_LEN);
	}
	OPENSSL_cleanse(key, sizeof(key));
	if (!k) {
		close(fd);
		return best < 0 ? -EBADMSG : -ENOMEM;
	}
	/* the slot layout follows the epoch's parity; a crash mid-step left both */
	if (ok[0] && ok[1] && (r = persist(k)) < 0) {
		audit_key__free(k);
		return r;
	}
	*ret = k;
	return 0;
}

uint64_t audit_key__epoch(const struct audit_key *k)
{
	return k->epoch;
}

void audit_key__mac(const struct audit_key *k, const void *buf, size_t len, char ret[PL_AUDIT_MAC_HEX + 1])
{
	audit_key__hmac_hex(k->key, buf, len, ret);
}

int audit_key__advance_to(struct audit_key *k, uint64_t epoch)
{
	if (epoch <= k->epoch)
		return 0;
	if (epoch - k->epoch > PL_AUDIT_KEY_MAX_ADVANCE)
		return -ERANGE;
	while (k->epoch < epoch) {
		audit_key__evolve(k->key);
		k->epoch++;
	}
	return persist(k);
}

int audit_key__step(struct audit_key *k)
{
	return audit_key__advance_to(k, k->epoch + 1);
}

void audit_key__free(struct audit_key *k)
{
	if (!k)
		return;
	OPENSSL_cleanse(k->key, sizeof(k->key));
	(void)fdatasync(k->fd); /* the last wipe, on the disk before we go */
	close(k->fd);
	free(k);
}
