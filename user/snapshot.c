// SPDX-License-Identifier: GPL-2.0
/*
 * Reads the pinned maps into a struct cfqx_snapshot for `stats` and `top`,
 * and gives each group a human name: user and group names, process names
 * for tgid/pgid (from /proc, or the last submitter's comm once it exited),
 * cgroup paths (cgroup v2 ids are the directory inode numbers).
 */
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cfqx.h"

static void read_comm(__u64 pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%llu/comm", (unsigned long long)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* cgroup2 mount point from /proc/mounts ("" if none). */
static void cgroup2_root(char *buf, size_t len)
{
	char dev[256], mnt[256], type[64];
	FILE *f = fopen("/proc/mounts", "r");

	buf[0] = 0;
	if (!f)
		return;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, mnt, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", mnt);
			break;
		}
	}
	fclose(f);
}

static __u64 want_cgid;
static char *found_cgpath;
static size_t found_cglen, cgroot_len;

static int cg_visit(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && st->st_ino == want_cgid) {
		snprintf(found_cgpath, found_cglen, "%s",
			 path[cgroot_len] ? path + cgroot_len : "/");
		return 1;
	}
	return 0;
}

static void cgroup_path(__u64 id, char *buf, size_t len)
{
	char root[256];

	buf[0] = 0;
	cgroup2_root(root, sizeof(root));
	if (!root[0])
		return;
	want_cgid = id;
	found_cgpath = buf;
	found_cglen = len;
	cgroot_len = strlen(root);
	nftw(root, cg_visit, 16, FTW_PHYS | FTW_MOUNT);
}

static void name_group(struct cfqx_group_row *g)
{
	struct passwd *pw;
	struct group *gr;

	g->name[0] = 0;
	g->cgroup[0] = 0;
	if (g->key.flags & CFQX_GF_RETIRED) {
		snprintf(g->name, sizeof(g->name), "retired");
		return;
	}
	if (g->key.flags & CFQX_GF_KTHREAD) {
		read_comm(g->key.id, g->name, sizeof(g->name));
		if (!g->name[0])
			snprintf(g->name, sizeof(g->name), "%.15s", g->st.comm);
		return;
	}
	switch (g->key.group_by) {
	case CFQX_BY_UID:
		pw = getpwuid((uid_t)g->key.id);
		if (pw)
			snprintf(g->name, sizeof(g->name), "%s", pw->pw_name);
		break;
	case CFQX_BY_GID:
		gr = getgrgid((gid_t)g->key.id);
		if (gr)
			snprintf(g->name, sizeof(g->name), "%s", gr->gr_name);
		break;
	case CFQX_BY_CGROUP:
		cgroup_path(g->key.id, g->cgroup, sizeof(g->cgroup));
		snprintf(g->name, sizeof(g->name), "%s", g->cgroup);
		break;
	default:	/* tgid, pgid: the process (leader) name */
		read_comm(g->key.id, g->name, sizeof(g->name));
		if (!g->name[0])
			snprintf(g->name, sizeof(g->name), "%.15s", g->st.comm);
		break;
	}
}

static int by_key(const void *a, const void *b)
{
	const struct cfqx_group_row *x = a, *y = b;

	if (x->key.dev != y->key.dev)
		return x->key.dev < y->key.dev ? -1 : 1;
	if (x->key.flags != y->key.flags)
		return x->key.flags < y->key.flags ? -1 : 1;
	if (x->key.group_by != y->key.group_by)
		return x->key.group_by < y->key.group_by ? -1 : 1;
	return x->key.id < y->key.id ? -1 : x->key.id > y->key.id;
}

static int dev_by_num(const void *a, const void *b)
{
	const struct cfqx_dev_row *x = a, *y = b;

	return x->dev < y->dev ? -1 : x->dev > y->dev;
}

/*
 * Add every CPU's copy of entry @idx of per-CPU array @fd (values of
 * @size bytes) to the view in @out with @add; -1 if it cannot be read.
 */
static int add_percpu(int fd, __u32 idx, void *vals, size_t size, int ncpu,
		      void (*add)(void *out, const void *val), void *out)
{
	size_t stride = (size + 7) & ~(size_t)7;
	int c;

	if (bpf_map_lookup_elem(fd, &idx, vals))
		return -1;
	for (c = 0; c < ncpu; c++)
		add(out, (const char *)vals + c * stride);
	return 0;
}

static void add_group(void *out, const void *val)
{
	cfqx_group_counts_add(out, val, 1);
}

static void sub_group_base(void *out, const void *val)
{
	cfqx_group_counts_add(out, val, -1);
}

static void add_dev(void *out, const void *val)
{
	cfqx_dev_counts_add(out, val);
}

int cfqx_snapshot_read(struct cfqx_snapshot *s)
{
	__u32 idx;
	struct timespec ts;
	int gfd = -1, dfd = -1, ffd = -1, gcfd = -1, dcfd = -1, lfd = -1;
	int gbfd = -1;
	int cap, ret = -1;
	int ncpu = libbpf_num_possible_cpus();
	void *vals = NULL;
	__u32 dkey;

	memset(s, 0, sizeof(*s));
	if (cfqx_read_policy(&s->policy) ||
	    cfqx_read_global_stats(s->counters))
		return -1;
	cfqx_prog_misses(&s->prog_misses);
	gfd = cfqx_pinned_map_fd(CFQX_MAP_GROUPS);
	dfd = cfqx_pinned_map_fd(CFQX_MAP_DEVSTATS);
	ffd = cfqx_pinned_map_fd(CFQX_MAP_DEVICES);
	gcfd = cfqx_pinned_map_fd(CFQX_MAP_GCOUNTS);
	dcfd = cfqx_pinned_map_fd(CFQX_MAP_DCOUNTS);
	lfd = cfqx_pinned_map_fd(CFQX_MAP_GLOCKS);
	gbfd = cfqx_pinned_map_fd(CFQX_MAP_GBASE);
	if (gfd < 0 || dfd < 0 || ffd < 0 || gcfd < 0 || dcfd < 0 || lfd < 0 ||
	    gbfd < 0)
		goto out;
	if (ncpu <= 0) {
		cfqx_err("cannot count CPUs");
		goto out;
	}
	vals = calloc(ncpu, (sizeof(struct cfqx_group_counts) + 7) & ~7UL);
	if (!vals)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->ts_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	s->device_filter = bpf_map_get_next_key(ffd, NULL, &dkey) == 0;

	/* groups: an array, entries with slot_hash 0 are free */
	cap = 0;
	for (idx = 0;; idx++) {
		struct cfqx_group_lock gl;
		struct cfqx_group_row *row;

		if (s->ngroups == cap) {
			void *n;

			cap = cap ? cap * 2 : 64;
			n = realloc(s->groups, cap * sizeof(*s->groups));
			if (!n)
				goto out;
			s->groups = n;
		}
		row = &s->groups[s->ngroups];
		if (bpf_map_lookup_elem(gfd, &idx, &row->st))
			break;	/* past the end */
		if (!row->st.slot_hash)
			continue;
		if (bpf_map_lookup_elem(lfd, &idx, &gl)) {
			cfqx_err("cannot read the %s map: %s",
				 CFQX_MAP_GLOCKS, strerror(errno));
			goto out;
		}
		row->st.pending = gl.pending;
		/* the bases first: a later copy is never below its base */
		if (add_percpu(gbfd, idx, vals, sizeof(struct cfqx_group_counts),
			       ncpu, sub_group_base, &row->st) ||
		    add_percpu(gcfd, idx, vals, sizeof(struct cfqx_group_counts),
			       ncpu, add_group, &row->st)) {
			cfqx_err("cannot read the %s maps: %s",
				 CFQX_MAP_GCOUNTS, strerror(errno));
			goto out;
		}
		row->key = row->st.key;
		name_group(row);
		s->ngroups++;
	}
	/* devstats: an array, entries with dev 0 are free */
	for (dkey = 0;; dkey++) {
		struct cfqx_dev_stats st;
		void *n;

		if (bpf_map_lookup_elem(dfd, &dkey, &st))
			break;	/* past the end */
		if (!st.dev)
			continue;
		if (add_percpu(dcfd, dkey, vals, sizeof(struct cfqx_dev_counts),
			       ncpu, add_dev, &st)) {
			cfqx_err("cannot read the %s map: %s",
				 CFQX_MAP_DCOUNTS, strerror(errno));
			goto out;
		}
		n = realloc(s->devs, (s->ndevs + 1) * sizeof(*s->devs));
		if (!n)
			goto out;
		s->devs = n;
		s->devs[s->ndevs].st = st;
		s->devs[s->ndevs].dev = (__u32)st.dev;
		cfqx_dev_name(st.dev, s->devs[s->ndevs].name,
			      sizeof(s->devs[s->ndevs].name));
		s->ndevs++;
	}
	if (s->groups)
		qsort(s->groups, s->ngroups, sizeof(*s->groups), by_key);
	if (s->devs)
		qsort(s->devs, s->ndevs, sizeof(*s->devs), dev_by_num);
	ret = 0;
out:
	if (gfd >= 0)
		close(gfd);
	if (dfd >= 0)
		close(dfd);
	if (ffd >= 0)
		close(ffd);
	if (gcfd >= 0)
		close(gcfd);
	if (dcfd >= 0)
		close(dcfd);
	if (lfd >= 0)
		close(lfd);
	if (gbfd >= 0)
		close(gbfd);
	free(vals);
	if (ret)
		cfqx_snapshot_free(s);
	return ret;
}
