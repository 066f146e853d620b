// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx top`: a live per-group table refreshed every interval (default
 * 1 s): rates are differences between two map snapshots.  --once prints
 * one table (rates over one interval), --json prints JSON lines.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cfqx.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void sleep_secs(double secs)
{
	struct timespec ts = { (time_t)secs,
			       (long)((secs - (time_t)secs) * 1e9) };

	while (!stop && nanosleep(&ts, &ts))
		;
}

int cfqx_cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cfqx_snapshot prev, cur;
	struct cfqx_top_row *rows;
	double interval = 1.0, secs;
	int once = 0, json = 0, c, n, tty = isatty(1);
	char *end;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+oi:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			once = 1;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || !(interval >= 0.1 && interval <= 3600)) {
				cfqx_err("top: bad --interval '%s' (0.1 .. 3600 s)",
					 optarg);
				return CFQX_EXIT_USAGE;
			}
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			printf("usage: cfqx top [--once] [--interval S] [--json]\n"
			       "  Live per-group table: device, group, read/write MB/s, IOPS,\n"
			       "  share of the device vs fair share, p50/p99 service time,\n"
			       "  deadline misses, state; sorted by bandwidth.\n");
			return 0;
		default:
			cfqx_err("top: bad option '%s' (cfqx top --help)",
				 argv[optind - 1]);
			return CFQX_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		cfqx_err("top: unexpected argument '%s'", argv[optind]);
		return CFQX_EXIT_USAGE;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (cfqx_snapshot_read(&prev))
		return CFQX_EXIT_FAIL;
	while (!stop) {
		sleep_secs(interval);
		if (cfqx_snapshot_read(&cur)) {
			cfqx_snapshot_free(&prev);
			return CFQX_EXIT_FAIL;
		}
		secs = (cur.ts_ns - prev.ts_ns) / 1e9;
		n = cfqx_top_rows(&prev, &cur, secs, &rows);
		if (n < 0) {
			cfqx_err("top: out of memory");
			cfqx_snapshot_free(&prev);
			cfqx_snapshot_free(&cur);
			return CFQX_EXIT_FAIL;
		}
		if (json) {
			cfqx_top_json(stdout, &cur, rows, n, secs);
		} else {
			if (tty && !once)
				fputs("\033[H\033[2J", stdout);
			cfqx_top_print(stdout, &cur, rows, n, secs);
		}
		fflush(stdout);
		free(rows);
		cfqx_snapshot_free(&prev);
		prev = cur;
		if (once)
			break;
	}
	cfqx_snapshot_free(&prev);
	return 0;
}
