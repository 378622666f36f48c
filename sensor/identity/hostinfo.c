// SPDX-License-Identifier: MIT
/*
 * hostinfo.c - the host's name, id and boot id for alerts (hostinfo.h).
 */
#include "identity/hostinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cleanup.h"
#include "fdwrite.h"
#include "fileread.h"
#include "hex.h"
#include "log.h"

#define ID_FILE_MAX 128 /* a machine-id file is 33 bytes */

bool hostinfo__valid_id(const char *buf, size_t len)
{
	if (len == HOSTINFO_ID_LEN + 1 && buf[HOSTINFO_ID_LEN] == '\n')
		len--;
	if (len != HOSTINFO_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!((buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f')))
			return false;
	/* all zeros: systemd's "not yet initialized" is no id of a host */
	return strspn(buf, "0") < HOSTINFO_ID_LEN;
}

static void rooted(char *buf, size_t size, const char *root, const char *path)
{
	snprintf(buf, size, "%s%s", root && *root && strcmp(root, "/") ? root : "", path);
}

/* Append one clause "PATH: WHAT" to why ("; " between them). */
static void say(char *why, size_t size, const char *path, const char *what)
{
	size_t n;

	if (!why || !size)
		return;
	n = strlen(why);
	if (n + 2 < size)
		snprintf(why + n, size - n, "%s", n ? "; " : "");
	n = strlen(why);
	if (n < size)
		snprintf(why + n, size - n, "%s: %s", path, what);
}

/* An id file: 1 with the id in ret, 0 when absent, -1 when there but unusable (said in why). */
static int read_id(const char *path, char ret[HOSTINFO_ID_LEN + 1], char *why, size_t why_size)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = file_read_bounded(path, ID_FILE_MAX, 0, &buf, &len, NULL);

	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		say(why, why_size, path,
		    r == -EINVAL  ? "not a regular file"
		    : r == -EFBIG ? "longer than a machine-id"
				  : strerror(-r));
		return -1;
	}
	if (!hostinfo__valid_id(buf, len)) {
		say(why, why_size, path, "not 32 hex digits (a machine-id)");
		return -1;
	}
	memcpy(ret, buf, HOSTINFO_ID_LEN);
	ret[HOSTINFO_ID_LEN] = '\0';
	return 1;
}

static int random_id(char ret[HOSTINFO_ID_LEN + 1])
{
	uint8_t b[HOSTINFO_ID_LEN / 2];

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		int r = errno ? -errno : -EIO;

		memset(ret, '0', HOSTINFO_ID_LEN);
		ret[HOSTINFO_ID_LEN] = '\0';
		return r;
	}
	pl_hex_encode(b, sizeof(b), ret);
	ret[HOSTINFO_ID_LEN] = '\0';
	return 0;
}

/* Keep id in path (by a temporary file and a rename: never half an id). 0 or -errno. */
static int write_id(const char *path, const char *id)
{
	char tmp[PATH_MAX], line[HOSTINFO_ID_LEN + 2];
	_cleanup_close_ int fd = -1;
	int r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	(void)unlink(tmp); /* one left by a run that died here */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	snprintf(line, sizeof(line), "%s\n", id);
	r = fd_write_all(fd, line, HOSTINFO_ID_LEN + 1);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		(void)unlink(tmp);
	return r;
}

int hostinfo__host_id(const char *root, const char *state_dir, char *why, size_t why_size,
		      char ret_id[HOSTINFO_ID_LEN + 1], enum hostinfo_id_source *ret_src)
{
	static const struct {
		const char *path;
		enum hostinfo_id_source src;
	} chain[] = {
	    {"/etc/machine-id", HOSTINFO_ID_MACHINE_ID},
	    {"/var/lib/dbus/machine-id", HOSTINFO_ID_DBUS},
	};
	char path[PATH_MAX];
	int r;

	if (why && why_size)
		why[0] = '\0';
	for (size_t i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		rooted(path, sizeof(path), root, chain[i].path);
		if (read_id(path, ret_id, why, why_size) > 0) {
			*ret_src = chain[i].src;
			return 0;
		}
	}
	if (state_dir && *state_dir) {
		if (snprintf(path, sizeof(path), "%s/%s", state_dir, HOSTINFO_ID_FILE) >= (int)sizeof(path)) {
			say(why, why_size, state_dir, "path too long");
		} else if (read_id(path, ret_id, why, why_size) > 0) {
			*ret_src = HOSTINFO_ID_STATE;
			return 0;
		} else if ((r = random_id(ret_id)) == 0) {
			r = write_id(path, ret_id);
			if (r == 0) {
				*ret_src = HOSTINFO_ID_STATE;
				return 0;
			}
			char what[160];

			snprintf(what, sizeof(what), "cannot keep an id there: %s", strerror(-r));
			say(why, why_size, path, what);
		}
	}
	*ret_src = HOSTINFO_ID_RUN;
	return random_id(ret_id);
}

/* 8-4-4-4-12 lowercase hex. */
static bool valid_boot_id(const char *s, size_t len)
{
	if (len == HOSTINFO_BOOT_ID_LEN + 1 && s[HOSTINFO_BOOT_ID_LEN] == '\n')
		len--;
	if (len != HOSTINFO_BOOT_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	}
	return true;
}

int hostinfo__boot_id(const char *root, char ret[HOSTINFO_BOOT_ID_LEN + 1])
{
	char path[PATH_MAX], buf[ID_FILE_MAX];
	int fd;
	ssize_t n;

	ret[0] = '\0';
	rooted(path, sizeof(path), root, "/proc/sys/kernel/random/boot_id");
	/* a /proc file: its size is 0 to stat, so read it bounded by hand */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -errno;
	if (!valid_boot_id(buf, (size_t)n))
		return -EINVAL;
	memcpy(ret, buf, HOSTINFO_BOOT_ID_LEN);
	ret[HOSTINFO_BOOT_ID_LEN] = '\0';
	return 0;
}

const char *hostinfo_id_source__name(enum hostinfo_id_source src)
{
	switch (src) {
	case HOSTINFO_ID_MACHINE_ID:
		return "/etc/machine-id";
	case HOSTINFO_ID_DBUS:
		return "/var/lib/dbus/machine-id";
	case HOSTINFO_ID_STATE:
		return "the state directory's " HOSTINFO_ID_FILE;
	case HOSTINFO_ID_RUN:
		break;
	}
	return "a random id for this run only";
}

/* ---- the sensor's ---- */

static struct hostinfo host;
static bool host_ready;
static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;

static char fixed_name[HOSTINFO_NAME_MAX + 1]; /* --host-name; "": the machine's */

static void read_name(char *buf, size_t size)
{
	if (fixed_name[0]) {
		snprintf(buf, size, "%s", fixed_name);
		return;
	}
	if (gethostname(buf, size) < 0) {
		log_warn("gethostname: %m; alerts carry no host name");
		buf[0] = '\0';
	}
	buf[size - 1] = '\0';
}

static void gather(const char *state_dir)
{
	char why[1024];
	int r;

	read_name(host.name, sizeof(host.name));
	r = hostinfo__host_id(NULL, state_dir, why, sizeof(why), host.id, &host.id_source);
	if (why[0])
		log_warn("host id: passed over %s", why);
	if (r < 0)
		log_warn("host id: no entropy for a random one (%s); alerts carry host id %s", strerror(-r), host.id);
	else if (host.id_source != HOSTINFO_ID_MACHINE_ID)
		log_info("host id %s from %s", host.id, hostinfo_id_source__name(host.id_source));
	r = hostinfo__boot_id(NULL, host.boot_id);
	if (r < 0)
		log_info("no boot id (/proc/sys/kernel/random/boot_id: %s); alerts carry none", strerror(-r));
	host_ready = true;
}

void hostinfo__init(const char *state_dir)
{
	pthread_mutex_lock(&host_lock);
	gather(state_dir);
	pthread_mutex_unlock(&host_lock);
}

void hostinfo__set_name(const char *name)
{
	pthread_mutex_lock(&host_lock);
	snprintf(fixed_name, sizeof(fixed_name), "%s", name ? name : "");
	if (host_ready)
		read_name(host.name, sizeof(host.name));
	pthread_mutex_unlock(&host_lock);
}

void hostinfo__refresh(void)
{
	char name[sizeof(host.name)];

	read_name(name, sizeof(name));
	pthread_mutex_lock(&host_lock);
	if (strcmp(name, host.name) != 0) {
		log_info("host name now %s (was %s)", name, host.name);
		memcpy(host.name, name, sizeof(name));
	}
	pthread_mutex_unlock(&host_lock);
}

const struct hostinfo *hostinfo__get(void)
{
	pthread_mutex_lock(&host_lock);
	if (!host_ready)
		gather(NULL);
	pthread_mutex_unlock(&host_lock);
	return &host;
}
