// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The threads of the cfqx event pipeline (see pipeline.h) and their life
 * cycle.  Reader: ring records in batches (pipeline_ring.h) -> one kfifo
 * publish, one consumer_pos store and one wake-up check per batch.
 * Notifier: a linear view of the kfifo, validated and formatted in place
 * (pipeline_format.c), one write per line sink per batch, uevents through
 * the rate limiter (pipeline_limit.c); every event's outcome is settled
 * per batch once the writes are known.  Shutdown: the reader stops at
 * once (what it has not read stays in the ring); the notifier drains for
 * at most drain_ms, then a stalled sink is abandoned (a signal interrupts
 * its write) and whatever it and the kfifo still held is counted.
 */
#include "pipeline.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <kfifo/kfifo.h>
#include <cfqx/cfq.h>

#include "pipeline_format.h"
#include "pipeline_limit.h"
#include "pipeline_ring.h"
#include "pipeline_wake.h"

#define BATCH		256	/* records per reader and per notifier batch */
#define RING_PREFETCH	8192	/* bytes ahead of the reader */
#define SPIN		256	/* pauses (~15 us) before the notifier sleeps */
#define ABORT_SIGNAL	SIGURG	/* ignored by default: harmless if stray */
#define SAY_MAX		5	/* error lines per kind, then only counted */

/* Per valid event of a batch: what the sinks did with it. */
#define OUT_DELIVERED	1
#define OUT_FAILED	2

struct sink {
	const char *name;
	int fd;
	char *buf;
	_Atomic uint64_t *lines, *lost;
	unsigned int said;
	int failing;		/* in a run of failed writes */
};

struct cfqx_pipe {
	STRUCT_KFIFO_PTR(struct cfqx_event) fifo;	/* 64-byte aligned */
	struct cfqx_wake data;		/* reader -> notifier: records queued */
	struct cfqx_wake room;		/* notifier -> reader: room; and stop */
	struct cfqx_pipe_opts o;
	struct cfqx_pipe_counters c;
	struct cfqx_ring ring;
	int ring_mapped;
	int done_efd;
	pthread_t reader, notifier;
	int reader_started, notifier_started;
	atomic_int stop;		/* stop reading the ring */
	atomic_int abort;		/* give up on stalled sinks */
	atomic_int reader_done, notifier_done;
	struct cfqx_event *stage;	/* reader: the batch taken */
	/* notifier only */
	uint64_t seq;
	struct cfqx_fmt fmt;
	struct cfqx_incidents incidents;
	struct cfqx_rates rates;
	struct sink json, text;
	unsigned int uevent_said;
};

/* For the counters both threads add to (malformed, dropped). */
static void count_shared(_Atomic uint64_t *c, uint64_t n)
{
	if (n)
		atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- */
/* Reader: ring buffer -> kfifo. */

/* Wait mode, kfifo full: sleep until the notifier made room, or stop. */
static void wait_room(struct cfqx_pipe *p)
{
	cfqx_count(&p->c.kfifo_waits, 1);
	cfqx_wake_prepare(&p->room);
	if (kfifo_avail(&p->fifo) ||
	    atomic_load_explicit(&p->stop, memory_order_acquire)) {
		cfqx_wake_cancel(&p->room);
		return;
	}
	cfqx_wake_sleep(&p->room, -1, -1);
}

/*
 * One batch: at most BATCH records and (wait mode) no more than the kfifo
 * has room for.  Returns how the walk ended.
 */
static enum cfqx_ring_rec read_batch(struct cfqx_pipe *p, uint64_t prod,
				     unsigned int room, unsigned int *nread)
{
	/* The walk on local copies: nothing the stores could alias. */
	struct cfqx_ring r = p->ring;
	struct cfqx_event *stage = p->stage;
	unsigned int n = 0, got = 0, bad = 0, full = 0;
	int drop = p->o.drop_when_full;
	enum cfqx_ring_rec st = CFQX_RING_NONE;
	uint64_t start = r.cons, ahead, pf_line = 0;

	while (got < BATCH && (drop || n < room)) {
		const void *s;
		uint32_t len;

		/* The hardware prefetcher stops at page boundaries: ask
		 * for each cache line two pages ahead (its TLB walk
		 * included), once. */
		ahead = (r.cons + RING_PREFETCH) >> 6;
		if (ahead != pf_line) {
			pf_line = ahead;
			__builtin_prefetch(r.data + ((ahead << 6) & r.mask));
		}
		st = cfqx_ring_next(&r, prod, &s, &len);
		if (st == CFQX_RING_DISCARDED)
			continue;
		if (st != CFQX_RING_SAMPLE)
			break;
		got++;
		if (len != sizeof(struct cfqx_event))
			bad++;
		else if (n < room)
			memcpy(&stage[n++], s, sizeof(struct cfqx_event));
		else
			full++;
	}
	p->ring.cons = r.cons;
	if (n)
		kfifo_in(&p->fifo, p->stage, n);	/* one publish */
	if (r.cons != start)
		cfqx_ring_commit(&p->ring);		/* one consumer_pos store */
	if (got) {
		cfqx_count(&p->c.read, got);
		cfqx_count(&p->c.kfifo_full, full);
		count_shared(&p->c.malformed, bad);
		count_shared(&p->c.dropped, bad + full);
		cfqx_count(&p->c.reader_batches, 1);
	}
	if (n)
		cfqx_wake_kick(&p->data);		/* one wake-up check */
	*nread = got;
	return st;
}

static void *reader_main(void *arg)
{
	struct cfqx_pipe *p = arg;
	/* --once: what was there when we started, not what comes later. */
	uint64_t limit = p->o.once ? cfqx_ring_produced(&p->ring) : UINT64_MAX;

	while (!atomic_load_explicit(&p->stop, memory_order_acquire)) {
		unsigned int room = kfifo_avail(&p->fifo), got;
		uint64_t prod = cfqx_ring_produced(&p->ring);
		enum cfqx_ring_rec st;

		if (!room && !p->o.drop_when_full) {
			wait_room(p);
			continue;
		}
		st = read_batch(p, prod < limit ? prod : limit, room, &got);
		if (got)
			continue;
		if (st == CFQX_RING_BUSY) {
			sched_yield();	/* a producer is mid-record */
			continue;
		}
		if (p->o.once && p->ring.cons >= limit)
			break;
		if (st == CFQX_RING_NONE && !p->o.once)
			cfqx_wake_sleep(&p->room, p->ring.fd, -1);
	}
	atomic_store_explicit(&p->reader_done, 1, memory_order_release);
	cfqx_wake_force(&p->data);
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Notifier: sinks. */

static void say_sink(struct cfqx_pipe *p, struct sink *s, int err,
		     uint64_t lost)
{
	if (p->o.quiet || s->failing || s->said >= SAY_MAX)
		return;
	s->said++;
	fprintf(stderr, "cfqx: %s sink: %s; %llu lines lost%s\n", s->name,
		err == ETIMEDOUT ? "stalled at shutdown" : strerror(err),
		(unsigned long long)lost,
		s->said == SAY_MAX ? " (further errors only counted)" :
		" (further losses counted)");
}

/* Writes buf..end; returns the bytes written, *err on failure. */
static size_t write_all(struct cfqx_pipe *p, int fd, const char *buf,
			size_t len, int *err)
{
	size_t off = 0;

	*err = 0;
	while (off < len) {
		ssize_t w;

		if (atomic_load_explicit(&p->abort, memory_order_relaxed)) {
			*err = ETIMEDOUT;
			break;
		}
		w = write(fd, buf + off, len - off);
		if (w > 0) {
			off += (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else {
			*err = w < 0 ? errno : EIO;
			break;
		}
	}
	return off;
}

/*
 * One write of the batch's lines; the first lines_written of the batch's
 * nv valid events were delivered, the rest (a partly written line
 * included) are lost.
 */
static void sink_flush(struct cfqx_pipe *p, struct sink *s, const char *end,
		       unsigned char *out, unsigned int nv)
{
	size_t len = (size_t)(end - s->buf), done;
	unsigned int k = nv;
	int err;

	if (!nv)
		return;
	done = write_all(p, s->fd, s->buf, len, &err);
	if (done < len) {
		k = 0;
		for (size_t i = 0; i < done; i++)
			k += s->buf[i] == '\n';
		cfqx_count(&p->c.sink_errors, 1);
		say_sink(p, s, err, nv - k);
		s->failing = 1;
	} else {
		s->failing = 0;
	}
	for (unsigned int i = 0; i < nv; i++)
		out[i] |= i < k ? OUT_DELIVERED : OUT_FAILED;
	cfqx_count(s->lines, k);
	cfqx_count(s->lost, nv - k);
}

/* ---------------------------------------------------------------- */
/* Notifier: uevents. */

static void say_uevent(struct cfqx_pipe *p, uint32_t dev, int err)
{
	if (p->o.quiet || p->uevent_said >= SAY_MAX)
		return;
	p->uevent_said++;
	fprintf(stderr, "cfqx: uevent for dev %u:%u failed: %s%s\n",
		CFQX_MAJOR(dev), CFQX_MINOR(dev), strerror(-err),
		p->uevent_said == SAY_MAX ? " (further errors only counted)" : "");
}

static unsigned char notify_dev(struct cfqx_pipe *p,
				const struct cfqx_event *ev, uint32_t dev,
				const char *uuid, uint64_t now)
{
	struct cfqx_event copy = *ev;
	struct cfqx_uevent_args a;
	struct cfqx_rate_slot *s;
	char buf[CFQX_UEVENT_MAX_BYTES + 128];
	uint64_t pending = 0;
	int len, r;

	s = cfqx_rate_admit(&p->rates, ev, dev, now, &pending, &p->c);
	if (!s) {
		cfqx_count(&p->c.uevent_ratelimited, 1);
		return 0;
	}
	copy.dev = dev;
	memcpy(a.uuid, uuid, sizeof(a.uuid));
	a.ev = &copy;
	a.suppressed = ev->suppressed + pending;
	a.seq = p->seq;
	len = cfqx_uevent_encode(&a, buf, sizeof(buf), NULL);
	r = len < 0 ? len : cfqx_uevent_send(p->o.tx, dev, buf, (size_t)len);
	if (r) {
		say_uevent(p, dev, r);
		cfqx_count(&p->c.uevent_errors, 1);
		return OUT_FAILED;
	}
	cfqx_rate_sent(s);
	cfqx_count(&p->c.uevents, 1);
	return OUT_DELIVERED;
}

static int dev_wanted(const struct cfqx_pipe *p, uint32_t dev)
{
	if (!p->o.ndevs)
		return 1;
	for (int i = 0; i < p->o.ndevs; i++)
		if (p->o.devs[i] == dev)
			return 1;
	return 0;
}

static unsigned char notify(struct cfqx_pipe *p, const struct cfqx_event *ev,
			    const char *uuid, uint64_t now)
{
	unsigned char out = 0;

	if (ev->dev) {
		if (dev_wanted(p, ev->dev))
			return notify_dev(p, ev, ev->dev, uuid, now);
		cfqx_count(&p->c.uevent_filtered, 1);
	} else if (p->o.ndevs) {
		for (int i = 0; i < p->o.ndevs; i++)
			out |= notify_dev(p, ev, p->o.devs[i], uuid, now);
	} else {
		cfqx_count(&p->c.uevent_nodev, 1);
	}
	return out;
}

/* ---------------------------------------------------------------- */
/* Notifier: one batch, read in place from the kfifo. */

static void handle_batch(struct cfqx_pipe *p, const struct cfqx_event *evs,
			 unsigned int n)
{
	unsigned char out[BATCH];
	unsigned int nv = 0, bad = 0, unknown = 0;
	uint64_t notified = 0, suppressed = 0, failed = 0;
	char *jd = p->json.buf, *td = p->text.buf;
	uint64_t now = p->o.uevents ? now_ns() : 0;

	for (unsigned int i = 0; i < n; i++) {
		const struct cfqx_event *ev = &evs[i];
		const char *uuid;

		if (ev->size != sizeof(*ev) || ev->group_by >= CFQX_BY_NR) {
			bad++;
			continue;
		}
		if (ev->kind == 0 || ev->kind >= CFQX_EV_NR) {
			unknown++;
			continue;
		}
		p->seq++;
		out[nv] = p->o.discard ? OUT_DELIVERED : 0;
		if (p->o.discard) {
			nv++;
			continue;
		}
		uuid = cfqx_incident_of(&p->incidents, ev, &p->c);
		if (jd)
			jd = cfqx_fmt_json(&p->fmt, jd, ev, p->seq, uuid);
		if (td)
			td = cfqx_fmt_text(&p->fmt, td, ev, uuid);
		if (p->o.uevents)
			out[nv] |= notify(p, ev, uuid, now);
		nv++;
	}
	count_shared(&p->c.malformed, bad);
	cfqx_count(&p->c.unknown_kind, unknown);
	count_shared(&p->c.dropped, bad + unknown);
	cfqx_count(&p->c.valid, nv);
	if (jd)
		sink_flush(p, &p->json, jd, out, nv);
	if (td)
		sink_flush(p, &p->text, td, out, nv);
	for (unsigned int i = 0; i < nv; i++) {
		if (out[i] & OUT_FAILED)
			failed++;
		else if (out[i] & OUT_DELIVERED)
			notified++;
		else
			suppressed++;
	}
	cfqx_count(&p->c.notified, notified);
	cfqx_count(&p->c.suppressed, suppressed);
	cfqx_count(&p->c.failed, failed);
	cfqx_count(&p->c.notifier_batches, 1);
}

/*
 * In a storm the next batch is microseconds away: look for it a little
 * before sleeping, so that neither side pays a system call per batch.
 */
static int spin_for_data(struct cfqx_pipe *p)
{
	for (unsigned int i = 0; i < SPIN; i++) {
		__builtin_ia32_pause();
		if (!kfifo_is_empty(&p->fifo) ||
		    atomic_load_explicit(&p->reader_done, memory_order_acquire))
			return 1;
	}
	return 0;
}

static void on_abort_signal(int sig)
{
	(void)sig;	/* only there to interrupt a blocked write() */
}

static void *notifier_main(void *arg)
{
	struct cfqx_pipe *p = arg;
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, ABORT_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	while (!atomic_load_explicit(&p->abort, memory_order_relaxed)) {
		struct cfqx_event *evs;
		unsigned int n = kfifo_out_linear_ptr(&p->fifo, &evs, BATCH);

		if (n) {
			handle_batch(p, evs, n);
			kfifo_skip_count(&p->fifo, n);
			/* Room for the reader once the fifo is half empty. */
			if (kfifo_len(&p->fifo) <= kfifo_size(&p->fifo) / 2)
				cfqx_wake_kick(&p->room);
			continue;
		}
		if (atomic_load_explicit(&p->reader_done, memory_order_acquire)) {
			if (kfifo_is_empty(&p->fifo))
				break;
			continue;
		}
		if (spin_for_data(p))
			continue;
		cfqx_wake_prepare(&p->data);
		if (!kfifo_is_empty(&p->fifo) ||
		    atomic_load_explicit(&p->reader_done, memory_order_acquire)) {
			cfqx_wake_cancel(&p->data);
			continue;
		}
		cfqx_wake_sleep(&p->data, -1, -1);
	}
	if (atomic_load_explicit(&p->abort, memory_order_relaxed)) {
		/* The reader is done (joined before abort): what is left in
		 * the kfifo never reaches a sink. */
		unsigned int left = kfifo_len(&p->fifo);

		kfifo_skip_count(&p->fifo, left);
		cfqx_count(&p->c.shutdown_dropped, left);
		count_shared(&p->c.dropped, left);
	}
	atomic_store_explicit(&p->notifier_done, 1, memory_order_release);
	{
		uint64_t one = 1;
		ssize_t r = write(p->done_efd, &one, sizeof(one));

		(void)r;
	}
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Life cycle. */

static void pipe_free(struct cfqx_pipe *p)
{
	if (p->ring_mapped)
		cfqx_ring_close(&p->ring);
	kfifo_free(&p->fifo);
	cfqx_wake_free(&p->data);
	cfqx_wake_free(&p->room);
	if (p->done_efd >= 0)
		close(p->done_efd);
	cfqx_incidents_free(&p->incidents);
	cfqx_rates_free(&p->rates);
	free(p->json.buf);
	free(p->text.buf);
	free(p->stage);
	free(p);
}

static int sink_init(struct sink *s, const char *name, int fd,
		     _Atomic uint64_t *lines, _Atomic uint64_t *lost)
{
	s->name = name;
	s->fd = fd;
	s->lines = lines;
	s->lost = lost;
	if (fd < 0)
		return 0;
	s->buf = malloc((size_t)BATCH * CFQX_LINE_MAX + CFQX_LINE_SLACK);
	return s->buf ? 0 : -1;
}

/* Largest power of two <= n (n >= 2). */
static unsigned int pow2_floor(unsigned int n)
{
	return 1u << (31 - __builtin_clz(n));
}

struct cfqx_pipe *cfqx_pipe_new(const struct cfqx_pipe_opts *opts,
				char *err, size_t errlen)
{
	/* The fifo's control block is cache-line aligned (alignas(64)). */
	struct cfqx_pipe *p = aligned_alloc(64, (sizeof(*p) + 63) & ~(size_t)63);
	unsigned int recs = opts->fifo_bytes / sizeof(struct cfqx_event);

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	memset(p, 0, sizeof(*p));
	p->o = *opts;
	if (!p->o.drain_ms)
		p->o.drain_ms = CFQX_PIPE_DRAIN_MS;
	p->done_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->data.efd = p->room.efd = -1;
	if (cfqx_wake_init(&p->data) || cfqx_wake_init(&p->room) ||
	    p->done_efd < 0 ||
	    sink_init(&p->json, "JSON", opts->json_fd, &p->c.json_lines,
		      &p->c.json_failed) ||
	    sink_init(&p->text, "text", opts->text_fd, &p->c.text_lines,
		      &p->c.text_failed) ||
	    !(p->stage = malloc(BATCH * sizeof(*p->stage))) ||
	    cfqx_incidents_init(&p->incidents) ||
	    cfqx_rates_init(&p->rates, opts->uevent_rate, opts->uevent_burst,
			    opts->uevent_global_rate)) {
		snprintf(err, errlen, "out of memory or file descriptors");
		pipe_free(p);
		return NULL;
	}
	cfqx_fmt_init(&p->fmt);
	if (recs < 2 || kfifo_alloc(&p->fifo, pow2_floor(recs), GFP_KERNEL)) {
		snprintf(err, errlen, "cannot allocate a %u byte kfifo",
			 opts->fifo_bytes);
		pipe_free(p);
		return NULL;
	}
	if (cfqx_ring_open(&p->ring, opts->ring_fd, err, errlen)) {
		pipe_free(p);
		return NULL;
	}
	p->ring_mapped = 1;
	return p;
}

int cfqx_pipe_run(struct cfqx_pipe *p, char *err, size_t errlen)
{
	struct sigaction sa;
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_abort_signal;	/* no SA_RESTART: EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(ABORT_SIGNAL, &sa, NULL);
	r = pthread_create(&p->notifier, NULL, notifier_main, p);
	if (!r) {
		p->notifier_started = 1;
		pthread_setname_np(p->notifier, "cfqx-notifier");
		r = pthread_create(&p->reader, NULL, reader_main, p);
	}
	if (r) {
		snprintf(err, errlen, "pthread_create: %s", strerror(r));
		atomic_store(&p->reader_done, 1);
		cfqx_wake_force(&p->data);
		return -r;
	}
	p->reader_started = 1;
	pthread_setname_np(p->reader, "cfqx-reader");
	return 0;
}

struct cfqx_pipe *cfqx_pipe_start(const struct cfqx_pipe_opts *opts,
				  char *err, size_t errlen)
{
	struct cfqx_pipe *p = cfqx_pipe_new(opts, err, errlen);

	if (p && cfqx_pipe_run(p, err, errlen)) {
		cfqx_pipe_join(p, NULL);
		return NULL;
	}
	return p;
}

void cfqx_pipe_stop(struct cfqx_pipe *p)
{
	atomic_store_explicit(&p->stop, 1, memory_order_release);
	cfqx_wake_force(&p->room);
}

int cfqx_pipe_done(struct cfqx_pipe *p)
{
	return atomic_load_explicit(&p->notifier_done, memory_order_acquire);
}

int cfqx_pipe_done_fd(struct cfqx_pipe *p)
{
	return p->done_efd;
}

/* Waits for the notifier until `until` (now_ns() clock). */
static void wait_done(struct cfqx_pipe *p, uint64_t until)
{
	struct pollfd pfd = { .fd = p->done_efd, .events = POLLIN };
	uint64_t now;

	while (!cfqx_pipe_done(p) && (now = now_ns()) < until)
		poll(&pfd, 1, (int)((until - now) / 1000000) + 1);
}

void cfqx_pipe_join(struct cfqx_pipe *p, struct cfqx_pipe_counters *final)
{
	cfqx_pipe_stop(p);
	if (p->reader_started)
		pthread_join(p->reader, NULL);
	if (p->notifier_started) {
		wait_done(p, now_ns() + (uint64_t)p->o.drain_ms * 1000000ull);
		if (!cfqx_pipe_done(p)) {
			/* A sink is stalled: interrupt its write until the
			 * notifier notices (a signal may land just before
			 * the write() it meant to interrupt). */
			atomic_store_explicit(&p->abort, 1, memory_order_relaxed);
			cfqx_wake_force(&p->data);
			while (!cfqx_pipe_done(p)) {
				pthread_kill(p->notifier, ABORT_SIGNAL);
				wait_done(p, now_ns() + 10000000);
			}
		}
		pthread_join(p->notifier, NULL);
	}
	if (final)
		memcpy(final, &p->c, sizeof(*final));
	pipe_free(p);
}

const struct cfqx_pipe_counters *cfqx_pipe_counters(struct cfqx_pipe *p)
{
	return &p->c;
}
