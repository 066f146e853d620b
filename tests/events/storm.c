// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cfqx-storm: drives bpf/cfqx_storm.bpf.c for the event pipeline tests and
 * the benchmark.  Reuses (or, with --create, creates and pins) the events
 * ring buffer and stats map in --maps DIR, then calls getppid() until the
 * generator has written --events records (--fill: tried --events times;
 * --until-signal: until SIGTERM or SIGINT, so a test can stop it when it
 * has seen what it waits for), and prints its counters as one JSON
 * object: tried == written + rb_drops, exactly.  --ready FILE creates FILE
 * once the first record is in the ring, so a test need not guess when a
 * producer it started in the background has begun.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <cfqx/cfqx.h>

#include "cfqx_storm.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int die(const char *what)
{
	fprintf(stderr, "cfqx-storm: %s\n", what);
	return 1;
}

static int open_or_create(const char *dir, const char *name,
			  enum bpf_map_type type, __u32 ksz, __u32 vsz,
			  __u32 entries, int create)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = bpf_obj_get(path);
	if (fd >= 0 || !create)
		return fd;
	fd = bpf_map_create(type, name, ksz, vsz, entries, NULL);
	if (fd < 0)
		return fd;
	if (bpf_obj_pin(fd, path)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "maps", required_argument, NULL, 'm' },
		{ "create", required_argument, NULL, 'c' },
		{ "events", required_argument, NULL, 'n' },
		{ "per-trigger", required_argument, NULL, 'p' },
		{ "short-every", required_argument, NULL, 's' },
		{ "badsize-every", required_argument, NULL, 'b' },
		{ "unknown-every", required_argument, NULL, 'u' },
		{ "kind", required_argument, NULL, 'k' },
		{ "dev", required_argument, NULL, 'd' },
		{ "groups", required_argument, NULL, 'g' },
		{ "pace", required_argument, NULL, 'P' },
		{ "fill", no_argument, NULL, 'F' },
		{ "until-signal", no_argument, NULL, 'S' },
		{ "ready", required_argument, NULL, 'R' },
		{ 0 }
	};
	const char *maps = NULL, *ready = NULL;
	unsigned long long want = 1000, create = 0;
	unsigned int per = 1000, ma, mi;
	struct cfqx_storm_bpf *skel;
	int c, ring_fd, stats_fd, fill = 0, until_signal = 0;
	struct timespec t0, t1;

	skel = cfqx_storm_bpf__open();
	if (!skel)
		return die("cannot open the storm BPF object");
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': maps = optarg; break;
		case 'c': create = strtoull(optarg, NULL, 0); break;
		case 'n': want = strtoull(optarg, NULL, 0); break;
		case 'p': per = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 's': skel->bss->short_every = (__u32)strtoul(optarg, NULL, 0); break;
		case 'b': skel->bss->badsize_every = (__u32)strtoul(optarg, NULL, 0); break;
		case 'u': skel->bss->unknown_every = (__u32)strtoul(optarg, NULL, 0); break;
		case 'k': skel->data->kind = (__u32)strtoul(optarg, NULL, 0); break;
		case 'g': skel->data->groups = (__u32)strtoul(optarg, NULL, 0); break;
		case 'P': skel->bss->pace_bytes = strtoull(optarg, NULL, 0); break;
		case 'F': fill = 1; break;
		case 'S': until_signal = 1; break;
		case 'R': ready = optarg; break;
		case 'd':
			if (sscanf(optarg, "%u:%u", &ma, &mi) != 2)
				return die("--dev wants MAJOR:MINOR");
			skel->bss->dev = CFQX_MKDEV(ma, mi);
			break;
		default:
			return die("bad option");
		}
	}
	if (!maps)
		return die("--maps DIR is required");
	if (create && mkdir(maps, 0700) && errno != EEXIST)
		return die("cannot create the maps directory");
	ring_fd = open_or_create(maps, CFQX_MAP_EVENTS, BPF_MAP_TYPE_RINGBUF,
				 0, 0, (__u32)create, create != 0);
	stats_fd = open_or_create(maps, CFQX_MAP_STATS,
				  BPF_MAP_TYPE_PERCPU_ARRAY, 4, 8,
				  CFQX_STAT_NR, create != 0);
	if (ring_fd < 0 || stats_fd < 0)
		return die("no pinned events/stats maps in --maps (use --create BYTES)");
	if (bpf_map__reuse_fd(skel->maps.events, ring_fd) ||
	    bpf_map__reuse_fd(skel->maps.stats, stats_fd))
		return die("bpf_map__reuse_fd failed");
	if (cfqx_storm_bpf__load(skel))
		return die("cannot load the storm BPF program");
	if (cfqx_storm_bpf__attach(skel))
		return die("cannot attach to syscalls:sys_enter_getppid");
	skel->bss->target_tgid = (__u32)getpid();
	if (until_signal) {
		struct sigaction sa = { .sa_handler = on_signal };

		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* --fill: one pass of exactly --events tries (the benchmark fills
	 * the ring, then times the drain); else write at least --events. */
	while (until_signal ? !stop :
	       fill ? skel->bss->tried < want : skel->bss->written < want) {
		unsigned long long left = until_signal ? per :
					  fill ? want - skel->bss->tried :
					  want - skel->bss->written;
		static unsigned long long last_written, spins;

		/* Nobody is reading: give up rather than spin forever
		 * (--until-signal: the signal ends it). */
		if (until_signal || skel->bss->written != last_written) {
			last_written = skel->bss->written;
			spins = 0;
		} else if (++spins > 2000000) {
			fprintf(stderr, "cfqx-storm: no progress (is a reader running?)\n");
			return 1;
		}

		skel->bss->per_trigger = left < per ? (__u32)left : per;
		syscall(SYS_getppid);
		if (ready && skel->bss->written) {
			FILE *f = fopen(ready, "w");

			if (!f || fclose(f))
				return die("cannot create the --ready file");
			ready = NULL;
		}
		if (skel->bss->pace_bytes && skel->bss->per_trigger)
			sched_yield();
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("{\"tried\": %llu, \"written\": %llu, \"rb_drops\": %llu, "
	       "\"written_short\": %llu, \"written_badsize\": %llu, "
	       "\"written_unknown\": %llu, \"seconds\": %.6f}\n",
	       (unsigned long long)skel->bss->tried,
	       (unsigned long long)skel->bss->written,
	       (unsigned long long)skel->bss->rb_drops,
	       (unsigned long long)skel->bss->written_short,
	       (unsigned long long)skel->bss->written_badsize,
	       (unsigned long long)skel->bss->written_unknown,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	cfqx_storm_bpf__destroy(skel);
	return 0;
}
