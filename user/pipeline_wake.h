/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one wake-up handshake of the event pipeline, used both ways
 * between its threads (reader -> notifier: "records queued"; notifier ->
 * reader: "room in the fifo"), so that a kick can never be missed and a
 * busy producer makes no system calls.
 *
 * The sleeper announces itself with an acq_rel exchange of `sleeping` to
 * 1, then re-checks its condition, then sleeps on the eventfd.  The
 * waker publishes its data (the kfifo's release store) and then does an
 * acq_rel exchange of `sleeping` to 0, kicking the eventfd only when it
 * took a 1.  The two exchanges are totally ordered on `sleeping`: either
 * the waker's comes second and sees the 1 (and kicks), or the sleeper's
 * comes second, synchronises with the waker's, and its re-check sees the
 * published data.  (A relaxed load in place of the waker's exchange is the
 * classic lost wake-up: it may be reordered before the data store.)
 * No fences: ThreadSanitizer checks this protocol as written.
 */
#ifndef CFQX_PIPELINE_WAKE_H
#define CFQX_PIPELINE_WAKE_H

#include <errno.h>
#include <poll.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct cfqx_wake {
	alignas(64) atomic_int sleeping;
	int efd;
};

static inline int cfqx_wake_init(struct cfqx_wake *w)
{
	atomic_init(&w->sleeping, 0);
	w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return w->efd < 0 ? -errno : 0;
}

static inline void cfqx_wake_free(struct cfqx_wake *w)
{
	if (w->efd >= 0)
		close(w->efd);
	w->efd = -1;
}

/* Unconditional kick (stop, done): the next or current sleep ends. */
static inline void cfqx_wake_force(struct cfqx_wake *w)
{
	uint64_t one = 1;
	ssize_t r = write(w->efd, &one, sizeof(one));

	(void)r;	/* EAGAIN: the counter is already non-zero */
}

/* Waker, after publishing: kicks only a sleeper that asked for it. */
static inline void cfqx_wake_kick(struct cfqx_wake *w)
{
	if (atomic_exchange_explicit(&w->sleeping, 0, memory_order_acq_rel))
		cfqx_wake_force(w);
}

/* Sleeper, step 1: announce, then re-check the condition. */
static inline void cfqx_wake_prepare(struct cfqx_wake *w)
{
	atomic_exchange_explicit(&w->sleeping, 1, memory_order_acq_rel);
}

/*
 * Sleeper, when the re-check found work after all, or after a sleep.  An
 * exchange, not a store: every write of `sleeping` is a read-modify-write,
 * so whichever of them reads the waker's exchange synchronises with it.
 */
static inline void cfqx_wake_cancel(struct cfqx_wake *w)
{
	atomic_exchange_explicit(&w->sleeping, 0, memory_order_acq_rel);
}

/*
 * Sleeper, step 2: sleep until kicked, or until extra_fd (-1: none) is
 * readable, or timeout_ms (-1: none) passed; consumes the kick.
 */
static inline void cfqx_wake_sleep(struct cfqx_wake *w, int extra_fd,
				   int timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = w->efd, .events = POLLIN },
		{ .fd = extra_fd, .events = POLLIN },
	};
	uint64_t v;
	ssize_t r;

	poll(pfd, extra_fd >= 0 ? 2 : 1, timeout_ms);
	cfqx_wake_cancel(w);
	r = read(w->efd, &v, sizeof(v));
	(void)r;
}

#endif /* CFQX_PIPELINE_WAKE_H */
