// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `cfqx events [--json]`: the cfqx event stream on stdout, one line per
 * event, for people and scripts.  Runs the same pipeline as `cfqx run`
 * (ring buffer -> kfifo -> notifier) with a text or JSON-lines sink and
 * no uevents.  A BPF ring buffer has a single consumer, so this refuses
 * to run next to a `cfqx run` daemon (use its --json output instead).
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cfqx.h"
#include "pipeline.h"

static void events_usage(FILE *f)
{
	fprintf(f,
"usage: cfqx events [--json] [--once] [--maps DIR]\n"
"Prints cfqx events as they happen, one line per event, until interrupted.\n"
"  --json       one JSON object per line (keys in the README)\n"
"  --once       print what is queued now and exit\n"
"  --maps DIR   pinned maps (" CFQX_PIN_MAPS ")\n"
"Drop counters go to stderr at exit.\n");
}

int cfqx_cmd_events(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "once", no_argument, NULL, 'o' },
		{ "maps", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct cfqx_pipe_opts o = {
		.fifo_bytes = 1u << 20, .json_fd = -1, .text_fd = STDOUT_FILENO,
	};
	const char *maps = CFQX_PIN_MAPS;
	struct cfqx_pipe_counters fin;
	struct cfqx_pipe *p;
	char err[512];
	int c, stats_fd, owner, sfd;
	sigset_t sigs;

	optind = 1;
	opterr = 0;	/* one error line, ours */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o.json_fd = STDOUT_FILENO;
			o.text_fd = -1;
			break;
		case 'o': o.once = 1; break;
		case 'm': maps = optarg; break;
		case 'h': events_usage(stdout); return 0;
		default:
			fprintf(stderr, "cfqx events: bad option '%s' (see cfqx events --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cfqx events: unexpected argument '%s'\n",
			argv[optind]);
		return 2;
	}
	owner = cfqx_daemon_pid(CFQX_STATE_DIR);
	if (owner && !strcmp(maps, CFQX_PIN_MAPS)) {
		fprintf(stderr, "cfqx events: the cfqx daemon (pid %d) consumes the events ring buffer; read its --json output instead\n",
			owner);
		return 1;
	}
	if (cfqx_events_maps_open(maps, &o.ring_fd, &stats_fd, err, sizeof(err))) {
		fprintf(stderr, "cfqx events: %s\n", err);
		return 1;
	}
	cfqx_pipe_block_signals(&sigs);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "cfqx events: signalfd: %s\n", strerror(errno));
		return 1;
	}
	p = cfqx_pipe_start(&o, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "cfqx events: %s\n", err);
		return 1;
	}
	/* Until interrupted, done (--once), or stdout fails (`| head`). */
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = cfqx_pipe_done_fd(p), .events = POLLIN },
		};

		poll(pfd, 2, 200);
		if (pfd[0].revents || pfd[1].revents ||
		    atomic_load(&cfqx_pipe_counters(p)->sink_errors))
			break;
	}
	cfqx_pipe_join(p, &fin);
	if (fin.dropped || fin.failed)
		fprintf(stderr, "cfqx events: read %llu, dropped %llu (%llu malformed, %llu unknown kind, %llu kfifo full), %llu lines lost to output errors\n",
			(unsigned long long)fin.read,
			(unsigned long long)fin.dropped,
			(unsigned long long)fin.malformed,
			(unsigned long long)fin.unknown_kind,
			(unsigned long long)fin.kfifo_full,
			(unsigned long long)fin.failed);
	close(sfd);
	close(o.ring_fd);
	if (stats_fd >= 0)
		close(stats_fd);
	return 0;
}
