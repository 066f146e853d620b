// SPDX-License-Identifier: GPL-2.0
/*
 * The simulator's device models, each a small deterministic state
 * machine that answers "when does this request complete, and what device
 * time does it occupy":
 *
 *   nullb  Linux null_blk (6.1 and 6.12) with mbps= and irqmode=2: a byte
 *          budget of mbps MiB/s refilled every TICKS_PER_SEC (50) tick;
 *          a request that overdraws it is refused (BLK_STS_DEV_RESOURCE,
 *          its bytes stay charged, the queue stops until the next tick);
 *          accepted requests complete completion_nsec later, up to
 *          hw_queue_depth at once.  Cost unit: bytes.
 *   ssd    channels that each serve one stripe-sized chunk at a time
 *          (a fixed NAND read/program time plus the transfer at the
 *          channel's bandwidth); a request is split at stripe boundaries,
 *          chunk i on channel (chunk number mod channels), and completes
 *          with its last chunk.  Cost unit: bytes (what the kernel core
 *          charges on a non-rotational device).
 *   hdd    one actuator serving its tagged queue in arrival order: seek
 *          seek_min + (seek_max - seek_min) * sqrt(distance / size), then
 *          the rotational wait until the target sector (angular position
 *          of sector mod sectors-per-track, the platter turning at rpm
 *          since time 0), then the transfer at rate.  A request starting
 *          where the previous one ended streams (no seek, no wait: the
 *          drive's look-ahead).  Cost unit: device time.
 *
 * Parameters are table-driven, so parsing, --help and the canonical
 * description cannot disagree.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

const char *const sim_model_names[SIM_MODELS] = {
	[SIM_NULLB] = "nullb", [SIM_SSD] = "ssd", [SIM_HDD] = "hdd",
};

enum pkind { P_BYTES, P_RATE, P_TIME, P_COUNT };

struct param {
	unsigned models;	/* bit per enum sim_model */
	const char *name;
	int kind;
	size_t off;
	sim_u64 min, max;
	sim_u64 def[SIM_MODELS];
	const char *doc;
};

#define M(x) (1u << (x))
#define OFF(f) offsetof(struct sim_devcfg, f)
#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define GiB (1ULL << 30)
#define TiB (1ULL << 40)
#define US SIM_NS_PER_US
#define MS SIM_NS_PER_MS

static const struct param params[] = {
	{ M(SIM_NULLB), "bw", P_RATE, OFF(bw), 0, 64 * GiB, { 200 * MiB },
	  "throttle, bytes/s (null_blk mbps; 0 = none)" },
	{ M(SIM_NULLB), "lat", P_TIME, OFF(lat_ns), 0, 1000 * MS, { 200 * US },
	  "completion after queue_rq (completion_nsec)" },
	{ M(SIM_NULLB), "tick", P_TIME, OFF(tick_ns), 100 * US, 1000 * MS,
	  { 20 * MS }, "throttle refill period (1 s / TICKS_PER_SEC)" },
	{ M(SIM_SSD), "channels", P_COUNT, OFF(channels), 1, 256, { 0, 8 },
	  "independent channels" },
	{ M(SIM_SSD), "chan_bw", P_RATE, OFF(chan_bw), 1 * MiB, 64 * GiB,
	  { 0, 400 * MiB }, "transfer per channel, bytes/s" },
	{ M(SIM_SSD), "read_lat", P_TIME, OFF(read_ns), 0, 100 * MS,
	  { 0, 50 * US }, "NAND read per chunk" },
	{ M(SIM_SSD), "write_lat", P_TIME, OFF(write_ns), 0, 100 * MS,
	  { 0, 20 * US }, "program per chunk" },
	{ M(SIM_SSD), "stripe", P_BYTES, OFF(stripe), 4 * KiB, 16 * MiB,
	  { 0, 64 * KiB }, "chunk per channel (a multiple of 512)" },
	{ M(SIM_HDD), "rpm", P_COUNT, OFF(rpm), 1000, 30000, { 0, 0, 7200 },
	  "spindle speed" },
	{ M(SIM_HDD), "rate", P_RATE, OFF(rate), 1 * MiB, 16 * GiB,
	  { 0, 0, 150 * MiB }, "media transfer, bytes/s" },
	{ M(SIM_HDD), "seek_min", P_TIME, OFF(seek_min_ns), 0, 100 * MS,
	  { 0, 0, 800 * US }, "track-to-track seek" },
	{ M(SIM_HDD), "seek_max", P_TIME, OFF(seek_max_ns), 0, 1000 * MS,
	  { 0, 0, 16 * MS }, "full-stroke seek" },
	{ M(SIM_NULLB) | M(SIM_SSD) | M(SIM_HDD), "depth", P_COUNT,
	  OFF(depth), 1, 4096, { 64, 256, 32 },
	  "tags (hdd: queued, served one at a time in order)" },
	{ M(SIM_NULLB) | M(SIM_SSD) | M(SIM_HDD), "size", P_BYTES, OFF(size),
	  1 * MiB, 1ULL << 50, { 250 * GiB, 1 * TiB, 1 * TiB },
	  "capacity, bytes" },
};
#define NPARAMS (sizeof(params) / sizeof(params[0]))

static sim_u64 *field(struct sim_devcfg *c, const struct param *p)
{
	return (sim_u64 *)((char *)c + p->off);
}

static sim_u64 cfield(const struct sim_devcfg *c, const struct param *p)
{
	return *(const sim_u64 *)((const char *)c + p->off);
}

static int parse_value(const struct param *p, const char *v, sim_u64 *out)
{
	switch (p->kind) {
	case P_BYTES:
	case P_RATE:
		return sim_parse_bytes(v, out);
	case P_TIME:
		return sim_parse_time(v, 1, out) ? -1 :
			/* a bare number is ns only when it is 0 */
			(strspn(v, "0123456789") == strlen(v) && *out) ? -1 : 0;
	default:
		return cfqx_parse_u64(v, UINT64_MAX, (__u64 *)out);
	}
}

static const char *kind_hint(int kind)
{
	switch (kind) {
	case P_BYTES: return "bytes with k/m/g/t";
	case P_RATE: return "bytes/s with k/m/g (200M = 200 MiB/s)";
	case P_TIME: return "a time with ns/us/ms/s";
	default: return "a whole number";
	}
}

static void fmt_value(const struct param *p, sim_u64 v, char *buf,
		      size_t len)
{
	static const char sfx[] = "kmgt";
	int i;

	if (p->kind == P_TIME) {
		if (v && v % SIM_NS_PER_S == 0)
			snprintf(buf, len, "%llus", (unsigned long long)(v / SIM_NS_PER_S));
		else if (v && v % MS == 0)
			snprintf(buf, len, "%llums", (unsigned long long)(v / MS));
		else if (v && v % US == 0)
			snprintf(buf, len, "%lluus", (unsigned long long)(v / US));
		else
			snprintf(buf, len, "%lluns", (unsigned long long)v);
		return;
	}
	if (p->kind == P_COUNT || !v || v % KiB) {
		snprintf(buf, len, "%llu", (unsigned long long)v);
		return;
	}
	for (i = 0; i < 3 && v % (KiB << (10 * (i + 1))) == 0; i++)
		;
	snprintf(buf, len, "%llu%c", (unsigned long long)(v >> (10 * (i + 1))),
		 p->kind == P_RATE ? sfx[i] - 32 : sfx[i]);
}

int sim_dev_parse(const char *spec, struct sim_devcfg *c, char *err,
		  size_t errlen)
{
	char buf[512], *tok, *save = NULL;
	size_t i;
	int m;

	if (!spec || strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "bad --device (expected MODEL[,key=value...])");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	tok = strtok_r(buf, ",", &save);
	for (m = 0; tok && m < SIM_MODELS; m++)
		if (!strcmp(tok, sim_model_names[m]))
			break;
	if (!tok || m == SIM_MODELS) {
		snprintf(err, errlen, "unknown device model '%s' (nullb ssd hdd)",
			 tok ? tok : "");
		return -1;
	}
	memset(c, 0, sizeof(*c));
	c->model = m;
	for (i = 0; i < NPARAMS; i++)
		if (params[i].models & M(m))
			*field(c, &params[i]) = params[i].def[m];
	while ((tok = strtok_r(NULL, ",", &save))) {
		char *eq = strchr(tok, '=');
		sim_u64 v;

		if (eq)
			*eq = 0;
		for (i = 0; i < NPARAMS; i++)
			if ((params[i].models & M(m)) &&
			    !strcmp(tok, params[i].name))
				break;
		if (i == NPARAMS) {
			char known[256] = "";

			for (i = 0; i < NPARAMS; i++)
				if (params[i].models & M(m)) {
					strncat(known, " ", sizeof(known) - strlen(known) - 1);
					strncat(known, params[i].name,
						sizeof(known) - strlen(known) - 1);
				}
			snprintf(err, errlen, "%s: unknown parameter '%s' (known:%s)",
				 sim_model_names[m], tok, known);
			return -1;
		}
		if (!eq || parse_value(&params[i], eq + 1, &v) ||
		    v < params[i].min || v > params[i].max ||
		    (params[i].kind == P_BYTES && v % 512)) {
			char lo[32], hi[32];

			fmt_value(&params[i], params[i].min, lo, sizeof(lo));
			fmt_value(&params[i], params[i].max, hi, sizeof(hi));
			snprintf(err, errlen, "%s: bad %s value '%s' (%s, %s to %s)",
				 sim_model_names[m], tok, eq ? eq + 1 : "",
				 kind_hint(params[i].kind), lo, hi);
			return -1;
		}
		*field(c, &params[i]) = v;
	}
	if (m == SIM_HDD && c->seek_max_ns < c->seek_min_ns) {
		snprintf(err, errlen, "hdd: seek_max is below seek_min");
		return -1;
	}
	return 0;
}

void sim_dev_describe(const struct sim_devcfg *c, char *buf, size_t len)
{
	size_t i, n;

	n = snprintf(buf, len, "%s", sim_model_names[c->model]);
	for (i = 0; i < NPARAMS && n < len; i++) {
		char v[32];

		if (!(params[i].models & M(c->model)))
			continue;
		fmt_value(&params[i], cfield(c, &params[i]), v, sizeof(v));
		n += snprintf(buf + n, len - n, ",%s=%s", params[i].name, v);
	}
}

void sim_dev_help(FILE *f)
{
	int m;
	size_t i;

	for (m = 0; m < SIM_MODELS; m++) {
		fprintf(f, "  %s (fair shares in %s):\n", sim_model_names[m],
			m == SIM_HDD ? "device time" : "bytes");
		for (i = 0; i < NPARAMS; i++) {
			char v[32];

			if (!(params[i].models & M(m)))
				continue;
			fmt_value(&params[i], params[i].def[m], v, sizeof(v));
			fprintf(f, "    %-10s %-8s %s\n", params[i].name, v,
				params[i].doc);
		}
	}
}

bool sim_dev_time_unit(const struct sim_devcfg *c)
{
	return c->model == SIM_HDD;
}

/* ns to move @bytes at @rate bytes/s (rounded up). */
static sim_u64 xfer_ns(sim_u64 bytes, sim_u64 rate)
{
	return rate ? (sim_u64)(((unsigned __int128)bytes * SIM_NS_PER_S +
				 rate - 1) / rate) : 0;
}

static sim_u64 ssd_chunk_ns(const struct sim_devcfg *c, sim_u64 bytes,
			    bool write)
{
	return (write ? c->write_ns : c->read_ns) + xfer_ns(bytes, c->chan_bw);
}

/* floor(sqrt(v)), bit by bit: exact and the same everywhere. */
static sim_u64 isqrt(sim_u64 v)
{
	sim_u64 r = 0, bit = 1ULL << 62;

	while (bit > v)
		bit >>= 2;
	for (; bit; bit >>= 2) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/* Seek over @dist of @total sectors: min + (max - min) * sqrt(dist/total). */
static sim_u64 hdd_seek_ns(const struct sim_devcfg *c, sim_u64 dist,
			   sim_u64 total)
{
	sim_u64 root;

	if (!dist)
		return 0;
	if (dist > total)
		dist = total;
	/* sqrt(dist / total) x 2^20 */
	root = isqrt((sim_u64)(((unsigned __int128)dist << 40) / total));
	return c->seek_min_ns + (sim_u64)(((unsigned __int128)
		(c->seek_max_ns - c->seek_min_ns) * root) >> 20);
}

sim_u64 sim_dev_nominal_ns(const struct sim_devcfg *c, sim_u64 bytes,
			   bool sequential)
{
	sim_u64 t, chunks;

	switch (c->model) {
	case SIM_NULLB:
		return c->bw ? xfer_ns(bytes, c->bw) : c->lat_ns / c->depth;
	case SIM_SSD:
		chunks = (bytes + c->stripe - 1) / c->stripe;
		t = chunks * ssd_chunk_ns(c, c->stripe < bytes ? c->stripe : bytes,
					  false);
		return t / c->channels + 1;
	default:
		t = xfer_ns(bytes, c->rate);
		if (!sequential)
			t += hdd_seek_ns(c, 1, 3) + 30 * SIM_NS_PER_S / c->rpm;
		return t;
	}
}

int sim_dev_init(struct sim_dev *d, const struct sim_devcfg *c)
{
	memset(d, 0, sizeof(*d));
	d->cfg = *c;
	switch (c->model) {
	case SIM_NULLB:
		/* null_blk's mb_per_tick(): integer MiB/s in, its rounding */
		if (c->bw % MiB == 0)
			d->per_tick = (int64_t)(MiB / (SIM_NS_PER_S / c->tick_ns) *
						(c->bw / MiB));
		else
			d->per_tick = (int64_t)(c->bw * c->tick_ns / SIM_NS_PER_S);
		if (c->bw && d->per_tick <= 0)
			d->per_tick = 1;
		d->cur_bytes = d->per_tick;
		d->timer_on = c->bw != 0;
		break;
	case SIM_SSD:
		d->chan_free = calloc(c->channels, sizeof(*d->chan_free));
		if (!d->chan_free)
			return -1;
		break;
	case SIM_HDD:
		d->turn_ns = 60 * SIM_NS_PER_S / c->rpm;
		d->spt = (sim_u64)((unsigned __int128)c->rate * d->turn_ns /
				   SIM_NS_PER_S / SIM_SECTOR);
		if (!d->spt)
			d->spt = 1;
		break;
	}
	return 0;
}

void sim_dev_free(struct sim_dev *d)
{
	free(d->chan_free);
	d->chan_free = NULL;
}

/* The throttle's timer is armed at set-up, first firing one tick in. */
sim_u64 sim_dev_first_timer(const struct sim_dev *d)
{
	return d->cfg.model == SIM_NULLB && d->cfg.bw ? d->cfg.tick_ns : 0;
}

static sim_u64 hdd_service(struct sim_dev *d, sim_u64 start, sim_u64 sector,
			   sim_u64 bytes)
{
	const struct sim_devcfg *c = &d->cfg;
	sim_u64 t = 0, dist, at, target;

	if (sector != d->head) {
		dist = sector > d->head ? sector - d->head : d->head - sector;
		t = hdd_seek_ns(c, dist, c->size / SIM_SECTOR);
		/* rotational wait: to the target's angle from where we are */
		at = (start + t) % d->turn_ns;
		target = (sector % d->spt) * d->turn_ns / d->spt;
		t += (target + d->turn_ns - at) % d->turn_ns;
	}
	d->head = sector + bytes / SIM_SECTOR;
	return t + xfer_ns(bytes, c->rate);
}

int sim_dev_submit(struct sim_dev *d, sim_u64 now, sim_u64 sector,
		   sim_u64 bytes, bool write, sim_u64 *done_at,
		   sim_u64 *cost_ns, sim_u64 *timer_at)
{
	const struct sim_devcfg *c = &d->cfg;
	sim_u64 start, end, off, len, ch, t;

	*timer_at = 0;
	switch (c->model) {
	case SIM_NULLB:
		if (c->bw) {
			if (!d->timer_on) {
				/* hrtimer_restart() of an expired timer:
				 * it fires at once */
				d->timer_on = true;
				*timer_at = now;
			}
			d->cur_bytes -= (int64_t)bytes;
			if (d->cur_bytes < 0)
				return 1;
		}
		*done_at = now + c->lat_ns;
		*cost_ns = c->bw ? xfer_ns(bytes, c->bw) : c->lat_ns;
		break;
	case SIM_SSD:
		end = now;
		*cost_ns = 0;
		for (off = sector * SIM_SECTOR; off < sector * SIM_SECTOR + bytes;
		     off += len) {
			len = c->stripe - off % c->stripe;
			if (len > sector * SIM_SECTOR + bytes - off)
				len = sector * SIM_SECTOR + bytes - off;
			ch = (off / c->stripe) % c->channels;
			t = ssd_chunk_ns(c, len, write);
			start = d->chan_free[ch] > now ? d->chan_free[ch] : now;
			d->chan_free[ch] = start + t;
			if (start + t > end)
				end = start + t;
			*cost_ns += t;
		}
		*done_at = end;
		break;
	default:
		start = d->free_at > now ? d->free_at : now;
		t = hdd_service(d, start, sector, bytes);
		d->free_at = start + t;
		*done_at = start + t;
		*cost_ns = t;
		break;
	}
	d->busy++;
	return 0;
}

void sim_dev_complete(struct sim_dev *d)
{
	d->busy--;
}

bool sim_dev_timer(struct sim_dev *d, sim_u64 now, sim_u64 *next)
{
	const sim_u64 tick = d->cfg.tick_ns;

	*next = 0;
	if (d->cfg.model != SIM_NULLB || !d->cfg.bw || !d->timer_on)
		return false;
	if (d->cur_bytes == d->per_tick) {
		/* nothing used since the last tick: HRTIMER_NORESTART */
		d->timer_on = false;
		return false;
	}
	d->cur_bytes = d->per_tick;
	*next = (now / tick + 1) * tick;	/* hrtimer_forward_now() */
	return true;
}
