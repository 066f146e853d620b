// SPDX-License-Identifier: GPL-2.0
/*
 * One simulated run: a discrete-event loop over a virtual clock (ns) that
 * plays a job file's processes against a device model through one of two
 * schedulers, the way blk-mq would:
 *
 *   fifo  `none`: a request takes a driver tag when it is allocated (the
 *         process sleeps when all are taken) and is issued at once; one
 *         the device refuses waits, in order, on the dispatch list.
 *   cfqx  the real scheduling core (sched/cfqx-sched.c), driven like the
 *         kernel glue drives it: allocation needs one of nr_requests
 *         scheduler tags (2 * min(tags, 128), as blk_mq_init_sched sets
 *         it) and cfqx_sched_may_queue() for the group, else the process
 *         sleeps until a completion lets it in; every insert is followed
 *         by a queue run; a queue run first re-offers refused requests,
 *         then, while the device has a free tag and cfqx_sched_has_work(),
 *         calls cfqx_sched_dispatch(), arming a timer at the *wake_at it
 *         returns with nothing; every completion calls
 *         cfqx_sched_complete() and runs the queue.  An insert, a
 *         completion or the timer that finds the queue stopped (the
 *         device refused a request) tells cfqx_sched_stopped(), as the
 *         module's glue does.
 *
 * A busy host: --freeze stands the guest (or each vCPU) still now and
 * then, --cpu-delay puts off what runs asynchronously (kblockd's queue
 * runs, completion handling, woken processes) by a CPU's wait.
 *
 * Events at the same instant run in the order they were posted (a
 * sequence number breaks ties), all randomness comes from per-process
 * splitmix64 streams seeded from --seed and the process's index, so a run
 * is a pure function of its inputs.  A process sees a group alone exactly
 * as in the mix: its random stream does not depend on the others.
 */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "../sched/cfqx-sched.h"

enum { EV_DONE, EV_READY, EV_DEVTIMER, EV_WAKE, EV_RERUN };

struct ev {
	sim_u64 t, seq;
	int type;
	void *p;
};

struct sim_proc;

struct sim_rq {
	struct cfqx_sched_rq core;
	struct sim_proc *p;
	struct sim_rq *next;		/* ready list or dispatch list */
	sim_u64 sector, bytes;
	bool write, sync;
	sim_u64 t_ready;		/* the process wants it issued */
	sim_u64 cost_ns;
	bool filled;			/* decided, waiting for a tag */
};

struct sim_grp {
	struct cfqx_sched_group core;
	struct sim_group_res *res;
	sim_u64 *lat;
	size_t nlat, caplat;
};

struct sim_proc {
	const struct sim_job *job;
	struct sim_grp *g;
	sim_u64 rng;
	struct sim_rq *slots;
	unsigned depth;
	struct sim_rq *ready, **ready_tail;
	sim_u64 start, len;		/* region, bytes */
	sim_u64 pos[2];			/* sequential position per direction */
	sim_u64 issued;
	sim_u64 stop_at;
	bool blocked, finished;
	sim_u64 blocked_since;
	struct sim_proc *wnext;
};

struct sim {
	const struct sim_opts *o;
	struct sim_res *r;
	struct sim_dev dev;
	struct cfqx_sched core;
	struct ev *heap;
	size_t nheap, capheap;
	sim_u64 now, seq, end;
	struct sim_rq *disp, **disp_tail;
	bool stopped, stalled;
	unsigned dispatch_busy;
	unsigned alloc, nr_requests;
	struct sim_proc *wait, **wait_tail;
	sim_u64 wake_at, rerun_at;
	sim_u64 wake_due;		/* wake_at as armed (before a freeze) */
	/* --freeze: each vCPU's next stop */
	sim_u64 freeze_at[SIM_MAX_VCPUS], thaw_at[SIM_MAX_VCPUS];
	sim_u64 freeze_rng[SIM_MAX_VCPUS];
	sim_u64 delay_rng;			/* --cpu-delay's lengths */
	struct sim_grp *groups;
	int ngroups;
	struct sim_proc *procs;
	int nprocs;
	bool oom;
};

/* ---- event heap, ordered by (time, sequence) ------------------------ */

static bool ev_before(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void post(struct sim *s, sim_u64 t, int type, void *p)
{
	struct ev e = { t, s->seq++, type, p };
	size_t i;

	if (s->nheap == s->capheap) {
		size_t cap = s->capheap ? s->capheap * 2 : 1024;
		struct ev *h = realloc(s->heap, cap * sizeof(*h));

		if (!h) {
			s->oom = true;
			return;
		}
		s->heap = h;
		s->capheap = cap;
	}
	i = s->nheap++;
	while (i && ev_before(&e, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = e;
}

static struct ev pop(struct sim *s)
{
	struct ev top = s->heap[0], last = s->heap[--s->nheap];
	size_t i = 0, c;

	while ((c = 2 * i + 1) < s->nheap) {
		if (c + 1 < s->nheap && ev_before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!ev_before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* A length about @mean: uniform in [mean / 2, 3 mean / 2]. */
static sim_u64 about(sim_u64 *rng, sim_u64 mean)
{
	return mean / 2 + sim_rand(rng) % (mean + 1);
}

/*
 * --cpu-delay D: how long an asynchronous context (a kblockd queue run, a
 * process woken by its completion) waits for a CPU; 0 without.  Three in
 * four find one at once (about D/8); one in four waits about 7D/2 (its
 * vCPU was taken away): D on average, and a recent minimum that says
 * nothing of the mean, as on a busy host.
 */
static sim_u64 cpu_delay(struct sim *s)
{
	sim_u64 d = s->o->cpu_delay_ns;

	if (!d)
		return 0;
	if (sim_rand(&s->delay_rng) % 4)
		return about(&s->delay_rng, d / 8);
	return about(&s->delay_rng, d * 7 / 2);
}

/* The vCPUs --freeze stands still, each on its own. */
static unsigned freeze_vcpus(const struct sim_opts *o)
{
	return o->freeze_cpus ? o->freeze_cpus : 1;
}

/* ---- device ----------------------------------------------------------- */

/* The device refused a request and its queue stands stopped: the glue
 * tells the core where it finds that (an insert, a completion, its
 * timer), cfqx_note_stopped() in the module. */
static void note_stopped(struct sim *s)
{
	if (s->stopped)
		cfqx_sched_stopped(&s->core);
}

/* queue_rq: 0 accepted (completion posted), 1 refused. */
static int dev_try(struct sim *s, struct sim_rq *rq)
{
	sim_u64 done, timer;
	int rc;

	rc = sim_dev_submit(&s->dev, s->now, rq->sector, rq->bytes, rq->write,
			    &done, &rq->cost_ns, &timer);
	if (timer)
		post(s, timer, EV_DEVTIMER, NULL);
	if (rc) {
		s->r->refused++;
		return 1;
	}
	/* the completion's interrupt handling waits for a CPU too */
	post(s, done + cpu_delay(s), EV_DONE, rq);
	return 0;
}

static void disp_append(struct sim *s, struct sim_rq *rq)
{
	rq->next = NULL;
	*s->disp_tail = rq;
	s->disp_tail = &rq->next;
}

static void arm_wake(struct sim *s, sim_u64 at)
{
	if (at <= s->now)
		at = s->now + SIM_NS_PER_US;	/* never spin at one instant */
	if (s->wake_at && s->wake_at <= at)
		return;
	s->wake_at = at;
	s->wake_due = at;
	post(s, at, EV_WAKE, NULL);
}

/*
 * Issue @list's requests in order while the device has tags (blk-mq's
 * blk_mq_dispatch_rq_list); what is left (no tag, or refused: the queue
 * stops) goes to the tail of the dispatch list.  True if all went.
 */
static bool issue_list(struct sim *s, struct sim_rq *list)
{
	struct sim_rq *rq;

	while (list) {
		if (!sim_dev_can_take(&s->dev))
			break;
		if (dev_try(s, list)) {
			s->stopped = true;
			break;
		}
		list = list->next;
	}
	for (; list; list = rq) {
		rq = list->next;
		disp_append(s, list);
	}
	return !s->disp;
}

/* blk_mq_update_dispatch_busy(): an EWMA, weight 8, factor 16. */
static void dispatch_busy(struct sim *s, bool busy)
{
	if (!s->dispatch_busy && !busy)
		return;
	s->dispatch_busy = (s->dispatch_busy * 7 + (busy ? 16 : 0)) / 8;
}

static void arm_rerun(struct sim *s, sim_u64 at)
{
	if (s->rerun_at && s->rerun_at <= at)
		return;
	s->rerun_at = at;
	post(s, at, EV_RERUN, NULL);
}

/*
 * blk_mq_run_hw_queue() with an elevator (blk_mq_sched_dispatch_requests):
 * the dispatch list first; only when it is empty the scheduler, in
 * batches (__blk_mq_do_dispatch_sched): while has_work(), dispatch one
 * request and take a driver tag for it, stopping at the first that gets
 * none (it waits on the dispatch list), at most nr_requests at a time (1
 * while dispatch_busy); then issue the batch.  A first dispatch that
 * returns nothing after has_work() said yes re-runs the queue 3 ms later
 * (BLK_MQ_BUDGET_DELAY); a *wake_at arms the glue's idle timer.
 */
static void run_queue(struct sim *s)
{
	struct cfqx_sched_rq *c;
	struct sim_rq *batch, **tail;
	sim_u64 wake;
	unsigned count, max, tags;
	bool empty;

	if (s->stopped)
		return;
	if (s->disp) {
		struct sim_rq *list = s->disp;

		s->disp = NULL;
		s->disp_tail = &s->disp;
		empty = issue_list(s, list);
		dispatch_busy(s, !empty);
		if (!empty)
			return;
	}
	if (s->o->sched != SIM_SCHED_CFQX)
		return;
	for (;;) {
		batch = NULL;
		tail = &batch;
		count = 0;
		tags = (unsigned)(s->dev.cfg.depth - s->dev.busy);
		max = s->dispatch_busy ? 1 : s->nr_requests;
		do {
			if (!cfqx_sched_has_work(&s->core)) {
				wake = cfqx_sched_wake_at(&s->core);
				if (wake)
					arm_wake(s, wake);
				break;
			}
			wake = 0;
			c = cfqx_sched_dispatch(&s->core, &s->o->policy, s->now,
						&wake);
			if (!c) {
				if (wake)
					arm_wake(s, wake);
				if (!count)
					arm_rerun(s, s->now + 3 * SIM_NS_PER_MS);
				break;
			}
			s->stalled = false;
			*tail = c->owner;
			(*tail)->next = NULL;
			tail = &(*tail)->next;
			if (++count > tags)
				break;	/* no driver tag for it */
		} while (count < max);
		if (!batch)
			break;
		empty = issue_list(s, batch);
		dispatch_busy(s, !empty);
		if (!empty)
			break;
	}
	/* queued work, an idle device and nothing that will run the queue:
	 * the kernel would leave it waiting for an unrelated event */
	if (s->core.nr_queued && !s->dev.busy && !s->disp && !s->wake_at &&
	    !s->rerun_at && !s->stopped && !s->stalled) {
		s->stalled = true;
		s->r->stalls++;
	}
}

/* A queue run handed to kblockd (blk-mq's restart, the glue's timer):
 * it waits for a CPU under --cpu-delay, else runs at once. */
static void run_queue_async(struct sim *s)
{
	if (s->o->cpu_delay_ns)
		arm_rerun(s, s->now + cpu_delay(s));
	else
		run_queue(s);
}

/* ---- processes ------------------------------------------------------- */

/* A tag for @rq: a driver tag (none), or a scheduler tag that
 * cfqx_sched_may_queue() grants the group. */
static bool may_alloc(struct sim *s, struct sim_proc *p,
		      const struct sim_rq *rq)
{
	if (s->o->sched != SIM_SCHED_CFQX)
		return s->alloc < s->dev.cfg.depth;
	return s->alloc < s->nr_requests &&
		cfqx_sched_may_queue(&s->core, &p->g->core, rq->write,
				     &s->o->policy, s->nr_requests);
}

static void block(struct sim *s, struct sim_proc *p)
{
	p->blocked = true;
	p->blocked_since = s->now;
	p->wnext = NULL;
	*s->wait_tail = p;
	s->wait_tail = &p->wnext;
}

static void fill(struct sim_proc *p, struct sim_rq *rq)
{
	const struct sim_job *j = p->job;
	sim_u64 off;
	int dir;

	if (j->read_pct >= 100)
		dir = 0;
	else if (j->read_pct == 0)
		dir = 1;
	else
		dir = sim_rand(&p->rng) % 100 < j->read_pct ? 0 : 1;
	if (j->random) {
		off = sim_rand(&p->rng) % (p->len / j->bs) * j->bs;
	} else {
		off = p->pos[dir];
		p->pos[dir] += j->bs;
		if (p->pos[dir] + j->bs > p->len)
			p->pos[dir] = 0;
	}
	rq->filled = true;
	rq->write = dir;
	rq->sync = !dir || j->direct;
	rq->bytes = j->bs;
	rq->sector = (p->start + off) / SIM_SECTOR;
	p->issued += j->bs;
	if (!j->time_based && p->issued >= p->len)
		p->finished = true;
}

static void submit(struct sim *s, struct sim_rq *rq)
{
	if (s->o->sched == SIM_SCHED_CFQX) {
		/* prepare_request, then insert_requests */
		cfqx_sched_rq_init(&s->core, &rq->core, &rq->p->g->core,
				   rq->sector,
				   (u32)(rq->bytes / SIM_SECTOR), rq->sync,
				   rq->write, rq);
		note_stopped(s);
		cfqx_sched_insert(&s->core, &rq->core, &s->o->policy, s->now);
		run_queue(s);
		return;
	}
	/* none: issue directly unless stopped or others wait before it */
	if (s->stopped || s->disp) {
		disp_append(s, rq);
	} else if (dev_try(s, rq)) {
		s->stopped = true;
		disp_append(s, rq);
	}
}

static void proc_issue(struct sim *s, struct sim_proc *p)
{
	struct sim_rq *rq;

	while (p->ready && !p->blocked) {
		rq = p->ready;
		if (!rq->filled) {
			if (p->finished || s->now >= p->stop_at) {
				p->finished = true;
				p->ready = NULL;
				p->ready_tail = &p->ready;
				return;
			}
			fill(p, rq);
		}
		/* the request is decided; it waits for a tag if need be */
		if (!may_alloc(s, p, rq)) {
			block(s, p);
			return;
		}
		p->ready = rq->next;
		if (!p->ready)
			p->ready_tail = &p->ready;
		rq->filled = false;
		s->alloc++;
		submit(s, rq);
	}
}

static void make_ready(struct sim_proc *p, struct sim_rq *rq, sim_u64 now)
{
	rq->t_ready = now;
	rq->next = NULL;
	*p->ready_tail = rq;
	p->ready_tail = &rq->next;
}

/* Tags or admission freed: let sleeping processes retry, in order. */
static void wake_waiters(struct sim *s)
{
	struct sim_proc *p = s->wait, *next, *keep = NULL, **keep_tail = &keep;

	s->wait = NULL;
	s->wait_tail = &s->wait;
	for (; p; p = next) {
		next = p->wnext;
		p->wnext = NULL;
		if (may_alloc(s, p, p->ready)) {
			if (s->now - p->blocked_since > s->r->max_blocked_ns)
				s->r->max_blocked_ns = s->now - p->blocked_since;
			p->blocked = false;
			proc_issue(s, p);	/* may sleep again: on s->wait */
		} else {
			*keep_tail = p;
			keep_tail = &p->wnext;
		}
	}
	if (keep) {
		*keep_tail = s->wait;
		if (!s->wait)
			s->wait_tail = keep_tail;
		s->wait = keep;
	}
}

static void account(struct sim *s, struct sim_rq *rq)
{
	struct sim_grp *g = rq->p->g;
	struct sim_group_res *res = g->res;
	sim_u64 lat = s->now - rq->t_ready;

	res->bytes += rq->bytes;
	res->ios++;
	res->dev_ns += rq->cost_ns;
	if (lat > res->lat_max)
		res->lat_max = lat;
	if (rq->sync && !rq->write) {
		res->sync_reads++;
		if (lat > res->sync_read_lat_max)
			res->sync_read_lat_max = lat;
	}
	if (!s->o->latencies)
		return;
	if (g->nlat == g->caplat) {
		size_t cap = g->caplat ? g->caplat * 2 : 4096;
		sim_u64 *l = realloc(g->lat, cap * sizeof(*l));

		if (!l) {
			s->oom = true;
			return;
		}
		g->lat = l;
		g->caplat = cap;
	}
	g->lat[g->nlat++] = lat;
}

static void complete(struct sim *s, struct sim_rq *rq)
{
	struct sim_proc *p = rq->p;

	sim_dev_complete(&s->dev);
	if (s->o->sched == SIM_SCHED_CFQX) {
		/* finish_request: complete, then release */
		note_stopped(s);
		cfqx_sched_complete(&s->core, &rq->core, &s->o->policy, s->now);
		cfqx_sched_release(&s->core, &rq->core);
	}
	s->alloc--;
	if (s->now <= s->end)
		account(s, rq);
	if (p->job->thinktime_ns || s->o->cpu_delay_ns) {
		/* the process runs again once woken (and its think time) */
		rq->t_ready = s->now + cpu_delay(s) + p->job->thinktime_ns;
		post(s, rq->t_ready, EV_READY, rq);
	} else {
		make_ready(p, rq, s->now);
	}
	wake_waiters(s);
	/* blk-mq's restart runs the queue from kblockd */
	run_queue_async(s);
	proc_issue(s, p);
}

/* ---- set-up ----------------------------------------------------------- */

static void group_name(const struct sim_jobfile *jf, const struct sim_proc_id *id,
		       unsigned by, char *buf, size_t len)
{
	const struct sim_job *j = &jf->jobs[id->job];

	switch (by) {
	case CFQX_BY_TGID:
		if (j->numjobs > 1)
			snprintf(buf, len, "%s.%u", j->name, id->clone);
		else
			snprintf(buf, len, "%s", j->name);
		break;
	case CFQX_BY_PGID:
		snprintf(buf, len, "%s", j->name);
		break;
	case CFQX_BY_UID:
		snprintf(buf, len, "uid %llu", (unsigned long long)id->uid);
		break;
	case CFQX_BY_GID:
		snprintf(buf, len, "gid %llu", (unsigned long long)id->gid);
		break;
	default:
		snprintf(buf, len, "cgroup /%s",
			 strcmp(j->cgroup, "/") ? j->cgroup : "");
		break;
	}
}

static int setup(struct sim *s, const struct sim_opts *o, struct sim_res *r,
		 char *err, size_t errlen)
{
	const struct sim_jobfile *jf = o->jf;
	struct sim_proc_id *ids;
	sim_u64 *keys, end = 0;
	bool all_timed = true;
	int n, i, k, ng = 0;

	n = sim_procs(jf, &ids);
	if (n < 0) {
		snprintf(err, errlen, "more than 1024 processes (numjobs)");
		return -1;
	}
	keys = calloc(n, sizeof(*keys));
	s->groups = calloc(n, sizeof(*s->groups));
	r->g = calloc(n, sizeof(*r->g));
	s->procs = calloc(n, sizeof(*s->procs));
	if (!keys || !s->groups || !r->g || !s->procs) {
		free(ids);
		free(keys);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct sim_job *j = &jf->jobs[ids[i].job];
		sim_u64 key = sim_proc_key(&ids[i], o->policy.group_by);
		struct sim_group_res *res;

		if (j->time_based && !j->runtime_ns) {
			snprintf(err, errlen, "job '%s' (line %d): time_based needs runtime",
				 j->name, j->line);
			goto fail;
		}
		if (j->offset >= o->dev.size ||
		    (j->size ? j->size : o->dev.size - j->offset) >
		    o->dev.size - j->offset ||
		    (j->size ? j->size : o->dev.size - j->offset) < j->bs) {
			snprintf(err, errlen, "job '%s' (line %d): offset+size is beyond the device's %llu bytes, or smaller than bs",
				 j->name, j->line,
				 (unsigned long long)o->dev.size);
			goto fail;
		}
		for (k = 0; k < ng && keys[k] != key; k++)
			;
		if (k == ng) {
			keys[ng] = key;
			res = &r->g[ng];
			s->groups[ng].res = res;
			group_name(jf, &ids[i], o->policy.group_by, res->name,
				   sizeof(res->name));
			res->key = key;
			res->min_bs = res->max_bs = j->bs;
			res->sequential = true;
			ng++;
		}
		res = &r->g[k];
		res->nprocs++;
		if (!j->runtime_ns)
			res->window_ns = UINT64_MAX;
		else if (res->window_ns < j->runtime_ns)
			res->window_ns = j->runtime_ns;
		if (j->bs < res->min_bs)
			res->min_bs = j->bs;
		if (j->bs > res->max_bs)
			res->max_bs = j->bs;
		if (j->random)
			res->sequential = false;
		if (sim_job_depth(j) > res->max_depth)
			res->max_depth = sim_job_depth(j);
		if (o->only_group >= 0 && o->only_group != k)
			continue;
		s->procs[s->nprocs].job = j;
		s->procs[s->nprocs].g = &s->groups[k];
		s->procs[s->nprocs].rng = o->seed + 0x632be59bd9b4e019ULL *
			(sim_u64)(i + 1);
		s->nprocs++;
		if (!j->runtime_ns)
			all_timed = false;
		else if (j->runtime_ns > end)
			end = j->runtime_ns;
	}
	free(ids);
	free(keys);
	s->ngroups = r->ngroups = ng;
	s->end = all_timed ? end : UINT64_MAX;
	return 0;
fail:
	free(ids);
	free(keys);
	return -1;
}

static int start_procs(struct sim *s)
{
	int i;
	unsigned d;

	for (i = 0; i < s->nprocs; i++) {
		struct sim_proc *p = &s->procs[i];
		const struct sim_job *j = p->job;

		p->depth = sim_job_depth(j);
		p->slots = calloc(p->depth, sizeof(*p->slots));
		if (!p->slots)
			return -1;
		p->ready = NULL;
		p->ready_tail = &p->ready;
		p->start = j->offset;
		p->len = j->size ? j->size : s->dev.cfg.size - j->offset;
		p->stop_at = j->runtime_ns ? j->runtime_ns : UINT64_MAX;
		for (d = 0; d < p->depth; d++) {
			p->slots[d].p = p;
			make_ready(p, &p->slots[d], 0);
		}
	}
	return 0;
}

static sim_u64 pct(const sim_u64 *v, size_t n, unsigned p)
{
	size_t k = (n * p + 99) / 100;

	return n ? v[k ? k - 1 : 0] : 0;
}

/* vCPU @c's next stand-still after the one that ends at thaw_at[c]. */
static void next_freeze(struct sim *s, unsigned c)
{
	s->freeze_at[c] = s->thaw_at[c] +
		about(&s->freeze_rng[c], s->o->freeze_run_ns);
	s->thaw_at[c] = s->freeze_at[c] +
		about(&s->freeze_rng[c], s->o->freeze_stop_ns);
}

/* The vCPU event @e runs on: a process's own events on its vCPU, the
 * device's and the core's on vCPU 0. */
static unsigned event_cpu(const struct sim *s, const struct ev *e)
{
	const struct sim_rq *rq = e->p;

	if (s->o->freeze_cpus < 2 ||
	    (e->type != EV_DONE && e->type != EV_READY))
		return 0;
	return (unsigned)(rq->p - s->procs) % s->o->freeze_cpus;
}

/*
 * --freeze: an event due while its vCPU stands still is put off to when
 * it runs again (in the order it was due: the heap pops by time and
 * sequence, and re-posting keeps that order).  True if @e was put off.
 */
static bool frozen(struct sim *s, const struct ev *e)
{
	unsigned c, n = freeze_vcpus(s->o);

	if (!s->o->freeze_stop_ns)
		return false;
	for (c = 0; c < n; c++)
		while (e->t >= s->thaw_at[c]) {
			s->r->frozen_ns += (s->thaw_at[c] -
					    s->freeze_at[c]) / n;
			next_freeze(s, c);
		}
	c = event_cpu(s, e);
	if (e->t < s->freeze_at[c])
		return false;
	if (e->type == EV_WAKE && e->t == s->wake_at)
		s->wake_at = s->thaw_at[c];
	if (e->type == EV_RERUN && e->t == s->rerun_at)
		s->rerun_at = s->thaw_at[c];
	post(s, s->thaw_at[c], e->type, e->p);
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	sim_u64 x = *(const sim_u64 *)a, y = *(const sim_u64 *)b;

	return x < y ? -1 : x > y;
}

int sim_run(const struct sim_opts *o, struct sim_res *r, char *err,
	    size_t errlen)
{
	struct sim s;
	sim_u64 last = 0, t;
	int i, rc = -1;

	memset(r, 0, sizeof(*r));
	memset(&s, 0, sizeof(s));
	s.o = o;
	s.r = r;
	s.disp_tail = &s.disp;
	s.wait_tail = &s.wait;
	if (setup(&s, o, r, err, errlen))
		goto out;
	if (sim_dev_init(&s.dev, &o->dev) || start_procs(&s)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (o->sched == SIM_SCHED_CFQX) {
		struct cfqx_sched_device d = {
			.tags = (u32)o->dev.depth,
			.rotational = o->dev.model == SIM_HDD,
		};

		cfqx_sched_init(&s.core, &d);
		for (i = 0; i < s.ngroups; i++)
			cfqx_sched_group_init(&s.groups[i].core);
		s.nr_requests = 2 * (o->dev.depth < 128 ? o->dev.depth : 128);
	}
	t = sim_dev_first_timer(&s.dev);
	if (t)
		post(&s, t, EV_DEVTIMER, NULL);
	s.delay_rng = o->seed ^ 0x9e3779b97f4a7c15ULL;
	if (o->freeze_stop_ns) {
		unsigned c;

		for (c = 0; c < freeze_vcpus(o); c++) {
			s.freeze_rng[c] = (o->seed + c) ^ 0x5bd1e9955bd1e995ULL;
			next_freeze(&s, c);
		}
	}
	for (i = 0; i < s.nprocs; i++)
		proc_issue(&s, &s.procs[i]);
	while (s.nheap && !s.oom) {
		struct ev e = pop(&s);

		if (e.t > s.end)
			break;
		if (frozen(&s, &e))
			continue;
		s.now = e.t;
		r->events++;
		switch (e.type) {
		case EV_DONE:
			last = e.t;
			complete(&s, e.p);
			break;
		case EV_READY: {
			struct sim_rq *rq = e.p;

			make_ready(rq->p, rq, s.now);
			proc_issue(&s, rq->p);
			break;
		}
		case EV_DEVTIMER:
			if (sim_dev_timer(&s.dev, s.now, &t)) {
				s.stopped = false;
				run_queue(&s);
			}
			if (t)
				post(&s, t, EV_DEVTIMER, NULL);
			break;
		case EV_WAKE:
			/* the glue's idle timer: a window ends, the core
			 * decides again, the queue runs */
			if (e.t == s.wake_at) {
				s.wake_at = 0;
				note_stopped(&s);
				cfqx_sched_tick(&s.core, &s.o->policy, s.now,
						s.wake_due);
				run_queue_async(&s);
			}
			break;
		case EV_RERUN:
			if (e.t == s.rerun_at) {
				s.rerun_at = 0;
				run_queue(&s);
			}
			break;
		}
		/* only the throttle timer left: every process is done */
		if (s.nheap == 1 && s.heap[0].type == EV_DEVTIMER &&
		    s.end == UINT64_MAX && !s.alloc)
			break;
	}
	if (s.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	r->duration_ns = s.end != UINT64_MAX ? s.end : last;
	if (getenv("CFQX_SIM_DEBUG")) {

		fprintf(stderr, "V %llu depth %u lat_min %llu\n",
			(unsigned long long)s.core.vclock >> 8, s.core.depth,
			(unsigned long long)s.core.lat_min_ns);
		for (i = 0; i < s.ngroups; i++)
			fprintf(stderr, "g%d vtime %llu dispatched %llu\n", i,
				(unsigned long long)s.groups[i].core.vtime >> 8,
				(unsigned long long)s.groups[i].core.dispatched);
	}
	r->core_depth = s.core.depth;
	r->core_lat_min_ns = s.core.lat_min_ns;
	r->core_capacity_kib_s = cfqx_sched_capacity_kib_s(&s.core);
	r->core_pace_kib_s = cfqx_sched_pace_kib_s(&s.core);
	r->core_st = s.core.st;
	for (i = 0; i < s.ngroups; i++) {
		struct sim_grp *g = &s.groups[i];

		if (g->res->window_ns > r->duration_ns)
			g->res->window_ns = r->duration_ns;
		if (g->nlat)
			qsort(g->lat, g->nlat, sizeof(*g->lat), cmp_u64);
		g->res->lat_p50 = pct(g->lat, g->nlat, 50);
		g->res->lat_p99 = pct(g->lat, g->nlat, 99);
	}
	rc = 0;
out:
	for (i = 0; i < s.ngroups; i++)
		free(s.groups[i].lat);
	for (i = 0; i < s.nprocs; i++)
		free(s.procs[i].slots);
	free(s.procs);
	free(s.groups);
	free(s.heap);
	sim_dev_free(&s.dev);
	if (rc)
		sim_res_free(r);
	return rc;
}

void sim_res_free(struct sim_res *r)
{
	free(r->g);
	r->g = NULL;
	r->ngroups = 0;
}
