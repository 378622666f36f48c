// SPDX-License-Identifier: MIT
/*
 * hostctx.c - PSI and cgroup CPU throttling for alerts (see hostctx.h).
 */
#include "probes/hostctx.h"
#include "lineread.h"
#include "identity/hostinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "some avg10=0.37 avg60=..." -> 0.37 */
static bool psi_some_avg10(const char *res, double *ret)
{
	char path[64], buf[256], *end;
	const char *p;
	double v;

	snprintf(path, sizeof(path), "/proc/pressure/%s", res);
	if (read_small_file(path, buf, sizeof(buf)) <= 0 || strncmp(buf, "some ", 5) != 0)
		return false;
	p = strstr(buf, "avg10=");
	if (!p)
		return false;
	v = strtod(p + 6, &end);
	if (end == p + 6 || v < 0 || v > 100)
		return false;
	*ret = v;
	return true;
}

bool hostctx__psi_available(void)
{
	double v;

	return psi_some_avg10("cpu", &v);
}

void hostctx__psi(uint64_t now_ns, struct hostctx_psi *ret)
{
	static struct hostctx_psi cache;
	static uint64_t read_ns;
	static bool have;

	if (!have || now_ns < read_ns || now_ns - read_ns >= 1000000000ull) {
		memset(&cache, 0, sizeof(cache));
		cache.cpu_ok = psi_some_avg10("cpu", &cache.cpu);
		cache.memory_ok = psi_some_avg10("memory", &cache.memory);
		cache.io_ok = psi_some_avg10("io", &cache.io);
		cache.present = cache.cpu_ok || cache.memory_ok || cache.io_ok;
		read_ns = now_ns;
		have = true;
	}
	*ret = cache;
}

static bool stat_field(const char *buf, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ' ') {
			char *end;
			unsigned long long v = strtoull(p + klen + 1, &end, 10);

			if (end == p + klen + 1)
				return false;
			*ret = v;
			return true;
		}
	}
	return false;
}

void hostctx__cgroup_cpu(const char *cgroup, struct hostctx_cgcpu *ret)
{
	char path[512], buf[1024];
	uint64_t ns;

	memset(ret, 0, sizeof(*ret));
	if (!cgroup || cgroup[0] != '/' || strstr(cgroup, "/../") || strlen(cgroup) > 400)
		return;
	/* cgroup v2: throttled_usec */
	snprintf(path, sizeof(path), "/sys/fs/cgroup%s%scpu.stat", cgroup, cgroup[1] ? "/" : "");
	if (read_small_file(path, buf, sizeof(buf)) > 0 && stat_field(buf, "nr_throttled", &ret->nr_throttled) &&
	    stat_field(buf, "throttled_usec", &ret->throttled_usec)) {
		stat_field(buf, "nr_periods", &ret->nr_periods);
		ret->present = true;
		return;
	}
	/* v1's cpu controller: throttled_time in ns */
	snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu%s%scpu.stat", cgroup, cgroup[1] ? "/" : "");
	if (read_small_file(path, buf, sizeof(buf)) > 0 && stat_field(buf, "nr_throttled", &ret->nr_throttled) &&
	    stat_field(buf, "throttled_time", &ns)) {
		stat_field(buf, "nr_periods", &ret->nr_periods);
		ret->throttled_usec = ns / 1000;
		ret->present = true;
	}
}

void hostctx__identity(struct pl_alert_host *ret)
{
	const struct hostinfo *h = hostinfo__get();

	ret->name = h->name[0] ? h->name : NULL;
	ret->id = h->id[0] ? h->id : NULL;
	ret->boot_id = h->boot_id[0] ? h->boot_id : NULL;
}

void hostctx__alert(uint64_t now_ns, const char *cgroup, struct pl_alert_host *ret)
{
	struct hostctx_psi p;
	struct hostctx_cgcpu c;

	hostctx__psi(now_ns, &p);
	hostctx__cgroup_cpu(cgroup, &c);
	*ret = (struct pl_alert_host){
		.psi = p.present,
		.cpu_ok = p.cpu_ok,
		.memory_ok = p.memory_ok,
		.io_ok = p.io_ok,
		.cpu = p.cpu,
		.memory = p.memory,
		.io = p.io,
		.cgroup_cpu = c.present,
		.nr_periods = c.nr_periods,
		.nr_throttled = c.nr_throttled,
		.throttled_usec = c.throttled_usec,
	};
	hostctx__identity(ret);
}
