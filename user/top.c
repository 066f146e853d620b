// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx top`: a live per-group table refreshed every interval (default
 * 1 s): rates are differences between two map snapshots (topview.c
 * computes and draws them).  --once prints one table (rates over one
 * interval), --json prints JSON lines; both never read the keyboard, so
 * they stay scriptable.  Live on a terminal, keys act at once: q quits,
 * p switches the policy to the next key (tgid -> pgid -> uid -> gid ->
 * cgroup), s cycles the sort column.
 */
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "cfqx.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits up to @secs; returns a key pressed on @kbd (-1: none, or no
 * keyboard), early on a signal. */
static int wait_key(double secs, int kbd)
{
	struct timespec ts;
	struct pollfd p = { .fd = kbd, .events = POLLIN };
	unsigned char c;

	if (kbd < 0) {
		ts.tv_sec = (time_t)secs;
		ts.tv_nsec = (long)((secs - (time_t)secs) * 1e9);
		while (!stop && nanosleep(&ts, &ts))
			;
		return -1;
	}
	if (poll(&p, 1, (int)(secs * 1000)) == 1 && read(kbd, &c, 1) == 1)
		return c;
	return -1;
}

/* p: the next grouping key, live; says what happened in @msg. */
static void next_policy(char *msg, size_t len)
{
	struct cfqx_policy p;

	if (cfqx_read_policy(&p)) {
		snprintf(msg, len, "p: cannot read the policy");
		return;
	}
	p.group_by = (p.group_by + 1) % CFQX_BY_NR;
	if (cfqx_write_policy(&p))
		snprintf(msg, len, "p: cannot switch the policy (root?)");
	else
		snprintf(msg, len, "p: policy switched to %s",
			 cfqx_group_by_names[p.group_by]);
}

static void usage(void)
{
	printf("usage: cfqx top [--once] [--interval S] [--json] [--all] [--sort COL]\n"
	       "  Live per-group table: device, group, read/write MB/s, IOPS,\n"
	       "  share of the device vs fair share, p50/p99 service time\n"
	       "  (interpolated within log2 buckets), deadline misses, state.\n"
	       "  --all       also groups of earlier policies (default: live policy only)\n"
	       "  --sort COL  bandwidth (default), iops, share, p99 or group\n"
	       "  Keys, live on a terminal: q quit, p next policy key, s next sort column.\n");
}

int cfqx_cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cfqx_top_opts o = { .sort = CFQX_TOP_SORT_BW };
	struct cfqx_snapshot prev, cur;
	struct cfqx_top_row *rows = NULL;
	struct termios saved, raw;
	double interval = 1.0, secs = 0, due;
	int once = 0, json = 0, c, n = 0, kbd = -1, tty = isatty(1), rc = 0;
	char *end, msg[128] = "";

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:oi:jas:h", opts, NULL)) != -1) {
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
		case 'a':
			o.all = true;
			break;
		case 's':
			c = cfqx_top_sort_parse(optarg);
			if (c < 0) {
				cfqx_err("top: bad --sort '%s' (bandwidth iops share p99 group)",
					 optarg);
				return CFQX_EXIT_USAGE;
			}
			o.sort = c;
			break;
		case 'h':
			usage();
			return 0;
		case ':':
			cfqx_err("top: %s needs a value (cfqx top --help)",
				 argv[optind - 1]);
			return CFQX_EXIT_USAGE;
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
	/* keys only live, on a terminal at both ends */
	if (!once && !json && tty && isatty(0) && !tcgetattr(0, &saved)) {
		raw = saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		if (!tcsetattr(0, TCSANOW, &raw))
			kbd = 0;
	}
	due = now_secs() + interval;
	while (!stop) {
		double left = due - now_secs();
		int key = left > 0 ? wait_key(left, kbd) : -1;

		if (key == 'q')
			break;
		if (key == 'p')
			next_policy(msg, sizeof(msg));
		if (key == 's' && rows) {
			o.sort = (o.sort + 1) % CFQX_TOP_SORT_NR;
			cfqx_top_sort(rows, n, o.sort);
			fputs("\033[H\033[2J", stdout);
			cfqx_top_print(stdout, &prev, rows, n, secs, &o);
			fflush(stdout);
		}
		if (stop || now_secs() < due)
			continue;
		due += interval;
		if (cfqx_snapshot_read(&cur)) {
			rc = CFQX_EXIT_FAIL;
			break;
		}
		secs = (cur.ts_ns - prev.ts_ns) / 1e9;
		free(rows);
		n = cfqx_top_rows(&prev, &cur, secs, &o, &rows);
		if (n < 0) {
			cfqx_err("top: out of memory");
			rows = NULL;
			cfqx_snapshot_free(&cur);
			rc = CFQX_EXIT_FAIL;
			break;
		}
		if (json) {
			cfqx_top_json(stdout, &cur, rows, n, secs);
		} else {
			if (tty && !once)
				fputs("\033[H\033[2J", stdout);
			o.status = msg;
			cfqx_top_print(stdout, &cur, rows, n, secs, &o);
			msg[0] = 0;
		}
		fflush(stdout);
		/* rows point into cur, which becomes prev */
		cfqx_snapshot_free(&prev);
		prev = cur;
		if (once)
			break;
	}
	if (kbd >= 0)
		tcsetattr(0, TCSANOW, &saved);
	free(rows);
	cfqx_snapshot_free(&prev);
	return rc;
}
