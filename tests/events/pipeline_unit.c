// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the event pipeline's pure parts, built with ASan/UBSan:
 *  - encode.h: decimal and hex against printf over edge and random values;
 *  - pipeline_format.c: the caching JSON and text formatters against a
 *    printf reference over random event sequences whose fields repeat (so
 *    every cache hits and misses), each JSON line parsed back;
 *  - pipeline_limit.c: a refusal by the global limit spends no per-key
 *    token; an evicted key's pending count is added once, exactly; the
 *    incident and rate tables never evict each other; idle closes an
 *    incident, policy opens its own.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfqx/cfq.h>

#include "encode.h"
#include "pipeline.h"
#include "pipeline_format.h"
#include "pipeline_limit.h"

static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A value of random magnitude: every digit count is as likely. */
static uint64_t rnd_mag(void)
{
	unsigned int bits = (unsigned int)(rnd() % 65);

	return bits == 64 ? rnd() : rnd() & ((1ull << bits) - 1);
}

Test(encode, u64_matches_printf)
{
	static const uint64_t edge[] = {
		0, 1, 9, 10, 99, 100, 9999999, 10000000, 99999999, 100000000,
		999999999999999ull, 9999999999999999ull, 10000000000000000ull,
		UINT64_MAX, UINT64_MAX - 1, 18446744073709551ull,
	};
	char a[32], b[32];

	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]) + 1000000; i++) {
		uint64_t v = i < sizeof(edge) / sizeof(edge[0]) ? edge[i] : rnd_mag();

		*cfqx_put_u64(a, v) = '\0';
		snprintf(b, sizeof(b), "%" PRIu64, v);
		cr_assert_str_eq(a, b);
		*cfqx_put_u64_pad(a, v, 6) = '\0';
		snprintf(b, sizeof(b), "%06" PRIu64, v);
		cr_assert_str_eq(a, b);
	}
}

Test(encode, hex_matches_printf)
{
	unsigned char bytes[256];
	char a[600], b[600];

	for (int i = 0; i < 256; i++)
		bytes[i] = (unsigned char)i;
	*cfqx_put_hex(a, bytes, sizeof(bytes)) = '\0';
	for (int i = 0; i < 256; i++)
		snprintf(b + 2 * i, 3, "%02x", i);
	cr_assert_str_eq(a, b);
}

/* ---------------------------------------------------------------- */

static const char *const comms[] = {
	"cfqx-storm", "dd", "", "a\"b\\c", "tab\there", "\x01\x7f\xff",
	"0123456789abcdef",	/* 16 bytes: no NUL */
};

static void random_event(struct cfqx_event *ev)
{
	const char *c = comms[rnd() % (sizeof(comms) / sizeof(comms[0]))];

	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->kind = (uint16_t)(1 + rnd() % (CFQX_EV_NR - 1));
	ev->dev = rnd() % 3 ? CFQX_MKDEV(7, rnd() % 2) :
		  (uint32_t)(rnd() & 0xffffffffu);
	ev->ts_ns = rnd_mag();
	ev->group_by = (uint32_t)(rnd() % CFQX_BY_NR);
	ev->flags = rnd() % 4 ? 0 : (uint32_t)rnd();
	ev->id = rnd() % 2 ? 1000 + rnd() % 4 : rnd_mag();
	ev->value = rnd_mag();
	ev->value2 = rnd_mag();
	ev->suppressed = rnd() % 3 ? 0 : rnd_mag();
	memcpy(ev->comm, c, strnlen(c, 16));
}

/* The reference: what printf makes of the documented format. */
static void ref_comm(char *out, const char *comm)
{
	for (size_t i = 0; i < 16 && comm[i]; i++) {
		unsigned char ch = (unsigned char)comm[i];

		if (ch == '"' || ch == '\\')
			out += sprintf(out, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			out += sprintf(out, "\\u%04x", ch);
		else
			*out++ = (char)ch;
	}
	*out = '\0';
}

static void ref_json(char *out, const struct cfqx_event *ev, uint64_t seq,
		     const char *uuid)
{
	char comm[128];

	ref_comm(comm, ev->comm);
	sprintf(out, "{\"seq\":%" PRIu64 ",\"event\":\"%s\",\"kind\":%u,\"dev\":\"%u:%u\",\"ts_ns\":%" PRIu64 ",\"group_by\":\"%s\",\"id\":%" PRIu64 ",\"flags\":%u,\"value\":%" PRIu64 ",\"value2\":%" PRIu64 ",\"suppressed\":%" PRIu64 ",\"comm\":\"%s\",\"incident\":\"%s\"}\n",
		seq, cfqx_event_names[ev->kind], ev->kind, CFQX_MAJOR(ev->dev),
		CFQX_MINOR(ev->dev), (uint64_t)ev->ts_ns,
		cfqx_group_by_names[ev->group_by], (uint64_t)ev->id, ev->flags,
		(uint64_t)ev->value, (uint64_t)ev->value2,
		(uint64_t)ev->suppressed, comm, uuid);
}

static void ref_text(char *out, const struct cfqx_event *ev, const char *uuid)
{
	char comm[128];

	ref_comm(comm, ev->comm);
	sprintf(out, "%" PRIu64 ".%06" PRIu64 " %-11s dev %u:%u %s %" PRIu64 "%s (%s) value %" PRIu64 " value2 %" PRIu64 " suppressed %" PRIu64 " incident %s\n",
		(uint64_t)(ev->ts_ns / 1000000000ull),
		(uint64_t)(ev->ts_ns % 1000000000ull / 1000),
		cfqx_event_names[ev->kind], CFQX_MAJOR(ev->dev),
		CFQX_MINOR(ev->dev), cfqx_group_by_names[ev->group_by],
		(uint64_t)ev->id, ev->flags & CFQX_GF_KTHREAD ? " kthread" : "",
		comm, (uint64_t)ev->value, (uint64_t)ev->value2,
		(uint64_t)ev->suppressed, uuid);
}

Test(format, cached_lines_match_printf)
{
	static struct cfqx_fmt f;
	/* Many lines back to back in one buffer, as a batch writes them:
	 * the scratch a line writes past its end must never survive. */
	size_t cap = 64 * (CFQX_LINE_MAX + CFQX_LINE_SLACK);
	char *buf = malloc(cap), ref[2 * CFQX_LINE_MAX];
	uint64_t seq = 0;

	cfqx_fmt_init(&f);
	for (int round = 0; round < 20000; round++) {
		struct cfqx_event evs[64];
		char uuids[64][CFQX_UUID_LEN + 1];
		uint64_t seqs[64];
		char *d = buf, *line;

		for (int i = 0; i < 64; i++) {
			if (i && rnd() % 2)
				evs[i] = evs[i - 1];	/* repeats: cache hits */
			else
				random_event(&evs[i]);
			if (rnd() % 3 == 0)
				evs[i].ts_ns++;
			cfqx_uuid_random(uuids[i]);
			/* mostly +1, sometimes a jump (rebuilt, not incremented) */
			seq = rnd() % 50 ? seq + 1 : rnd_mag();
			seqs[i] = seq;
			if (rnd() % 2)
				d = cfqx_fmt_json(&f, d, &evs[i], seq, uuids[i]);
			else
				d = cfqx_fmt_text(&f, d, &evs[i], uuids[i]);
			cr_assert_leq((size_t)(d - buf), cap - CFQX_LINE_SLACK);
		}
		*d = '\0';
		line = buf;
		for (int i = 0; i < 64; i++) {
			char *nl = strchr(line, '\n');
			size_t n;

			cr_assert(nl, "line %d missing", i);
			n = (size_t)(nl - line + 1);
			if (line[0] == '{')
				ref_json(ref, &evs[i], seqs[i], uuids[i]);
			else
				ref_text(ref, &evs[i], uuids[i]);
			cr_assert_leq(strlen(ref), (size_t)CFQX_LINE_MAX);
			cr_assert(n == strlen(ref) && !memcmp(line, ref, n),
				  "line %d:\n got %.*s want %s", i, (int)n, line, ref);
			line = nl + 1;
		}
	}
	free(buf);
}

Test(format, seq_carries_into_a_new_digit)
{
	static struct cfqx_fmt f;
	struct cfqx_event ev;
	char buf[CFQX_LINE_MAX + CFQX_LINE_SLACK], ref[CFQX_LINE_MAX];
	const char *u = "6c1e1b6a-cf9a-4e11-9b1e-0123456789ab";

	random_event(&ev);
	cfqx_fmt_init(&f);
	for (uint64_t s = 1; s <= 100000; s++) {
		char *e = cfqx_fmt_json(&f, buf, &ev, s, u);

		ref_json(ref, &ev, s, u);
		cr_assert_eq((size_t)(e - buf), strlen(ref));
		cr_assert(!memcmp(buf, ref, strlen(ref)), "seq %" PRIu64, s);
	}
}

/* ---------------------------------------------------------------- */

static struct cfqx_event ev_of(uint64_t id, uint16_t kind)
{
	struct cfqx_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.size = sizeof(ev);
	ev.kind = kind;
	ev.dev = CFQX_MKDEV(7, 0);
	ev.id = id;
	return ev;
}

Test(limit, global_refusal_spends_no_key_token)
{
	static struct cfqx_pipe_counters c;
	struct cfqx_rates t;
	struct cfqx_event a = ev_of(1, CFQX_EV_STARVED), b = ev_of(2, CFQX_EV_STARVED);
	uint64_t pend, now = 1000000000000ull;

	/* per key: 1/s, burst 1; global: 1/s (burst = rate = 1) */
	cr_assert_eq(cfqx_rates_init(&t, 1, 1, 1), 0);
	cr_assert(cfqx_rate_admit(&t, &a, a.dev, now, &pend, &c));
	/* b's own limit would allow it, the global one refuses ... */
	cr_assert_null(cfqx_rate_admit(&t, &b, b.dev, now, &pend, &c));
	/* ... and a second later b still has its token */
	cr_assert(cfqx_rate_admit(&t, &b, b.dev, now + 1000000000ull, &pend, &c));
	cr_assert_eq(pend, 1, "b's suppressed count rides along");
	cfqx_rates_free(&t);
}

Test(limit, eviction_adds_pending_once)
{
	static struct cfqx_pipe_counters c;
	struct cfqx_rates t;
	uint64_t pend, now = 1000000000000ull, want = 0, reported = 0;
	uint64_t keys = 20 * CFQX_LIMIT_SLOTS;

	cr_assert_eq(cfqx_rates_init(&t, 1, 1, 1000000), 0);
	/* far more keys than slots, each left with 1..3 suppressed */
	for (uint64_t id = 0; id < keys; id++) {
		struct cfqx_event ev = ev_of(id, CFQX_EV_BUSY);
		unsigned int extra = 1 + (unsigned int)(id % 3);

		cr_assert(cfqx_rate_admit(&t, &ev, ev.dev, now, &pend, &c));
		for (unsigned int k = 0; k < extra; k++)
			cr_assert_null(cfqx_rate_admit(&t, &ev, ev.dev, now,
						       &pend, &c));
		want += extra;
	}
	/* Seconds later every key is admitted, newest first: one still in
	 * the table carries its count, an evicted one's went to
	 * suppressed_unreported. */
	for (uint64_t i = 0; i < keys; i++) {
		struct cfqx_event ev = ev_of(keys - 1 - i, CFQX_EV_BUSY);
		struct cfqx_rate_slot *s = cfqx_rate_admit(&t, &ev, ev.dev,
							   now + 5000000000ull,
							   &pend, &c);

		cr_assert(s);
		reported += pend;
		cfqx_rate_sent(s);
	}
	cr_assert_gt(reported, 0);
	cr_assert_gt(atomic_load(&c.suppressed_unreported), 0);
	cr_assert_eq(reported + atomic_load(&c.suppressed_unreported), want,
		     "every suppressed count is reported or counted once");
	cfqx_rates_free(&t);
}

Test(limit, incidents_and_rates_do_not_evict_each_other)
{
	static struct cfqx_pipe_counters c;
	struct cfqx_incidents inc;
	struct cfqx_rates t;
	struct cfqx_event g = ev_of(42, CFQX_EV_BUSY);
	char first[CFQX_UUID_LEN + 1];
	uint64_t pend, now = 1000000000000ull;

	cr_assert_eq(cfqx_incidents_init(&inc), 0);
	cr_assert_eq(cfqx_rates_init(&t, 1, 3, 50), 0);
	strcpy(first, cfqx_incident_of(&inc, &g, &c));
	/* a storm of rate-limit keys (other kinds, same group included) */
	for (uint64_t i = 0; i < 10 * CFQX_LIMIT_SLOTS; i++) {
		struct cfqx_event ev = ev_of(i, (uint16_t)(2 + i % 4));

		cfqx_rate_admit(&t, &ev, ev.dev, now, &pend, &c);
	}
	cr_assert_str_eq(cfqx_incident_of(&inc, &g, &c), first,
			 "the open incident kept its UUID");
	cr_assert_eq(atomic_load(&c.incidents_evicted), 0);
	/* idle closes it (and still carries it), the next event opens a new one */
	g.kind = CFQX_EV_IDLE;
	cr_assert_str_eq(cfqx_incident_of(&inc, &g, &c), first);
	g.kind = CFQX_EV_BUSY;
	cr_assert_str_neq(cfqx_incident_of(&inc, &g, &c), first);
	/* policy: an incident of its own each time */
	g.kind = CFQX_EV_POLICY;
	strcpy(first, cfqx_incident_of(&inc, &g, &c));
	cr_assert_str_neq(cfqx_incident_of(&inc, &g, &c), first);
	cr_assert_eq(atomic_load(&c.incidents), 4);
	cfqx_incidents_free(&inc);
	cfqx_rates_free(&t);
}

Test(limit, incident_eviction_is_counted)
{
	static struct cfqx_pipe_counters c;
	struct cfqx_incidents inc;
	uint64_t n = 4 * CFQX_LIMIT_SLOTS;

	cr_assert_eq(cfqx_incidents_init(&inc), 0);
	for (uint64_t id = 0; id < n; id++) {
		struct cfqx_event ev = ev_of(id, CFQX_EV_BUSY);

		cfqx_incident_of(&inc, &ev, &c);
	}
	/* every incident is open; the table holds at most CFQX_LIMIT_SLOTS */
	cr_assert_eq(atomic_load(&c.incidents), n);
	cr_assert_geq(atomic_load(&c.incidents_evicted), n - CFQX_LIMIT_SLOTS);
	cfqx_incidents_free(&inc);
}
