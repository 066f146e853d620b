/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The notifier's two bounded tables (notifier thread only, no locks):
 *  - incidents: one UUID per (device, group_by, id), from a group's first
 *    event up to and including its `idle`; a `policy` event is an incident
 *    of its own.
 *  - rate limits: one GCRA state per (device, group_by, id, kind) plus one
 *    global state; a notification goes out only if both admit it, and only
 *    then are both spent.  Suppressed counts wait in the key's slot and
 *    ride in the next notification that key sends.
 * The tables are separate so that neither evicts the other's entries.  An
 * eviction is counted: a live incident pushed out (its group's next event
 * opens a new UUID) in incidents_evicted, pending suppressed counts in
 * suppressed_unreported.
 */
#ifndef CFQX_PIPELINE_LIMIT_H
#define CFQX_PIPELINE_LIMIT_H

#include <stdint.h>

#include "pipeline.h"

#define CFQX_LIMIT_BITS		12
#define CFQX_LIMIT_SLOTS	(1u << CFQX_LIMIT_BITS)	/* per table */
#define CFQX_LIMIT_PROBE	8

struct cfqx_incident_slot;
struct cfqx_rate_slot;

struct cfqx_incidents {
	struct cfqx_incident_slot *slots;
	uint64_t clock;				/* LRU clock */
	char closed[CFQX_UUID_LEN + 1];		/* scratch for idle/policy */
};

struct cfqx_rates {
	struct cfqx_rate_slot *slots;
	uint64_t clock;
	uint64_t global_tat;
	unsigned int rate, burst, global_rate;
};

int cfqx_incidents_init(struct cfqx_incidents *t);
void cfqx_incidents_free(struct cfqx_incidents *t);
/*
 * The incident UUID of ev (valid until the next call); counts new
 * incidents and evictions in c.
 */
const char *cfqx_incident_of(struct cfqx_incidents *t,
			     const struct cfqx_event *ev,
			     struct cfqx_pipe_counters *c);

int cfqx_rates_init(struct cfqx_rates *t, unsigned int rate,
		    unsigned int burst, unsigned int global_rate);
void cfqx_rates_free(struct cfqx_rates *t);

/*
 * One notification for ev on dev at now_ns.  Admitted: both states are
 * spent and the key's slot is returned, *pending holding what the key
 * suppressed since its last notification (call cfqx_rate_sent() on the
 * slot once it went out).  Refused: NULL, nothing spent, and the event is
 * added to the key's pending count.
 */
struct cfqx_rate_slot *cfqx_rate_admit(struct cfqx_rates *t,
				       const struct cfqx_event *ev,
				       uint32_t dev, uint64_t now_ns,
				       uint64_t *pending,
				       struct cfqx_pipe_counters *c);
/* The admitted notification went out: the slot's pending count is spent. */
void cfqx_rate_sent(struct cfqx_rate_slot *s);

#endif /* CFQX_PIPELINE_LIMIT_H */
