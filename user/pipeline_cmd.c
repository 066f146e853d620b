// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the commands around the event pipeline share (`cfqx run`, `cfqx
 * events`, the test driver): signal set-up, the counters as JSON, opening
 * the pinned events and stats maps, and finding a running daemon.
 */
#include "pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cfqx/cfq.h>

void cfqx_pipe_block_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

void cfqx_pipe_counters_json(const struct cfqx_pipe_counters *c, FILE *f)
{
	const char *sep = "";

#define X(name)								\
	fprintf(f, "%s\"%s\": %llu", sep, #name, (unsigned long long)	\
		atomic_load_explicit(&c->name, memory_order_relaxed));	\
	sep = ", ";
	CFQX_PIPE_COUNTERS(X)
#undef X
}

int cfqx_events_maps_open(const char *maps_dir, int *ring_fd, int *stats_fd,
			  char *err, size_t errlen)
{
	char path[512];
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	snprintf(path, sizeof(path), "%s/%s", maps_dir, CFQX_MAP_EVENTS);
	*ring_fd = bpf_obj_get(path);
	if (*ring_fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s%s", path, strerror(e),
			 e == ENOENT ? " (is cfqx loaded? run `cfqx load`)" : "");
		return -e;
	}
	if (bpf_obj_get_info_by_fd(*ring_fd, &info, &len) ||
	    info.type != BPF_MAP_TYPE_RINGBUF) {
		snprintf(err, errlen, "%s is not a BPF ring buffer", path);
		close(*ring_fd);
		*ring_fd = -1;
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", maps_dir, CFQX_MAP_STATS);
	*stats_fd = bpf_obj_get(path);
	return 0;
}

int cfqx_stats_read(int stats_fd, uint64_t out[CFQX_STAT_NR])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	memset(out, 0, sizeof(uint64_t) * CFQX_STAT_NR);
	if (stats_fd < 0)
		return -ENOENT;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (__u32 k = 0; k < CFQX_STAT_NR; k++) {
		if (bpf_map_lookup_elem(stats_fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

int cfqx_daemon_pid(const char *state_dir)
{
	char path[512], buf[8192];
	const char *p;
	int fd, pid;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", state_dir, CFQX_DAEMON_JSON_NAME);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (!strstr(buf, "\"running\": true"))
		return 0;
	p = strstr(buf, "\"pid\": ");
	if (!p || sscanf(p + 7, "%d", &pid) != 1 || pid <= 0)
		return 0;
	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	return pid;
}
