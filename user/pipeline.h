/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cfqx event pipeline shared by `cfqx run` (daemon.c), `cfqx events`
 * (events.c) and the events benchmark: a reader thread drains the BPF
 * "events" ring buffer into a kfifo record fifo, a notifier thread takes
 * the records out and hands them to the sinks (JSON lines, human lines,
 * uevents).  Every record read ends in exactly one counter:
 *   read == valid + malformed + unknown_kind + kfifo_full
 * and with a JSON sink json_lines == valid; with uevents each valid event
 * ends in uevents, uevent_ratelimited, uevent_errors, uevent_nodev or
 * uevent_filtered (a device-less event counts once per --dev target).
 */
#ifndef CFQX_PIPELINE_H
#define CFQX_PIPELINE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "uevent.h"

#define CFQX_PIPE_MAX_DEVS	16

struct cfqx_pipe_opts {
	int ring_fd;			/* BPF_MAP_TYPE_RINGBUF fd */
	unsigned int fifo_bytes;	/* kfifo size, power of two */
	int drop_when_full;		/* else the reader waits (backpressure) */
	int json_fd;			/* JSON lines sink, -1: none */
	int text_fd;			/* human lines sink, -1: none */
	int uevents;			/* send uevents through tx */
	struct cfqx_uevent_tx *tx;
	unsigned int uevent_rate;	/* per dev/group/kind, per second */
	unsigned int uevent_burst;
	unsigned int uevent_global_rate;	/* all keys together */
	uint32_t devs[CFQX_PIPE_MAX_DEVS];	/* dev filter / dev-0 targets */
	int ndevs;
	int once;			/* drain what is in the ring, then stop */
};

/* Counters; each written by one thread, read by anyone (relaxed). */
#define CFQX_PIPE_COUNTERS(X)						\
	X(read)			/* records taken from the ring */	\
	X(malformed)		/* wrong length, size field, group_by */ \
	X(unknown_kind)							\
	X(kfifo_full)		/* dropped: kfifo full (drop mode) */	\
	X(kfifo_waits)		/* reader waited for room (wait mode) */ \
	X(valid)							\
	X(json_lines)							\
	X(text_lines)							\
	X(sink_errors)		/* write errors on a sink */		\
	X(uevents)		/* uevents the kernel accepted */	\
	X(uevent_ratelimited)	/* suppressed: rate limit */		\
	X(uevent_errors)	/* encode or send failed */		\
	X(uevent_nodev)		/* device-less event, no --dev given */	\
	X(uevent_filtered)	/* device not among --dev */		\
	X(suppressed_unreported)	/* suppressed counts evicted before \
				 * a next notification carried them */	\
	X(incidents)		/* incident UUIDs created */

struct cfqx_pipe_counters {
#define X(name) _Atomic uint64_t name;
	CFQX_PIPE_COUNTERS(X)
#undef X
};

struct cfqx_pipe;

/* Starts the two threads; returns NULL with a message in err. */
/*
 * Block SIGINT and SIGTERM (filled into @sigs, for sigtimedwait() by the
 * calling thread only; the pipeline threads inherit the mask) and ignore
 * SIGPIPE, so a closed stdout (`| head`) ends the stream as a sink error.
 * Call before cfqx_pipe_start().
 */
void cfqx_pipe_block_signals(sigset_t *sigs);

struct cfqx_pipe *cfqx_pipe_start(const struct cfqx_pipe_opts *opts,
				  char *err, size_t errlen);
/* Stops reading the ring; the notifier drains what was read. */
void cfqx_pipe_stop(struct cfqx_pipe *p);
/* 1 once both threads are done (after stop, --once, or a sink error). */
int cfqx_pipe_done(struct cfqx_pipe *p);
/*
 * Stops, joins the threads, copies the final counters to *final (may be
 * NULL) and frees; returns 0, or -errno of a reader failure.
 */
int cfqx_pipe_join(struct cfqx_pipe *p, struct cfqx_pipe_counters *final);
const struct cfqx_pipe_counters *cfqx_pipe_counters(struct cfqx_pipe *p);

/* Writes the counters as `"name": value, ...` (no braces) to f. */
void cfqx_pipe_counters_json(const struct cfqx_pipe_counters *c, FILE *f);

/* One JSON line for an event (no newline added); returns its length. */
size_t cfqx_event_json(char *buf, size_t size, const struct cfqx_event *ev,
		       uint64_t seq, const char *uuid);

#endif /* CFQX_PIPELINE_H */

/* ---- helpers shared by `cfqx run`, `cfqx events` and the tests ---- */

#define CFQX_STATE_DIR		"/run/cfqx"
#define CFQX_DAEMON_JSON_NAME	"daemon.json"	/* in the state dir */

/* Opens DIR/events (required) and DIR/stats (optional: -1). */
int cfqx_events_maps_open(const char *maps_dir, int *ring_fd, int *stats_fd,
			  char *err, size_t errlen);
/* Sum over CPUs of the stats per-CPU array; 0 or -errno. */
int cfqx_stats_read(int stats_fd, uint64_t out[CFQX_STAT_NR]);
/* pid of a live `cfqx run` that owns the state dir, or 0. */
int cfqx_daemon_pid(const char *state_dir);
