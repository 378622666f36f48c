// SPDX-License-Identifier: MIT
/*
 * test_metrics.c - the Prometheus exposition renderer (outputs/metrics.h):
 * HELP/TYPE lines, escaping of label values and help text, names refused,
 * values; the address parser; and the server on loopback (200, 404, 405,
 * 503 before the first publish; slow request heads cut).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "metrics.h"

static void test_expo_writes_help_and_type_lines(void **state)
{
	struct pl_expo e = {0};

	assert_int_equal(expo__family(&e, "pl_things_total", PL_METRIC_COUNTER, "Things seen."), 0);
	assert_int_equal(expo__u64(&e, NULL, 0, 42), 0);
	assert_int_equal(expo__family(&e, "pl_level", PL_METRIC_GAUGE, "A level."), 0);
	assert_int_equal(expo__u64(&e, (struct pl_label[]){{"kind", "a"}, {"b", "c"}}, 2, 7), 0);
	assert_string_equal(expo__text(&e), "# HELP pl_things_total Things seen.\n"
					    "# TYPE pl_things_total counter\n"
					    "pl_things_total 42\n"
					    "# HELP pl_level A level.\n"
					    "# TYPE pl_level gauge\n"
					    "pl_level{kind=\"a\",b=\"c\"} 7\n");
	expo__free(&e);
}

static void test_expo_escapes_label_values(void **state)
{
	struct pl_expo e = {0};

	expo__family(&e, "pl_rule_alerts_total", PL_METRIC_COUNTER, "h");
	expo__u64(&e, (struct pl_label[]){{"rule", "say \"hi\"\\now\nnext"}}, 1, 1);
	assert_non_null(strstr(expo__text(&e), "pl_rule_alerts_total{rule=\"say \\\"hi\\\"\\\\now\\nnext\"} 1\n"));
	expo__free(&e);
}

static void test_expo_replaces_invalid_utf8_in_labels(void **state)
{
	struct pl_expo e = {0};

	expo__family(&e, "pl_x", PL_METRIC_GAUGE, "h");
	/* a lone continuation byte, a truncated sequence, an overlong '/' and valid é */
	expo__u64(&e,
		  (struct pl_label[]){{"v", "a\x80"
					    "b\xc3"
					    "c\xc0\xaf"
					    "d\xc3\xa9"}},
		  1, 1);
	assert_non_null(strstr(expo__text(&e), "pl_x{v=\"a\xef\xbf\xbd"
					       "b\xef\xbf\xbd"
					       "c\xef\xbf\xbd\xef\xbf\xbd"
					       "d\xc3\xa9\"} 1\n"));
	expo__free(&e);
}

static void test_expo_escapes_help_text(void **state)
{
	struct pl_expo e = {0};

	/* help escapes \ and newline only; a quote stays as it is */
	expo__family(&e, "pl_x", PL_METRIC_GAUGE, "a \"b\" c\\d\ne");
	assert_non_null(strstr(expo__text(&e), "# HELP pl_x a \"b\" c\\\\d\\ne\n"));
	expo__free(&e);
}

static void test_expo_refuses_bad_names(void **state)
{
	struct pl_expo e = {0};

	assert_int_equal(expo__family(&e, "pl_things", PL_METRIC_COUNTER, "h"), -EINVAL); /* no _total */
	assert_null(expo__text(&e));
	expo__free(&e);
	assert_int_equal(expo__family(&e, "pl_level_total", PL_METRIC_GAUGE, "h"), -EINVAL);
	expo__free(&e);
	assert_int_equal(expo__family(&e, "1pl", PL_METRIC_GAUGE, "h"), -EINVAL);
	expo__free(&e);
	assert_int_equal(expo__family(&e, "pl-x", PL_METRIC_GAUGE, "h"), -EINVAL);
	expo__free(&e);
	assert_int_equal(expo__u64(&e, NULL, 0, 1), -EINVAL); /* a sample before any family */
	expo__free(&e);
	expo__family(&e, "pl_x", PL_METRIC_GAUGE, "h");
	assert_int_equal(expo__u64(&e, (struct pl_label[]){{"__name", "v"}}, 1, 1), -EINVAL);
	expo__free(&e);
	expo__family(&e, "pl_x", PL_METRIC_GAUGE, "h");
	assert_int_equal(expo__u64(&e, (struct pl_label[]){{"a-b", "v"}}, 1, 1), -EINVAL);
	expo__free(&e);
	assert_true(expo__metric_name_ok("a:b_c9"));
	assert_false(expo__label_name_ok("a:b"));
}

static void test_expo_formats_values(void **state)
{
	struct pl_expo e = {0};

	expo__family(&e, "pl_x", PL_METRIC_GAUGE, "h");
	expo__u64(&e, NULL, 0, UINT64_MAX);
	expo__double(&e, NULL, 0, 0.1);
	expo__double(&e, NULL, 0, 1796096445.2265608);
	expo__double(&e, NULL, 0, 0.0 / 0.0);
	expo__double(&e, NULL, 0, -1.0 / 0.0);
	assert_string_equal(expo__text(&e), "# HELP pl_x h\n# TYPE pl_x gauge\n"
					    "pl_x 18446744073709551615\n"
					    "pl_x 0.1\n"
					    "pl_x 1796096445.2265608\n"
					    "pl_x NaN\n"
					    "pl_x -Inf\n");
	expo__free(&e);
}

static void test_addr_parse_says_what_is_loopback(void **state)
{
	struct metrics_addr a;
	char err[160];

	assert_int_equal(metrics_addr__parse("127.0.0.1:9464", &a, err, sizeof(err)), 0);
	assert_true(a.loopback);
	assert_int_equal(ntohs(((struct sockaddr_in *)&a.sa)->sin_port), 9464);
	assert_int_equal(metrics_addr__parse("127.1.2.3:1", &a, err, sizeof(err)), 0);
	assert_true(a.loopback);
	assert_int_equal(metrics_addr__parse("[::1]:65535", &a, err, sizeof(err)), 0);
	assert_true(a.loopback);
	assert_int_equal(metrics_addr__parse("[::ffff:127.0.0.1]:80", &a, err, sizeof(err)), 0);
	assert_true(a.loopback);
	assert_int_equal(metrics_addr__parse("0.0.0.0:9464", &a, err, sizeof(err)), 0);
	assert_false(a.loopback);
	assert_int_equal(metrics_addr__parse("10.1.2.3:9464", &a, err, sizeof(err)), 0);
	assert_false(a.loopback);
	assert_int_equal(metrics_addr__parse("[::]:9464", &a, err, sizeof(err)), 0);
	assert_false(a.loopback);
}

static void test_addr_parse_refuses_malformed(void **state)
{
	static const char *const bad[] = {"",
					  "127.0.0.1",
					  "127.0.0.1:",
					  "127.0.0.1:0",
					  "127.0.0.1:65536",
					  "127.0.0.1:-1",
					  "127.0.0.1:+80",
					  "127.0.0.1:80x",
					  "localhost:80",
					  "::1:80",
					  "[::1]80",
					  "[::1",
					  "[127.0.0.1]:80",
					  ":80"};
	struct metrics_addr a;
	char err[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(metrics_addr__parse(bad[i], &a, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
	}
}

static void live_family(struct pl_expo *e, void *ctx)
{
	expo__family(e, "pl_live", PL_METRIC_GAUGE, "rendered at the scrape");
	expo__u64(e, NULL, 0, ++*(uint64_t *)ctx);
}

/* One request on a new connection; returns the status code, the body in body. */
static int request(uint16_t port, const char *method, const char *path, char *body, size_t size)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	char req[256], resp[65536];
	size_t len = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), code = -1;
	const char *sep;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
		 method, path);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	for (;;) {
		ssize_t n = read(fd, resp + len, sizeof(resp) - 1 - len);

		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	resp[len] = '\0';
	sscanf(resp, "HTTP/1.1 %d", &code);
	sep = strstr(resp, "\r\n\r\n");
	snprintf(body, size, "%s", sep ? sep + 4 : "");
	return code;
}

/* A server on a free loopback port: its address into a, its port returned. */
static uint16_t start_server(struct metrics_server **s, struct metrics_addr *a)
{
	char err[160], addr[32];
	uint16_t port = 0;
	int r = -EADDRINUSE;

	srand((unsigned)time(NULL) ^ (unsigned)getpid());
	for (int i = 0; i < 20 && r == -EADDRINUSE; i++) {
		port = (uint16_t)(20000 + rand() % 30000);
		snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
		assert_int_equal(metrics_addr__parse(addr, a, err, sizeof(err)), 0);
		r = metrics_server__start(a, s);
	}
	assert_int_equal(r, 0);
	return port;
}

static void test_server_serves_only_metrics_by_get(void **state)
{
	struct metrics_server *s = NULL;
	struct metrics_addr a;
	char body[4096];
	uint16_t port = start_server(&s, &a);
	assert_int_equal(request(port, "GET", "/metrics", body, sizeof(body)), 503);
	assert_int_equal(metrics_server__publish(s, "a 1\n", 4), 0);
	assert_int_equal(request(port, "GET", "/metrics", body, sizeof(body)), 200);
	assert_string_equal(body, "a 1\n");
	assert_int_equal(metrics_server__publish(s, "b 2\n", 4), 0);
	assert_int_equal(request(port, "GET", "/metrics", body, sizeof(body)), 200);
	assert_string_equal(body, "b 2\n");
	{
		uint64_t n = 0;

		metrics_server__set_live(s, live_family, &n);
		assert_int_equal(request(port, "GET", "/metrics", body, sizeof(body)), 200);
		assert_string_equal(body, "b 2\n# HELP pl_live rendered at the scrape\n# TYPE pl_live gauge\npl_live 1\n");
		assert_int_equal(request(port, "GET", "/metrics", body, sizeof(body)), 200);
		assert_non_null(strstr(body, "pl_live 2\n"));
		metrics_server__set_live(s, NULL, NULL);
	}
	assert_int_equal(request(port, "HEAD", "/metrics", body, sizeof(body)), 200);
	assert_string_equal(body, "");
	assert_int_equal(request(port, "GET", "/", body, sizeof(body)), 404);
	assert_int_equal(request(port, "GET", "/metrics/x", body, sizeof(body)), 404);
	assert_int_equal(request(port, "POST", "/metrics", body, sizeof(body)), 405);
	assert_int_equal(request(port, "DELETE", "/metrics", body, sizeof(body)), 405);
	assert_int_equal(metrics_server__scrapes(s), 5);
	/* the same address again: refused, with the errno */
	{
		struct metrics_server *s2 = NULL;

		assert_int_equal(metrics_server__start(&a, &s2), -EADDRINUSE);
		assert_null(s2);
	}
	metrics_server__free(s);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Whether the server has closed fd: end of stream, or a reset. */
static bool closed_by_server(int fd)
{
	char b[64];
	ssize_t n = recv(fd, b, sizeof(b), MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

/*
 * Slowloris: every slot held by a peer that sends one header line a second
 * (under the idle timeout) and never ends its head. A prompt scrape is
 * still answered within 1 s, and every slow peer is cut, by the head
 * deadline or to make room, and counted.
 */
static void test_server_cuts_slow_request_heads(void **state)
{
	enum { SLOW = METRICS_MAX_CONNS };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct metrics_server *s = NULL;
	struct metrics_cut_stats cuts;
	struct metrics_addr a;
	int slow[SLOW], open_left = SLOW;
	bool gone[SLOW] = { false };
	char body[4096];
	uint64_t t0, took, deadline;
	uint16_t port = start_server(&s, &a);

	(void)state;
	assert_int_equal(metrics_server__publish(s, "a 1\n", 4), 0);
	sa.sin_port = htons(port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int i = 0; i < SLOW; i++) {
		slow[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_true(slow[i] >= 0);
		assert_int_equal(connect(slow[i], (struct sockaddr *)&sa, sizeof(sa)), 0);
		assert_int_equal(send(slow[i], "GET /metrics HTTP/1.1\r\n", 23, MSG_NOSIGNAL), 23);
	}
	poll(NULL, 0, 1000);
	for (int i = 0; i < SLOW; i++)
		send(slow[i], "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
	/* every slot is taken by an incomplete head: a scrape still gets in */
	t0 = now_ms();
	assert_int_equal(request(port, "GET", "/metrics", body, sizeof(body)), 200);
	took = now_ms() - t0;
	fprintf(stderr, "scrape with %d slow peers: %llu ms\n", SLOW, (unsigned long long)took);
	assert_true(took < 1000);
	assert_string_equal(body, "a 1\n");
	/* the slow peers keep trickling, and are cut by the head deadline */
	deadline = now_ms() + 10000;
	while (open_left > 0 && now_ms() < deadline) {
		poll(NULL, 0, 500);
		for (int i = 0; i < SLOW; i++) {
			if (gone[i])
				continue;
			send(slow[i], "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
			if (closed_by_server(slow[i])) {
				gone[i] = true;
				open_left--;
			}
		}
	}
	fprintf(stderr, "slow peers cut after %llu ms\n", (unsigned long long)(now_ms() - t0 + 1000));
	assert_int_equal(open_left, 0);
	cuts = metrics_server__cuts(s);
	assert_true(cuts.evicted >= 1);
	assert_true(cuts.deadline >= 1);
	assert_true(cuts.deadline + cuts.evicted >= SLOW);
	for (int i = 0; i < SLOW; i++)
		close(slow[i]);
	metrics_server__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expo_writes_help_and_type_lines),
	    cmocka_unit_test(test_expo_escapes_label_values),
	    cmocka_unit_test(test_expo_replaces_invalid_utf8_in_labels),
	    cmocka_unit_test(test_expo_escapes_help_text),
	    cmocka_unit_test(test_expo_refuses_bad_names),
	    cmocka_unit_test(test_expo_formats_values),
	    cmocka_unit_test(test_addr_parse_says_what_is_loopback),
	    cmocka_unit_test(test_addr_parse_refuses_malformed),
	    cmocka_unit_test(test_server_serves_only_metrics_by_get),
	    cmocka_unit_test(test_server_cuts_slow_request_heads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
