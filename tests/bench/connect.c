// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bench_connect N - N TCP connects to a closed port of 127.0.0.1, every one
 * refused (W9: a connect storm, the shape of a port scan's failures). Each
 * is socket() + connect() + close(). The port is one the kernel hands out
 * as free (bind to port 0, read it, close); should something start
 * listening on it meanwhile, a connect succeeds and the run fails.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int parse_count(const char *s, unsigned long *ret)
{
	char *end;

	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno || end == s || *end || s[0] == '-' || *ret == 0 ? -1 : 0;
}

/* A loopback port nothing listens on now, in network order; 0 on error. */
static in_port_t closed_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	in_port_t port = 0;

	if (fd < 0)
		return 0;
	if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) && !getsockname(fd, (struct sockaddr *)&a, &len))
		port = a.sin_port;
	close(fd);
	return port;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned long n;

	if (argc != 2 || parse_count(argv[1], &n)) {
		fprintf(stderr, "usage: bench_connect N (N > 0)\n");
		return 2;
	}
	a.sin_port = closed_port();
	if (!a.sin_port) {
		fprintf(stderr, "bench_connect: cannot find a closed loopback port: %s\n", strerror(errno));
		return 1;
	}
	for (unsigned long i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), r;

		if (fd < 0) {
			fprintf(stderr, "bench_connect: socket: %s\n", strerror(errno));
			return 1;
		}
		r = connect(fd, (struct sockaddr *)&a, sizeof(a));
		if (r == 0 || errno != ECONNREFUSED) {
			fprintf(stderr, "bench_connect: connect %lu to 127.0.0.1:%u: %s\n", i + 1, ntohs(a.sin_port),
				r == 0 ? "succeeded (something listens there now)" : strerror(errno));
			close(fd);
			return 1;
		}
		close(fd);
	}
	return 0;
}
