// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * evpipe: the event pipeline (user/pipeline.c) alone, as `cfqx run
 * --no-uevents --json FILE` runs it, so the storm tests can run it under
 * ASan/UBSan and TSan without the rest of the cfqx command.  Prints the
 * final counters as one JSON object on stdout; --counters FILE also
 * keeps the live counters in FILE (rewritten every 100 ms, replaced
 * atomically) for tests that wait for a condition.  SIGTERM/SIGINT: stop
 * reading, drain, exit 0.
 * usage: evpipe --maps DIR --json FILE [--once] [--drop-when-full]
 *               [--fifo-size BYTES] [--counters FILE]
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipeline.h"

/* The live counters to @path, through a temporary file and rename(). */
static void write_live(const char *path, const struct cfqx_pipe_counters *c)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fputc('{', f);
	cfqx_pipe_counters_json(c, f);
	fputs("}\n", f);
	if (fclose(f) == 0)
		rename(tmp, path);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "maps", required_argument, NULL, 'm' },
		{ "json", required_argument, NULL, 'j' },
		{ "once", no_argument, NULL, 'o' },
		{ "drop-when-full", no_argument, NULL, 'D' },
		{ "fifo-size", required_argument, NULL, 'f' },
		{ "counters", required_argument, NULL, 'c' },
		{ 0 }
	};
	struct cfqx_pipe_opts o = {
		.fifo_bytes = 1u << 20, .json_fd = -1, .text_fd = -1,
	};
	struct cfqx_pipe_counters fin;
	const char *maps = NULL, *json = "/dev/null", *live = NULL;
	struct cfqx_pipe *p;
	char err[512];
	int c, stats_fd;
	sigset_t sigs;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': maps = optarg; break;
		case 'j': json = optarg; break;
		case 'o': o.once = 1; break;
		case 'D': o.drop_when_full = 1; break;
		case 'f': o.fifo_bytes = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'c': live = optarg; break;
		default:
			fprintf(stderr, "evpipe: bad option\n");
			return 2;
		}
	}
	if (!maps) {
		fprintf(stderr, "evpipe: --maps DIR is required\n");
		return 2;
	}
	if (cfqx_events_maps_open(maps, &o.ring_fd, &stats_fd, err, sizeof(err))) {
		fprintf(stderr, "evpipe: %s\n", err);
		return 1;
	}
	o.json_fd = open(json, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o.json_fd < 0) {
		perror(json);
		return 1;
	}
	cfqx_pipe_block_signals(&sigs);
	p = cfqx_pipe_start(&o, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "evpipe: %s\n", err);
		return 1;
	}
	while (!cfqx_pipe_done(p)) {
		struct timespec tick = { .tv_nsec = 100000000 };
		int sig = sigtimedwait(&sigs, NULL, &tick);

		if (sig == SIGINT || sig == SIGTERM) {
			cfqx_pipe_stop(p);
			break;
		}
		if (live)
			write_live(live, cfqx_pipe_counters(p));
	}
	cfqx_pipe_join(p, &fin);
	printf("{");
	cfqx_pipe_counters_json(&fin, stdout);
	printf("}\n");
	close(o.json_fd);
	return 0;
}
