// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The cfqx event pipeline (see pipeline.h): BPF ring buffer -> reader
 * thread -> kfifo record fifo (one reader, one writer, lock free) ->
 * notifier thread -> sinks.  Per device/group/kind rate limiting and the
 * incident UUIDs live in the notifier, which alone owns that table.
 */
#include "pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <kfifo/kfifo.h>
#include <cfqx/cfq.h>

#define OUTBUF_SIZE	(256 * 1024)
#define OUTBUF_FLUSH	(192 * 1024)
#define TABLE_SLOTS	4096	/* power of two */
#define TABLE_PROBE	8

/* One entry per (dev, group_by, id, kind); kind 0 holds the incident. */
struct slot {
	uint32_t dev;
	uint16_t group_by;
	uint16_t kind;
	uint64_t id;
	int used;
	uint64_t last_used;	/* LRU clock: notifier's event sequence */
	uint64_t tat_ns;	/* GCRA: theoretical arrival time */
	uint64_t pending;	/* suppressed, not yet reported */
	char uuid[CFQX_UUID_LEN + 1];
};

struct outbuf {
	int fd;
	size_t len;
	char *buf;
};

struct cfqx_pipe {
	struct cfqx_pipe_opts o;
	struct cfqx_pipe_counters c;
	struct kfifo_rec_ptr_2 fifo;
	struct ring_buffer *rb;
	pthread_t reader, notifier;
	int reader_started, notifier_started;
	int data_efd;			/* reader -> notifier: records queued */
	int room_efd;			/* notifier -> reader: room in the fifo */
	atomic_int stop;		/* stop reading the ring */
	atomic_int reader_done;
	atomic_int notifier_done;
	_Alignas(64) atomic_int notifier_sleeping;
	_Alignas(64) atomic_int reader_sleeping;
	atomic_int reader_err;
	uint64_t seq;
	uint64_t global_tat;
	struct slot *table;
	struct outbuf json, text;
	char err_said;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void inc(_Atomic uint64_t *c)
{
	/* Single writer per counter: a relaxed load+store is enough. */
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1,
			      memory_order_relaxed);
}

/* For the one counter both threads write (malformed). */
static void inc_shared(_Atomic uint64_t *c)
{
	atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

static void kick(int efd)
{
	uint64_t one = 1;
	ssize_t r = write(efd, &one, sizeof(one));

	(void)r;
}

static void wait_efd(int efd, int timeout_ms)
{
	struct pollfd pfd = { .fd = efd, .events = POLLIN };
	uint64_t v;

	if (poll(&pfd, 1, timeout_ms) > 0) {
		ssize_t r = read(efd, &v, sizeof(v));

		(void)r;
	}
}

/* ---------------------------------------------------------------- */
/* Reader: ring buffer -> kfifo. */

static int on_record(void *ctx, void *data, size_t size)
{
	struct cfqx_pipe *p = ctx;
	/* A storm can keep ring_buffer__poll() busy forever: a negative
	 * return makes libbpf stop after this (consumed) record. */
	int ret = atomic_load_explicit(&p->stop, memory_order_relaxed) ?
		  -ECANCELED : 0;

	inc(&p->c.read);
	if (size != sizeof(struct cfqx_event)) {
		inc_shared(&p->c.malformed);
		return ret;
	}
	while (!kfifo_in(&p->fifo, (unsigned char *)data, size)) {
		if (p->o.drop_when_full) {
			inc(&p->c.kfifo_full);
			return ret;
		}
		/* Backpressure: wait for the notifier; the ring keeps filling
		 * and BPF counts what it cannot reserve. */
		inc(&p->c.kfifo_waits);
		atomic_exchange(&p->reader_sleeping, 1);	/* full barrier */
		if (kfifo_avail(&p->fifo) < size) {
			if (atomic_fetch_or(&p->notifier_sleeping, 0))
				kick(p->data_efd);
			wait_efd(p->room_efd, 20);
		}
		atomic_store(&p->reader_sleeping, 0);
	}
	/* An RMW orders the fifo update before the flag check (Dekker with
	 * the notifier's exchange); a missed kick costs at most 100 ms. */
	if (atomic_fetch_or(&p->notifier_sleeping, 0) &&
	    atomic_exchange(&p->notifier_sleeping, 0))
		kick(p->data_efd);	/* once per sleep, not per record */
	return ret;
}

static void *reader_main(void *arg)
{
	struct cfqx_pipe *p = arg;
	int r = 0;

	if (p->o.once) {
		r = ring_buffer__consume(p->rb);
	} else {
		while (!atomic_load(&p->stop)) {
			r = ring_buffer__poll(p->rb, 100);
			if (r == -EINTR || r == -ECANCELED)
				r = 0;
			if (r < 0)
				break;
		}
	}
	if (r == -ECANCELED)
		r = 0;
	if (r < 0)
		atomic_store(&p->reader_err, r);
	atomic_store(&p->reader_done, 1);
	kick(p->data_efd);
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Sinks. */

static int out_flush(struct cfqx_pipe *p, struct outbuf *ob)
{
	size_t off = 0;

	while (off < ob->len) {
		ssize_t n = write(ob->fd, ob->buf + off, ob->len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			inc(&p->c.sink_errors);
			ob->len = 0;
			return -1;
		}
		off += (size_t)n;
	}
	ob->len = 0;
	return 0;
}

static char *put_u64(char *d, uint64_t v)
{
	static const char pairs[201] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"62636465666768697071727374757677787980818283848586878889909192"
		"93949596979899";
	char tmp[20], *t = tmp + sizeof(tmp);
	size_t n;

	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		t -= 2;
		memcpy(t, pairs + 2 * r, 2);
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, pairs + 2 * v, 2);
	} else {
		*--t = (char)('0' + v);
	}
	/* a short loop beats a memcpy call for at most 20 bytes */
	for (n = (size_t)(tmp + sizeof(tmp) - t); n; n--)
		*d++ = *t++;
	return d;
}

static char *put_str(char *d, const char *s)
{
	while (*s)
		*d++ = *s++;
	return d;
}

/* A string literal: its length is known at compile time. */
#define put_lit(d, lit) (memcpy((d), (lit), sizeof(lit) - 1), (d) + sizeof(lit) - 1)

/* JSON string body of a comm: printable ASCII as is, the rest \u00XX. */
static char *put_comm(char *d, const char *comm, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n && comm[i]; i++) {
		unsigned char ch = (unsigned char)comm[i];

		if (ch == '"' || ch == '\\') {
			*d++ = '\\';
			*d++ = (char)ch;
		} else if (ch < 0x20 || ch >= 0x7f) {
			d = put_lit(d, "\\u00");
			*d++ = hex[ch >> 4];
			*d++ = hex[ch & 15];
		} else {
			*d++ = (char)ch;
		}
	}
	return d;
}

/* Longest line: fixed text ~200 + 8 numbers x 20 + comm 16 x 6 + uuid. */
#define JSON_LINE_MAX	640

size_t cfqx_event_json(char *buf, size_t size, const struct cfqx_event *ev,
		       uint64_t seq, const char *uuid)
{
	char *d = buf;
	const char *name = ev->kind < CFQX_EV_NR && cfqx_event_names[ev->kind] ?
			   cfqx_event_names[ev->kind] : "unknown";
	const char *gb = ev->group_by < CFQX_BY_NR ?
			 cfqx_group_by_names[ev->group_by] : "unknown";

	if (size < JSON_LINE_MAX)
		return 0;
	d = put_lit(d, "{\"seq\":");
	d = put_u64(d, seq);
	d = put_lit(d, ",\"event\":\"");
	d = put_str(d, name);
	d = put_lit(d, "\",\"kind\":");
	d = put_u64(d, ev->kind);
	d = put_lit(d, ",\"dev\":\"");
	d = put_u64(d, CFQX_MAJOR(ev->dev));
	*d++ = ':';
	d = put_u64(d, CFQX_MINOR(ev->dev));
	d = put_lit(d, "\",\"ts_ns\":");
	d = put_u64(d, ev->ts_ns);
	d = put_lit(d, ",\"group_by\":\"");
	d = put_str(d, gb);
	d = put_lit(d, "\",\"id\":");
	d = put_u64(d, ev->id);
	d = put_lit(d, ",\"flags\":");
	d = put_u64(d, ev->flags);
	d = put_lit(d, ",\"value\":");
	d = put_u64(d, ev->value);
	d = put_lit(d, ",\"value2\":");
	d = put_u64(d, ev->value2);
	d = put_lit(d, ",\"suppressed\":");
	d = put_u64(d, ev->suppressed);
	d = put_lit(d, ",\"comm\":\"");
	d = put_comm(d, ev->comm, sizeof(ev->comm));
	d = put_lit(d, "\",\"incident\":\"");
	d = put_str(d, uuid);
	d = put_lit(d, "\"}");
	return (size_t)(d - buf);
}

static void sink_json(struct cfqx_pipe *p, const struct cfqx_event *ev,
		      const char *uuid)
{
	struct outbuf *ob = &p->json;
	size_t n;

	if (ob->len > OUTBUF_FLUSH)
		out_flush(p, ob);
	n = cfqx_event_json(ob->buf + ob->len, OUTBUF_SIZE - ob->len, ev,
			    p->seq, uuid);
	ob->buf[ob->len + n] = '\n';
	ob->len += n + 1;
	inc(&p->c.json_lines);
}

static void sink_text(struct cfqx_pipe *p, const struct cfqx_event *ev,
		      const char *uuid)
{
	struct outbuf *ob = &p->text;
	char comm[16 * 6 + 1], *e;
	const char *name = cfqx_event_names[ev->kind];
	int n;

	if (ob->len > OUTBUF_FLUSH)
		out_flush(p, ob);
	e = put_comm(comm, ev->comm, sizeof(ev->comm));
	*e = '\0';
	n = snprintf(ob->buf + ob->len, OUTBUF_SIZE - ob->len,
		     "%llu.%06llu %-11s dev %u:%u %s %llu%s (%s) value %llu value2 %llu suppressed %llu incident %s\n",
		     (unsigned long long)(ev->ts_ns / 1000000000ull),
		     (unsigned long long)(ev->ts_ns % 1000000000ull / 1000),
		     name, CFQX_MAJOR(ev->dev), CFQX_MINOR(ev->dev),
		     cfqx_group_by_names[ev->group_by],
		     (unsigned long long)ev->id,
		     ev->flags & CFQX_GF_KTHREAD ? " kthread" : "", comm,
		     (unsigned long long)ev->value,
		     (unsigned long long)ev->value2,
		     (unsigned long long)ev->suppressed, uuid);
	if (n > 0)
		ob->len += (size_t)n;
	inc(&p->c.text_lines);
}

/* ---------------------------------------------------------------- */
/* Incident and rate-limit table (notifier thread only). */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

static struct slot *lookup(struct cfqx_pipe *p, uint32_t dev,
			   uint16_t group_by, uint64_t id, uint16_t kind)
{
	uint64_t h = mix64(id ^ ((uint64_t)dev << 32) ^
			   ((uint64_t)group_by << 16) ^ kind);
	struct slot *victim = NULL;

	for (unsigned int i = 0; i < TABLE_PROBE; i++) {
		struct slot *s = &p->table[(h + i) & (TABLE_SLOTS - 1)];

		if (s->used && s->dev == dev && s->group_by == group_by &&
		    s->id == id && s->kind == kind) {
			s->last_used = p->seq;
			return s;
		}
		if (!s->used) {
			if (!victim || victim->used)
				victim = s;
		} else if (!victim || (victim->used && s->last_used < victim->last_used)) {
			victim = s;
		}
	}
	if (victim->used && victim->pending) {
		/* Counted in uevent_ratelimited already; say it never made it
		 * into a notification. */
		for (uint64_t k = 0; k < victim->pending; k++)
			inc(&p->c.suppressed_unreported);
	}
	memset(victim, 0, sizeof(*victim));
	victim->used = 1;
	victim->dev = dev;
	victim->group_by = group_by;
	victim->id = id;
	victim->kind = kind;
	victim->last_used = p->seq;
	return victim;
}

/* GCRA: at most `burst` back to back, then `rate` per second. */
static int allow(uint64_t *tat, uint64_t now, unsigned int rate,
		 unsigned int burst)
{
	uint64_t interval = 1000000000ull / (rate ? rate : 1);
	uint64_t slack = interval * (burst ? burst - 1 : 0);

	if (*tat > now + slack)
		return 0;
	*tat = (*tat > now ? *tat : now) + interval;
	return 1;
}

static const char *incident_uuid(struct cfqx_pipe *p,
				 const struct cfqx_event *ev,
				 char fresh[CFQX_UUID_LEN + 1])
{
	struct slot *s;

	if (ev->kind == CFQX_EV_POLICY) {
		/* A policy switch is an incident of its own. */
		cfqx_uuid_random(fresh);
		inc(&p->c.incidents);
		return fresh;
	}
	s = lookup(p, ev->dev, (uint16_t)ev->group_by, ev->id, 0);
	if (!s->uuid[0]) {
		cfqx_uuid_random(s->uuid);
		inc(&p->c.incidents);
	}
	memcpy(fresh, s->uuid, sizeof(s->uuid));
	if (ev->kind == CFQX_EV_IDLE)
		s->uuid[0] = '\0';	/* idle closes the group's incident */
	return fresh;
}

static void say_uevent_error(struct cfqx_pipe *p, uint32_t dev, int err)
{
	if (p->err_said++ < 5)
		fprintf(stderr, "cfqx: uevent for dev %u:%u failed: %s%s\n",
			CFQX_MAJOR(dev), CFQX_MINOR(dev), strerror(-err),
			p->err_said == 5 ? " (further errors only counted)" : "");
}

static void notify_dev(struct cfqx_pipe *p, const struct cfqx_event *ev,
		       uint32_t dev, const char *uuid, uint64_t now)
{
	struct cfqx_event copy = *ev;
	struct cfqx_uevent_args a;
	struct slot *s;
	char buf[CFQX_UEVENT_MAX_BYTES + 128];
	int len, r;

	copy.dev = dev;
	s = lookup(p, dev, (uint16_t)ev->group_by, ev->id, ev->kind);
	if (!allow(&s->tat_ns, now, p->o.uevent_rate, p->o.uevent_burst) ||
	    !allow(&p->global_tat, now, p->o.uevent_global_rate,
		   p->o.uevent_global_rate)) {
		s->pending++;
		inc(&p->c.uevent_ratelimited);
		return;
	}
	memcpy(a.uuid, uuid, sizeof(a.uuid));
	a.ev = &copy;
	a.suppressed = ev->suppressed + s->pending;
	a.seq = p->seq;
	len = cfqx_uevent_encode(&a, buf, sizeof(buf), NULL);
	r = len < 0 ? len : cfqx_uevent_send(p->o.tx, dev, buf, (size_t)len);
	if (r) {
		say_uevent_error(p, dev, r);
		inc(&p->c.uevent_errors);
		return;
	}
	s->pending = 0;
	inc(&p->c.uevents);
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

static void handle(struct cfqx_pipe *p, const struct cfqx_event *ev)
{
	char uuid[CFQX_UUID_LEN + 1];
	uint64_t now;

	if (ev->size != sizeof(*ev) || ev->group_by >= CFQX_BY_NR) {
		inc_shared(&p->c.malformed);
		return;
	}
	if (ev->kind == 0 || ev->kind >= CFQX_EV_NR) {
		inc(&p->c.unknown_kind);
		return;
	}
	inc(&p->c.valid);
	p->seq++;
	incident_uuid(p, ev, uuid);
	if (p->o.json_fd >= 0)
		sink_json(p, ev, uuid);
	if (p->o.text_fd >= 0)
		sink_text(p, ev, uuid);
	if (!p->o.uevents)
		return;
	now = now_ns();
	if (ev->dev) {
		if (dev_wanted(p, ev->dev))
			notify_dev(p, ev, ev->dev, uuid, now);
		else
			inc(&p->c.uevent_filtered);
	} else if (p->o.ndevs) {
		for (int i = 0; i < p->o.ndevs; i++)
			notify_dev(p, ev, p->o.devs[i], uuid, now);
	} else {
		inc(&p->c.uevent_nodev);
	}
}

static void flush_sinks(struct cfqx_pipe *p)
{
	if (p->json.len)
		out_flush(p, &p->json);
	if (p->text.len)
		out_flush(p, &p->text);
}

static void *notifier_main(void *arg)
{
	struct cfqx_pipe *p = arg;
	struct cfqx_event ev;

	for (;;) {
		unsigned int n = kfifo_out(&p->fifo, (unsigned char *)&ev,
					   sizeof(ev));

		if (n) {
			handle(p, &ev);
			/* Wake a waiting reader once half the fifo is free:
			 * one syscall per half fifo, not per record. */
			if (atomic_load_explicit(&p->reader_sleeping,
						 memory_order_relaxed) &&
			    kfifo_avail(&p->fifo) >= kfifo_size(&p->fifo) / 2 &&
			    atomic_exchange(&p->reader_sleeping, 0))
				kick(p->room_efd);
			continue;
		}
		if (atomic_exchange(&p->reader_sleeping, 0))
			kick(p->room_efd);	/* empty: surely room now */
		flush_sinks(p);
		if (atomic_load(&p->reader_done) && kfifo_is_empty(&p->fifo))
			break;
		atomic_exchange(&p->notifier_sleeping, 1);	/* full barrier */
		if (kfifo_is_empty(&p->fifo) && !atomic_load(&p->reader_done))
			wait_efd(p->data_efd, 100);
		atomic_store(&p->notifier_sleeping, 0);
	}
	flush_sinks(p);
	atomic_store(&p->notifier_done, 1);
	return NULL;
}

/* ---------------------------------------------------------------- */

static void pipe_free(struct cfqx_pipe *p)
{
	if (p->rb)
		ring_buffer__free(p->rb);
	kfifo_free(&p->fifo);
	if (p->data_efd >= 0)
		close(p->data_efd);
	if (p->room_efd >= 0)
		close(p->room_efd);
	free(p->json.buf);
	free(p->text.buf);
	free(p->table);
	free(p);
}

void cfqx_pipe_block_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
}

struct cfqx_pipe *cfqx_pipe_start(const struct cfqx_pipe_opts *opts,
				  char *err, size_t errlen)
{
	/* The fifo's control block is cache-line aligned (alignas(64)). */
	struct cfqx_pipe *p = aligned_alloc(64, (sizeof(*p) + 63) & ~(size_t)63);
	int r;

	if (p)
		memset(p, 0, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->o = *opts;
	p->data_efd = eventfd(0, EFD_CLOEXEC);
	p->room_efd = eventfd(0, EFD_CLOEXEC);
	p->json.fd = opts->json_fd;
	p->text.fd = opts->text_fd;
	p->json.buf = malloc(OUTBUF_SIZE);
	p->text.buf = malloc(OUTBUF_SIZE);
	p->table = calloc(TABLE_SLOTS, sizeof(*p->table));
	if (p->data_efd < 0 || p->room_efd < 0 || !p->json.buf ||
	    !p->text.buf || !p->table) {
		snprintf(err, errlen, "out of memory or file descriptors");
		pipe_free(p);
		return NULL;
	}
	if (kfifo_alloc(&p->fifo, opts->fifo_bytes, GFP_KERNEL)) {
		snprintf(err, errlen, "cannot allocate a %u byte kfifo",
			 opts->fifo_bytes);
		pipe_free(p);
		return NULL;
	}
	p->rb = ring_buffer__new(opts->ring_fd, on_record, p, NULL);
	if (!p->rb) {
		snprintf(err, errlen, "ring_buffer__new on the events map: %s",
			 strerror(errno));
		pipe_free(p);
		return NULL;
	}
	r = pthread_create(&p->notifier, NULL, notifier_main, p);
	if (!r) {
		p->notifier_started = 1;
		r = pthread_create(&p->reader, NULL, reader_main, p);
	}
	if (r) {
		snprintf(err, errlen, "pthread_create: %s", strerror(r));
		atomic_store(&p->reader_done, 1);
		if (p->notifier_started)
			pthread_join(p->notifier, NULL);
		pipe_free(p);
		return NULL;
	}
	p->reader_started = 1;
	return p;
}

void cfqx_pipe_stop(struct cfqx_pipe *p)
{
	atomic_store(&p->stop, 1);
}

int cfqx_pipe_done(struct cfqx_pipe *p)
{
	return atomic_load(&p->notifier_done);
}

int cfqx_pipe_join(struct cfqx_pipe *p, struct cfqx_pipe_counters *final)
{
	int r;

	atomic_store(&p->stop, 1);
	pthread_join(p->reader, NULL);
	pthread_join(p->notifier, NULL);
	r = atomic_load(&p->reader_err);
	if (final)
		memcpy(final, &p->c, sizeof(*final));
	pipe_free(p);
	return r;
}

const struct cfqx_pipe_counters *cfqx_pipe_counters(struct cfqx_pipe *p)
{
	return &p->c;
}

void cfqx_pipe_counters_json(const struct cfqx_pipe_counters *c, FILE *f)
{
	const char *sep = "";

#define X(name)								\
	fprintf(f, "%s\"%s\": %llu", sep, #name, (unsigned long long)	\
		atomic_load_explicit(&c->name, memory_order_relaxed));	\
	sep = ", ";
	CFQX_PIPE_COUNTERS(X)
#undef X
}

/* ---------------------------------------------------------------- */
/* Helpers shared by the commands. */

int cfqx_events_maps_open(const char *maps_dir, int *ring_fd, int *stats_fd,
			  char *err, size_t errlen)
{
	char path[512];
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	snprintf(path, sizeof(path), "%s/%s", maps_dir, CFQX_MAP_EVENTS);
	*ring_fd = bpf_obj_get(path);
	if (*ring_fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s%s", path, strerror(e),
			 e == ENOENT ? " (is cfqx loaded? run `cfqx load`)" : "");
		return -e;
	}
	if (bpf_obj_get_info_by_fd(*ring_fd, &info, &len) ||
	    info.type != BPF_MAP_TYPE_RINGBUF) {
		snprintf(err, errlen, "%s is not a BPF ring buffer", path);
		close(*ring_fd);
		*ring_fd = -1;
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s", maps_dir, CFQX_MAP_STATS);
	*stats_fd = bpf_obj_get(path);
	return 0;
}

int cfqx_stats_read(int stats_fd, uint64_t out[CFQX_STAT_NR])
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals;

	memset(out, 0, sizeof(uint64_t) * CFQX_STAT_NR);
	if (stats_fd < 0)
		return -ENOENT;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (__u32 k = 0; k < CFQX_STAT_NR; k++) {
		if (bpf_map_lookup_elem(stats_fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

int cfqx_daemon_pid(const char *state_dir)
{
	char path[512], buf[4096];
	const char *p;
	int fd, pid;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", state_dir, CFQX_DAEMON_JSON_NAME);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (!strstr(buf, "\"running\": true"))
		return 0;
	p = strstr(buf, "\"pid\": ");
	if (!p || sscanf(p + 7, "%d", &pid) != 1 || pid <= 0)
		return 0;
	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	return pid;
}
