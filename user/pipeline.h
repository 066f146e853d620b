/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The cfqx event pipeline shared by `cfqx run` (daemon.c), `cfqx events`
 * (events.c), the tests and the events benchmark: a reader thread takes
 * the BPF "events" ring buffer's records in batches into a kfifo of
 * records; a notifier thread reads them in place (linear views of the
 * kfifo), formats and writes each batch to the line sinks (JSON lines,
 * human lines) with one write per sink, and raises uevents.
 *
 * Every record read ends in exactly one outcome (see docs/events.md):
 *   read  == valid + dropped
 *   dropped = malformed + unknown_kind + kfifo_full + shutdown_dropped
 *   valid == notified + suppressed + failed
 * so read == notified + suppressed + failed + dropped.  An event is
 * `failed` if any sink lost it (a write error or a stalled sink at
 * shutdown, a uevent that could not be sent), else `notified` if any sink
 * delivered it, else `suppressed` (rate limited, filtered, no device).
 * Per sink: json_lines + json_failed == valid with a JSON sink (the same
 * for text), and each valid event's uevent targets end in uevents,
 * uevent_ratelimited, uevent_errors, uevent_nodev or uevent_filtered (a
 * device-less event has one target per --dev).
 */
#ifndef CFQX_PIPELINE_H
#define CFQX_PIPELINE_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "uevent.h"

#define CFQX_PIPE_MAX_DEVS	16
#define CFQX_PIPE_DRAIN_MS	1000	/* default shutdown drain bound */

struct cfqx_pipe_opts {
	int ring_fd;			/* BPF_MAP_TYPE_RINGBUF fd */
	unsigned int fifo_bytes;	/* kfifo size: rounded down to a power
					 * of two of records */
	int drop_when_full;		/* else the reader waits (backpressure) */
	int json_fd;			/* JSON lines sink, -1: none */
	int text_fd;			/* human lines sink, -1: none */
	int discard;			/* a sink that takes and drops (bench) */
	int uevents;			/* send uevents through tx */
	struct cfqx_uevent_tx *tx;
	unsigned int uevent_rate;	/* per dev/group/kind, per second */
	unsigned int uevent_burst;
	unsigned int uevent_global_rate;	/* all keys together */
	uint32_t devs[CFQX_PIPE_MAX_DEVS];	/* dev filter / dev-0 targets */
	int ndevs;
	int once;			/* drain what is in the ring, then stop */
	unsigned int drain_ms;		/* after stop, at most this long for the
					 * sinks (0: CFQX_PIPE_DRAIN_MS) */
	int quiet;			/* no error lines on stderr */
};

/* Counters; each written by one thread, read by anyone (relaxed). */
#define CFQX_PIPE_COUNTERS(X)						\
	X(read)			/* records taken from the ring */	\
	X(dropped)		/* the four below together */		\
	X(malformed)		/* wrong length, size field, group_by */ \
	X(unknown_kind)							\
	X(kfifo_full)		/* dropped: kfifo full (drop mode) */	\
	X(shutdown_dropped)	/* in the kfifo when a stalled sink made \
				 * shutdown give up */			\
	X(valid)							\
	X(notified)		/* delivered by at least one sink */	\
	X(suppressed)		/* held back by every sink */		\
	X(failed)		/* lost by a sink */			\
	X(json_lines)		/* written in full */			\
	X(json_failed)		/* lost to write errors or shutdown */	\
	X(text_lines)							\
	X(text_failed)							\
	X(sink_errors)		/* failed sink writes (each loses lines) */ \
	X(uevents)		/* uevents the kernel accepted */	\
	X(uevent_ratelimited)	/* suppressed: rate limit */		\
	X(uevent_errors)	/* encode or send failed */		\
	X(uevent_nodev)		/* device-less event, no --dev given */	\
	X(uevent_filtered)	/* device not among --dev */		\
	X(suppressed_unreported)	/* suppressed counts evicted before \
				 * a next notification carried them */	\
	X(incidents)		/* incident UUIDs created */		\
	X(incidents_evicted)	/* open incidents pushed out of the table */ \
	X(kfifo_waits)		/* reader waited for room (wait mode) */ \
	X(reader_batches)						\
	X(notifier_batches)

struct cfqx_pipe_counters {
#define X(name) _Atomic uint64_t name;
	CFQX_PIPE_COUNTERS(X)
#undef X
};

/* Adds to a counter that only the calling thread writes. */
static inline void cfqx_count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

struct cfqx_pipe;

/*
 * Block SIGINT and SIGTERM (filled into @sigs, for the calling thread's
 * signalfd or sigtimedwait; the pipeline threads inherit the mask) and
 * ignore SIGPIPE and SIGXFSZ, so a closed stdout (`| head`) or a file
 * size limit is a counted sink error.  Call before cfqx_pipe_start().
 */
void cfqx_pipe_block_signals(sigset_t *sigs);

/* Maps the ring and allocates; no threads yet.  NULL: message in err. */
struct cfqx_pipe *cfqx_pipe_new(const struct cfqx_pipe_opts *opts,
				char *err, size_t errlen);
/* Starts the two threads; 0 or -errno (then only join/free it). */
int cfqx_pipe_run(struct cfqx_pipe *p, char *err, size_t errlen);
/* cfqx_pipe_new + cfqx_pipe_run. */
struct cfqx_pipe *cfqx_pipe_start(const struct cfqx_pipe_opts *opts,
				  char *err, size_t errlen);
/* Stops reading the ring; the notifier drains what was read. */
void cfqx_pipe_stop(struct cfqx_pipe *p);
/* 1 once both threads are done (after stop, or --once). */
int cfqx_pipe_done(struct cfqx_pipe *p);
/* Readable once the pipeline is done (for poll()). */
int cfqx_pipe_done_fd(struct cfqx_pipe *p);
/*
 * Stops, waits for the drain at most drain_ms (then gives up on stalled
 * sinks, counting what they lose), joins the threads, copies the final
 * counters to *final (may be NULL) and frees.
 */
void cfqx_pipe_join(struct cfqx_pipe *p, struct cfqx_pipe_counters *final);
const struct cfqx_pipe_counters *cfqx_pipe_counters(struct cfqx_pipe *p);

/* Writes the counters as `"name": value, ...` (no braces) to f. */
void cfqx_pipe_counters_json(const struct cfqx_pipe_counters *c, FILE *f);

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

#endif /* CFQX_PIPELINE_H */
