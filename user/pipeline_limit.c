// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Incident and rate-limit tables of the event notifier (pipeline_limit.h):
 * two bounded open-addressing hash tables sharing one probe with LRU
 * eviction, and the GCRA (generic cell rate algorithm) check.
 */
#include "pipeline_limit.h"

#include <stdlib.h>
#include <string.h>

struct key {
	uint64_t id;
	uint32_t dev;
	uint16_t group_by;
	uint16_t kind;		/* 0 in the incident table */
};

struct head {
	struct key key;
	uint64_t last_used;	/* table clock at the last lookup */
	int used;
};

struct cfqx_incident_slot {
	struct head h;
	char uuid[CFQX_UUID_LEN + 1];	/* "": no open incident */
};

struct cfqx_rate_slot {
	struct head h;
	uint64_t tat_ns;	/* GCRA theoretical arrival time */
	uint64_t pending;	/* suppressed, not yet carried */
};

/* Multiplicative hashing: the top bits of the product index the table. */
static unsigned int slot_of(const struct key *k)
{
	uint64_t h = (k->id ^ ((uint64_t)k->kind << 48 |
			       (uint64_t)k->group_by << 32)) *
		     0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)k->dev * 0xc2b2ae3d27d4eb4full;
	return (unsigned int)(h >> (64 - CFQX_LIMIT_BITS));
}

/*
 * The slot holding k (*found = 1), or the one to reuse for it: a free
 * slot, else the least recently used of the probe window (*found = 0; the
 * caller accounts for what the victim held, then claims it).
 */
static struct head *probe(void *base, size_t stride, const struct key *k,
			  uint64_t clock, int *found)
{
	unsigned int h = slot_of(k);
	struct head *victim = NULL;

	for (unsigned int i = 0; i < CFQX_LIMIT_PROBE; i++) {
		struct head *s = (struct head *)((char *)base + stride *
				 ((h + i) & (CFQX_LIMIT_SLOTS - 1)));

		if (s->used && !memcmp(&s->key, k, sizeof(*k))) {
			s->last_used = clock;
			*found = 1;
			return s;
		}
		if (!victim || (victim->used &&
				(!s->used || s->last_used < victim->last_used)))
			victim = s;
	}
	*found = 0;
	return victim;
}

static void claim(struct head *s, size_t size, const struct key *k,
		  uint64_t clock)
{
	memset(s, 0, size);
	s->key = *k;
	s->used = 1;
	s->last_used = clock;
}

static struct key key_of(const struct cfqx_event *ev, uint32_t dev,
			 uint16_t kind)
{
	struct key k;

	memset(&k, 0, sizeof(k));	/* padding too: keys compare by memcmp */
	k.id = ev->id;
	k.dev = dev;
	k.group_by = (uint16_t)ev->group_by;
	k.kind = kind;
	return k;
}

/* ---------------------------------------------------------------- */

int cfqx_incidents_init(struct cfqx_incidents *t)
{
	memset(t, 0, sizeof(*t));
	t->slots = calloc(CFQX_LIMIT_SLOTS, sizeof(*t->slots));
	return t->slots ? 0 : -1;
}

void cfqx_incidents_free(struct cfqx_incidents *t)
{
	free(t->slots);
	t->slots = NULL;
}

const char *cfqx_incident_of(struct cfqx_incidents *t,
			     const struct cfqx_event *ev,
			     struct cfqx_pipe_counters *c)
{
	struct key k = key_of(ev, ev->dev, 0);
	struct cfqx_incident_slot *s;
	int found;

	if (ev->kind == CFQX_EV_POLICY) {
		/* A policy switch is an incident of its own. */
		cfqx_uuid_random(t->closed);
		cfqx_count(&c->incidents, 1);
		return t->closed;
	}
	s = (struct cfqx_incident_slot *)probe(t->slots, sizeof(*s), &k,
					       ++t->clock, &found);
	if (!found) {
		if (s->h.used && s->uuid[0])
			cfqx_count(&c->incidents_evicted, 1);
		claim(&s->h, sizeof(*s), &k, t->clock);
	}
	if (!s->uuid[0]) {
		cfqx_uuid_random(s->uuid);
		cfqx_count(&c->incidents, 1);
	}
	if (ev->kind != CFQX_EV_IDLE)
		return s->uuid;
	/* idle is the incident's last event */
	memcpy(t->closed, s->uuid, sizeof(t->closed));
	s->uuid[0] = '\0';
	return t->closed;
}

/* ---------------------------------------------------------------- */

int cfqx_rates_init(struct cfqx_rates *t, unsigned int rate,
		    unsigned int burst, unsigned int global_rate)
{
	memset(t, 0, sizeof(*t));
	t->rate = rate ? rate : 1;
	t->burst = burst ? burst : 1;
	t->global_rate = global_rate ? global_rate : 1;
	t->slots = calloc(CFQX_LIMIT_SLOTS, sizeof(*t->slots));
	return t->slots ? 0 : -1;
}

void cfqx_rates_free(struct cfqx_rates *t)
{
	free(t->slots);
	t->slots = NULL;
}

/* GCRA: may one more go out at now (at most `burst` back to back)? */
static int gcra_ok(uint64_t tat, uint64_t now, uint64_t interval,
		   unsigned int burst)
{
	return tat <= now + interval * (burst - 1);
}

static void gcra_spend(uint64_t *tat, uint64_t now, uint64_t interval)
{
	*tat = (*tat > now ? *tat : now) + interval;
}

struct cfqx_rate_slot *cfqx_rate_admit(struct cfqx_rates *t,
				       const struct cfqx_event *ev,
				       uint32_t dev, uint64_t now_ns,
				       uint64_t *pending,
				       struct cfqx_pipe_counters *c)
{
	struct key k = key_of(ev, dev, (uint16_t)ev->kind);
	uint64_t iv = 1000000000ull / t->rate;
	uint64_t giv = 1000000000ull / t->global_rate;
	struct cfqx_rate_slot *s;
	int found;

	s = (struct cfqx_rate_slot *)probe(t->slots, sizeof(*s), &k,
					   ++t->clock, &found);
	if (!found) {
		/* Counted in uevent_ratelimited when suppressed; these never
		 * made it into a notification. */
		if (s->h.used && s->pending)
			cfqx_count(&c->suppressed_unreported, s->pending);
		claim(&s->h, sizeof(*s), &k, t->clock);
	}
	/* Check both before spending either: a refusal spends nothing. */
	if (!gcra_ok(s->tat_ns, now_ns, iv, t->burst) ||
	    !gcra_ok(t->global_tat, now_ns, giv, t->global_rate)) {
		s->pending++;
		return NULL;
	}
	gcra_spend(&s->tat_ns, now_ns, iv);
	gcra_spend(&t->global_tat, now_ns, giv);
	*pending = s->pending;
	return s;
}

void cfqx_rate_sent(struct cfqx_rate_slot *s)
{
	s->pending = 0;
}
