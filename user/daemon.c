// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `cfqx run`: the long-running cfqx daemon (foreground, see
 * systemd/cfqx.service).  Adopts the pinned cfqx instance (loading it
 * first when none is pinned), runs the event pipeline (pipeline.c: ring
 * buffer -> kfifo -> notifier -> uevents and/or JSON lines) and writes its
 * counters to /run/cfqx/daemon.json every second and at exit, where
 * `cfqx status` shows them.  With --metrics ADDR:PORT it also serves
 * /metrics in the Prometheus text format (metrics.c), loopback only unless
 * --metrics-public says otherwise.  SIGINT/SIGTERM: stop reading the ring,
 * drain and emit what was read (giving up on a stalled sink after a
 * second, its losses counted), write the final counters, exit 0 (1 if
 * JSON lines were lost).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfqx.h"
#include "pipeline.h"

static void run_usage(FILE *f)
{
	fprintf(f,
"usage: cfqx run [options]\n"
"Runs the cfqx daemon in the foreground: drains the BPF events ring buffer\n"
"through a kfifo and raises a kernel `change` uevent on the block device for\n"
"each event (rate limited per device, group and kind).  Counters go to\n"
"STATE_DIR/daemon.json each second (`cfqx status` shows them).\n"
"  --dev DEV             only notify for DEV (loop0, /dev/loop0 or 7:0);\n"
"                        repeatable; device-less events (policy) go to each\n"
"  --transport T         sysfs (default): write /sys/dev/block/M:m/uevent;\n"
"                        netlink: inject the kernel wire format into the\n"
"                        uevent socket of --netns (needs CAP_SYS_ADMIN there)\n"
"  --netns PATH          network namespace file for --transport netlink\n"
"  --no-uevents          do not send uevents\n"
"  --json PATH           also write one JSON line per event to PATH ('-':\n"
"                        stdout)\n"
"  --uevent-rate N       uevents per second per device/group/kind (1)\n"
"  --uevent-burst N      back-to-back uevents allowed per key (3)\n"
"  --uevent-global-rate N  uevents per second in all (50)\n"
"  --fifo-size BYTES     kfifo size, a power of two (1048576)\n"
"  --drop-when-full      drop (and count) when the kfifo is full instead of\n"
"                        making the reader wait\n"
"  --once                drain what is in the ring buffer now, then exit\n"
"  --maps DIR            pinned maps (" CFQX_PIN_MAPS ")\n"
"  --state-dir DIR       where daemon.json goes (" CFQX_STATE_DIR ")\n"
"  --no-load             adopt a pinned instance only, never load\n"
"  --metrics ADDR:PORT   serve Prometheus metrics at http://ADDR:PORT/metrics\n"
"                        (PORT or :PORT alone: 127.0.0.1; [::1]:PORT for IPv6)\n"
"  --metrics-public      allow a --metrics address other hosts can reach\n");
}

static int parse_uint(const char *opt, const char *s, unsigned long max,
		      unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1 || v > max) {
		fprintf(stderr, "cfqx run: %s wants a number from 1 to %lu, not '%s'\n",
			opt, max, s);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int write_state(const char *dir, const struct cfqx_pipe_counters *c,
		       int stats_fd, int running, const char *maps)
{
	char path[512], tmp[520];
	uint64_t st[CFQX_STAT_NR];
	int have_stats = cfqx_stats_read(stats_fd, st) == 0;
	struct timespec now;
	FILE *f;

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(path, sizeof(path), "%s/%s", dir, CFQX_DAEMON_JSON_NAME);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "{\"pid\": %d, \"running\": %s, \"updated\": %lld, \"maps\": \"%s\", ",
		(int)getpid(), running ? "true" : "false",
		(long long)now.tv_sec, maps);
	cfqx_pipe_counters_json(c, f);
	if (have_stats)
		fprintf(f, ", \"bpf_events\": %llu, \"rb_drops\": %llu, \"bpf_ratelimited\": %llu",
			(unsigned long long)st[CFQX_STAT_EVENTS],
			(unsigned long long)st[CFQX_STAT_RB_DROPS],
			(unsigned long long)st[CFQX_STAT_RATELIMITED]);
	fprintf(f, "}\n");
	if (fclose(f))
		return -errno;
	return rename(tmp, path) ? -errno : 0;
}

/* The pipeline's counters for /metrics, once the pipeline runs. */
static const struct cfqx_pipe_counters *_Atomic metrics_pipe;

static void pipe_metrics(FILE *f, void *arg)
{
	const struct cfqx_pipe_counters *c = atomic_load(&metrics_pipe);
	char name[80];

	(void)arg;
	if (!c)
		return;
#define X(n)								\
	snprintf(name, sizeof(name), "cfqx_daemon_%s_total", #n);	\
	cfqx_prom_counter(f, name, "cfqx run event pipeline: " #n ".",	\
			  atomic_load(&c->n));
	CFQX_PIPE_COUNTERS(X)
#undef X
}

int cfqx_cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "transport", required_argument, NULL, 't' },
		{ "netns", required_argument, NULL, 'n' },
		{ "no-uevents", no_argument, NULL, 'U' },
		{ "json", required_argument, NULL, 'j' },
		{ "uevent-rate", required_argument, NULL, 'r' },
		{ "uevent-burst", required_argument, NULL, 'b' },
		{ "uevent-global-rate", required_argument, NULL, 'g' },
		{ "fifo-size", required_argument, NULL, 'f' },
		{ "drop-when-full", no_argument, NULL, 'D' },
		{ "once", no_argument, NULL, 'o' },
		{ "maps", required_argument, NULL, 'm' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "no-load", no_argument, NULL, 'L' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "metrics-public", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct cfqx_pipe_opts o = {
		.fifo_bytes = 1u << 20, .json_fd = -1, .text_fd = -1,
		.uevents = 1, .uevent_rate = 1, .uevent_burst = 3,
		.uevent_global_rate = 50,
	};
	const char *maps = CFQX_PIN_MAPS, *state = CFQX_STATE_DIR;
	const char *json = NULL, *netns = NULL;
	enum cfqx_uevent_transport transport = CFQX_UEVENT_SYSFS;
	struct cfqx_uevent_tx tx;
	struct cfqx_pipe_counters fin;
	struct cfqx_pipe *p;
	struct cfqx_metrics *metrics = NULL;
	struct sockaddr_storage maddr;
	socklen_t maddr_len = 0;
	const char *metrics_arg = NULL;
	bool metrics_local = false, metrics_public = false;
	char err[512];
	int c, stats_fd = -1, no_load = 0, rc = 0, r, owner, sfd;
	unsigned int fifo = 0;
	sigset_t sigs;

	optind = 1;
	opterr = 0;	/* one error line, ours */
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (o.ndevs == CFQX_PIPE_MAX_DEVS) {
				fprintf(stderr, "cfqx run: at most %d --dev\n",
					CFQX_PIPE_MAX_DEVS);
				return 2;
			}
			if (cfqx_resolve_dev(optarg, &o.devs[o.ndevs], err,
					     sizeof(err))) {
				fprintf(stderr, "cfqx run: --dev %s: %s\n", optarg,
					err);
				return 2;
			}
			o.ndevs++;
			break;
		case 't':
			if (!strcmp(optarg, "sysfs")) {
				transport = CFQX_UEVENT_SYSFS;
			} else if (!strcmp(optarg, "netlink")) {
				transport = CFQX_UEVENT_NETLINK;
			} else {
				fprintf(stderr, "cfqx run: --transport is sysfs or netlink, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'n': netns = optarg; break;
		case 'U': o.uevents = 0; break;
		case 'j': json = optarg; break;
		case 'r':
			if (parse_uint("--uevent-rate", optarg, 1000000, &o.uevent_rate))
				return 2;
			break;
		case 'b':
			if (parse_uint("--uevent-burst", optarg, 1000000, &o.uevent_burst))
				return 2;
			break;
		case 'g':
			if (parse_uint("--uevent-global-rate", optarg, 1000000,
				       &o.uevent_global_rate))
				return 2;
			break;
		case 'f':
			if (parse_uint("--fifo-size", optarg, 1u << 30, &fifo))
				return 2;
			if (fifo < 4096 || (fifo & (fifo - 1))) {
				fprintf(stderr, "cfqx run: --fifo-size must be a power of two >= 4096, not %u\n",
					fifo);
				return 2;
			}
			o.fifo_bytes = fifo;
			break;
		case 'D': o.drop_when_full = 1; break;
		case 'o': o.once = 1; break;
		case 'm': maps = optarg; break;
		case 's': state = optarg; break;
		case 'L': no_load = 1; break;
		case 'M':
			metrics_arg = optarg;
			if (cfqx_parse_listen_addr(optarg, &maddr, &maddr_len,
						   &metrics_local, err,
						   sizeof(err))) {
				fprintf(stderr, "cfqx run: --metrics %s\n", err);
				return 2;
			}
			break;
		case 'P': metrics_public = true; break;
		case 'h': run_usage(stdout); return 0;
		default:
			fprintf(stderr, "cfqx run: bad option '%s' (see cfqx run --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cfqx run: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (metrics_public && !metrics_arg) {
		fprintf(stderr, "cfqx run: --metrics-public needs --metrics\n");
		return 2;
	}
	if (metrics_arg && !metrics_local && !metrics_public) {
		fprintf(stderr, "cfqx run: --metrics %s is reachable from other hosts; add --metrics-public to allow it\n",
			metrics_arg);
		return 2;
	}
	if (metrics_arg && strcmp(maps, CFQX_PIN_MAPS)) {
		fprintf(stderr, "cfqx run: --metrics reads the maps in %s, not --maps %s\n",
			CFQX_PIN_MAPS, maps);
		return 2;
	}
	if (netns && transport != CFQX_UEVENT_NETLINK) {
		fprintf(stderr, "cfqx run: --netns needs --transport netlink\n");
		return 2;
	}
	if (!no_load && !strcmp(maps, CFQX_PIN_MAPS)) {
		r = cfqx_ensure_loaded();
		if (r) {
			fprintf(stderr, "cfqx run: cannot load cfqx: %s\n",
				strerror(r < 0 ? -r : r));
			return 1;
		}
	}
	owner = cfqx_daemon_pid(state);
	if (owner && owner != getpid()) {
		fprintf(stderr, "cfqx run: another cfqx daemon (pid %d) owns %s\n",
			owner, state);
		return 1;
	}
	if (cfqx_events_maps_open(maps, &o.ring_fd, &stats_fd, err, sizeof(err))) {
		fprintf(stderr, "cfqx run: %s\n", err);
		return 1;
	}
	if (mkdir(state, 0755) && errno != EEXIST) {
		fprintf(stderr, "cfqx run: cannot create %s: %s\n", state,
			strerror(errno));
		return 1;
	}
	if (json) {
		o.json_fd = strcmp(json, "-") ? open(json, O_WRONLY | O_CREAT |
						      O_TRUNC | O_CLOEXEC, 0644)
					      : STDOUT_FILENO;
		if (o.json_fd < 0) {
			fprintf(stderr, "cfqx run: %s: %s\n", json, strerror(errno));
			return 1;
		}
	}
	if (o.uevents) {
		if (cfqx_uevent_tx_open(&tx, transport, netns, err, sizeof(err))) {
			fprintf(stderr, "cfqx run: %s\n", err);
			return 1;
		}
		o.tx = &tx;
	}
	cfqx_pipe_block_signals(&sigs);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "cfqx run: signalfd: %s\n", strerror(errno));
		return 1;
	}
	if (metrics_arg) {
		metrics = cfqx_metrics_start(&maddr, maddr_len, pipe_metrics,
					     NULL, err, sizeof(err));
		if (!metrics) {
			fprintf(stderr, "cfqx run: --metrics %s: %s\n",
				metrics_arg, err);
			return 1;
		}
	}
	p = cfqx_pipe_start(&o, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "cfqx run: %s\n", err);
		cfqx_metrics_stop(metrics);
		return 1;
	}
	atomic_store(&metrics_pipe, cfqx_pipe_counters(p));
	write_state(state, cfqx_pipe_counters(p), stats_fd, 1, maps);
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = sfd, .events = POLLIN },
			{ .fd = cfqx_pipe_done_fd(p), .events = POLLIN },
		};

		poll(pfd, 2, 1000);
		/* SIGINT/SIGTERM: stop reading; the notifier drains what was
		 * read (for at most a second if a sink is stalled). */
		if (pfd[0].revents || pfd[1].revents)
			break;
		write_state(state, cfqx_pipe_counters(p), stats_fd, 1, maps);
	}
	/* the counters /metrics reads go away with the pipeline */
	cfqx_metrics_stop(metrics);
	atomic_store(&metrics_pipe, NULL);
	cfqx_pipe_join(p, &fin);
	r = write_state(state, &fin, stats_fd, 0, maps);
	if (r) {
		fprintf(stderr, "cfqx run: cannot write %s/%s: %s\n", state,
			CFQX_DAEMON_JSON_NAME, strerror(-r));
		rc = 1;
	}
	if (fin.json_failed) {
		fprintf(stderr, "cfqx run: %llu JSON lines lost in %llu failed writes\n",
			(unsigned long long)fin.json_failed,
			(unsigned long long)fin.sink_errors);
		rc = 1;
	}
	close(sfd);
	if (o.uevents)
		cfqx_uevent_tx_close(&tx);
	if (o.json_fd > STDOUT_FILENO)
		close(o.json_fd);
	close(o.ring_fd);
	if (stats_fd >= 0)
		close(stats_fd);
	return rc;
}
