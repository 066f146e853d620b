// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics endpoint of `cfqx run --metrics ADDR:PORT`: a small HTTP/1.1
 * server on its own thread that answers `GET /metrics` with a fresh
 * snapshot of the pinned maps in the Prometheus text format (prom.c) plus
 * whatever the caller adds (the daemon's pipeline counters).  One
 * connection at a time, each closed after its answer, with a 5 s I/O
 * timeout so a stuck client cannot hold the daemon; anything but GET of
 * /metrics gets 404 or 405.  Stopped through a pipe the thread polls.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "cfqx.h"

struct cfqx_metrics {
	int lfd, stop_pipe[2];
	pthread_t thread;
	cfqx_metrics_extra_fn extra;
	void *arg;
	_Atomic uint64_t scrapes, errors;
};

static void send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;	/* the client went away or timed out */
		buf += n;
		len -= n;
	}
}

static void respond(int fd, const char *status, const char *type,
		    const char *body, size_t len)
{
	char head[256];
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		     status, type, len);
	send_all(fd, head, n);
	send_all(fd, body, len);
}

#define TEXT "text/plain; charset=utf-8"

static void serve_metrics(struct cfqx_metrics *m, int fd)
{
	struct cfqx_snapshot s;
	char *body = NULL;
	size_t len = 0;
	FILE *f;

	atomic_fetch_add(&m->scrapes, 1);
	if (cfqx_snapshot_read(&s)) {
		atomic_fetch_add(&m->errors, 1);
		respond(fd, "503 Service Unavailable", TEXT,
			"cfqx is not loaded\n", 19);
		return;
	}
	f = open_memstream(&body, &len);
	if (f) {
		cfqx_prom_write(f, &s);
		if (m->extra)
			m->extra(f, m->arg);
		cfqx_prom_counter(f, "cfqx_metrics_scrapes_total",
				  "Requests for /metrics served by this daemon.",
				  atomic_load(&m->scrapes));
		cfqx_prom_counter(f, "cfqx_metrics_scrape_errors_total",
				  "Requests for /metrics answered 503 (cfqx not loaded).",
				  atomic_load(&m->errors));
	}
	cfqx_snapshot_free(&s);
	if (!f || fclose(f)) {
		atomic_fetch_add(&m->errors, 1);
		respond(fd, "500 Internal Server Error", TEXT, "out of memory\n",
			14);
	} else {
		respond(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8",
			body, len);
	}
	free(body);
}

/* Reads the request head and answers it. */
static void handle(struct cfqx_metrics *m, int fd)
{
	struct timeval tv = { .tv_sec = 5 };
	char req[8192], method[16], path[256];
	size_t got = 0;
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (got < sizeof(req) - 1) {
		n = recv(fd, req + got, sizeof(req) - 1 - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		got += n;
		req[got] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[got] = 0;
	if (sscanf(req, "%15s %255s HTTP/", method, path) != 2) {
		respond(fd, "400 Bad Request", TEXT, "bad request\n", 12);
		return;
	}
	path[strcspn(path, "?")] = 0;
	if (strcmp(path, "/metrics"))
		respond(fd, "404 Not Found", TEXT, "try /metrics\n", 13);
	else if (strcmp(method, "GET"))
		respond(fd, "405 Method Not Allowed", TEXT, "GET only\n", 9);
	else
		serve_metrics(m, fd);
}

static void *server(void *arg)
{
	struct cfqx_metrics *m = arg;
	struct pollfd p[2] = {
		{ .fd = m->lfd, .events = POLLIN },
		{ .fd = m->stop_pipe[0], .events = POLLIN },
	};

	for (;;) {
		int fd;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		fd = accept4(m->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		handle(m, fd);
		close(fd);
	}
	return NULL;
}

struct cfqx_metrics *cfqx_metrics_start(const struct sockaddr_storage *ss,
					socklen_t len,
					cfqx_metrics_extra_fn extra, void *arg,
					char *err, size_t errlen)
{
	struct cfqx_metrics *m = calloc(1, sizeof(*m));
	int one = 1, r;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->extra = extra;
	m->arg = arg;
	m->stop_pipe[0] = m->stop_pipe[1] = -1;
	m->lfd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (m->lfd < 0 ||
	    setsockopt(m->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(m->lfd, (const struct sockaddr *)ss, len) ||
	    listen(m->lfd, 16)) {
		snprintf(err, errlen, "cannot listen for metrics: %s",
			 strerror(errno));
		goto fail;
	}
	if (pipe2(m->stop_pipe, O_CLOEXEC)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	r = pthread_create(&m->thread, NULL, server, m);
	if (r) {
		snprintf(err, errlen, "cannot start the metrics thread: %s",
			 strerror(r));
		goto fail;
	}
	return m;
fail:
	if (m->lfd >= 0)
		close(m->lfd);
	if (m->stop_pipe[0] >= 0) {
		close(m->stop_pipe[0]);
		close(m->stop_pipe[1]);
	}
	free(m);
	return NULL;
}

void cfqx_metrics_stop(struct cfqx_metrics *m)
{
	if (!m)
		return;
	if (write(m->stop_pipe[1], "x", 1) != 1)
		pthread_cancel(m->thread);
	pthread_join(m->thread, NULL);
	close(m->stop_pipe[0]);
	close(m->stop_pipe[1]);
	close(m->lfd);
	free(m);
}
