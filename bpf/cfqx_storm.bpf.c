// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only event generator for the cfqx event pipeline: on each getppid()
 * of the test process (target_tgid) it writes per_trigger struct
 * cfqx_event records with bpf_loop into the "events" ring buffer it
 * shares with cfqx (the loader reuses the pinned map with
 * bpf_map__reuse_fd), so the storm and benchmark tests can push millions
 * of events through ring buffer -> kfifo -> sinks.  It can also write bad
 * records (short records, a wrong size field, unknown kinds) to check
 * that the daemon counts and skips them.  Every record it tries ends in
 * exactly one of its counters; reserve failures also go to the shared
 * stats map (CFQX_STAT_RB_DROPS) like cfqx's own.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "cfqx_shared.bpf.h"	/* events, stats: cfqx's own */

char LICENSE[] SEC("license") = "GPL";

/* Set by the test before each trigger. */
__u32 target_tgid;
__u32 per_trigger;		/* records per getppid() */
__u32 short_every;		/* every Nth record is 40 bytes long (0: never) */
__u32 badsize_every;		/* every Nth has a wrong size field */
__u32 unknown_every;		/* every Nth has kind 200 */
__u32 kind = CFQX_EV_BUSY;	/* kind of the good records */
__u32 dev;
__u32 groups = 1;		/* ids cycle through 1000 .. 1000+groups-1 */
__u64 pace_bytes;		/* stop a trigger early above this much unread
				 * data (0: never: overfill and drop) */

/* Outcomes, one per record tried: tried == written + rb_drops. */
__u64 tried, written, rb_drops;
__u64 written_short, written_badsize, written_unknown;

struct short_rec {
	__u16 kind;
	__u16 size;
	__u32 dev;
	__u64 pad[4];
};

static void count_drop(void)
{
	stat_inc(CFQX_STAT_RB_DROPS);
	__sync_fetch_and_add(&rb_drops, 1);
}

static int one_record(__u64 i, void *ctx)
{
	struct cfqx_event *e;
	__u64 n;

	if (pace_bytes &&
	    bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) > pace_bytes)
		return 1;	/* stop this trigger: the reader is behind */
	n = __sync_fetch_and_add(&tried, 1) + 1;
	if (short_every && n % short_every == 0) {
		struct short_rec *s = bpf_ringbuf_reserve(&events, sizeof(*s), 0);

		if (!s) {
			count_drop();
			return 0;
		}
		__builtin_memset(s, 0, sizeof(*s));
		s->kind = kind;
		s->size = sizeof(*s);
		s->dev = dev;
		bpf_ringbuf_submit(s, 0);
		__sync_fetch_and_add(&written, 1);
		__sync_fetch_and_add(&written_short, 1);
		return 0;
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count_drop();
		return 0;
	}
	cfqx_event_fill(e, kind, dev, CFQX_BY_TGID, 0,
			1000 + (groups ? n % groups : 0),
			n,	/* sequence number: lets a test spot loss */
			i, 0, bpf_ktime_get_ns());
	if (badsize_every && n % badsize_every == 0) {
		e->size = 0xbad;
		__sync_fetch_and_add(&written_badsize, 1);
	} else if (unknown_every && n % unknown_every == 0) {
		e->kind = 200;
		__sync_fetch_and_add(&written_unknown, 1);
	}
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	__sync_fetch_and_add(&written, 1);
	return 0;
}

SEC("tp/syscalls/sys_enter_getppid")
int storm(void *ctx)
{
	if ((__u32)(bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	bpf_loop(per_trigger, one_record, NULL, 0);
	return 0;
}
