// SPDX-License-Identifier: GPL-2.0
/*
 * Loading, pinning and unpinning the BPF side, and reading the pinned maps.
 * Everything lives under CFQX_PIN_ROOT so it survives the command exiting
 * and looks the same whether cfqx or `bpftool prog loadall` loaded it.
 */
#include <errno.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "cfqx.h"
#include "cfqx.skel.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC 0xcafe4a11
#endif

void cfqx_err(const char *fmt, ...)
{
	va_list ap;

	fputs("cfqx: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* libbpf talks only when asked (CFQX_DEBUG=1): we print one line. */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (!getenv("CFQX_DEBUG") || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

bool cfqx_is_loaded(void)
{
	return access(CFQX_PIN_MAPS "/" CFQX_MAP_POLICY, F_OK) == 0;
}

int cfqx_check_can_load(void)
{
	struct statfs sfs;

	if (geteuid() != 0) {
		cfqx_err("must be root to load BPF programs");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		cfqx_err("kernel BTF missing (/sys/kernel/btf/vmlinux): needs CONFIG_DEBUG_INFO_BTF");
		return -1;
	}
	if (statfs("/sys/fs/bpf", &sfs) || sfs.f_type != BPF_FS_MAGIC) {
		cfqx_err("bpffs is not mounted on /sys/fs/bpf (mount -t bpf bpf /sys/fs/bpf)");
		return -1;
	}
	return 0;
}

/* Remove every entry of @dir, then @dir itself; missing is fine. */
static void remove_dir(const char *dir)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(dir);
}

static void remove_all(void)
{
	remove_dir(CFQX_PIN_PROGS);
	remove_dir(CFQX_PIN_MAPS);
	remove_dir(CFQX_PIN_ROOT "/links");
	rmdir(CFQX_PIN_ROOT);
}

static __u64 mem_budget;	/* bytes; 0: the object's own sizes */

void cfqx_set_mem_budget(__u64 bytes)
{
	mem_budget = bytes;
}

static __u32 orphan_age_s = CFQX_DEF_ORPHAN_AGE_S;

void cfqx_set_orphan_age(__u32 seconds)
{
	orphan_age_s = seconds;
}

/* Does the running kernel have tracepoint @name (BTF's btf_trace_NAME)? */
static bool kernel_has_tracepoint(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char type[96];
	bool has;

	if (!btf)
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	has = btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return has;
}

enum start_hook { START_AUTO, START_GETRQ, START_IO_START };
static enum start_hook start_hook = START_AUTO;

int cfqx_set_start_hook(const char *name)
{
	if (!strcmp(name, "getrq")) {
		start_hook = START_GETRQ;
	} else if (!strcmp(name, "io_start")) {
		if (!kernel_has_tracepoint("block_io_start")) {
			cfqx_err("--start-hook io_start: this kernel has no block_io_start tracepoint (6.5+); use getrq");
			return -1;
		}
		start_hook = START_IO_START;
	} else {
		cfqx_err("bad --start-hook %s (io_start or getrq)", name);
		return -1;
	}
	return 0;
}

const char *cfqx_loaded_start_hook(void)
{
	if (access(CFQX_PIN_PROGS "/cfqx_io_start", F_OK) == 0)
		return "io_start";
	if (access(CFQX_PIN_PROGS "/cfqx_getrq", F_OK) == 0)
		return "getrq";
	return NULL;
}

static __u64 map_bytes(const struct bpf_map *m)
{
	return (__u64)bpf_map__max_entries(m) *
		(bpf_map__key_size(m) + bpf_map__value_size(m));
}

/*
 * Size the groups table to the memory budget: what the fixed maps
 * (records, devices, ring buffer) do not take, in a power of 2 of
 * groups.  -1 with a line when the budget cannot hold 64 groups.
 */
static int size_maps(struct cfqx_bpf *skel)
{
	struct bpf_map *m, *groups = skel->maps.groups, *locks = skel->maps.glocks;
	struct bpf_map *counts = skel->maps.gcounts, *base = skel->maps.gbase;
	__u64 fixed = 0, per, n = 1, room;
	__u32 extra = bpf_map__max_entries(groups) - skel->rodata->group_mask - 1;
	int ncpu = libbpf_num_possible_cpus();

	if (!mem_budget)
		return 0;
	if (ncpu <= 0) {
		cfqx_err("cannot count CPUs");
		return -1;
	}
	bpf_object__for_each_map(m, skel->obj) {
		if (m == groups || m == locks || m == counts || m == base)
			continue;
		if (bpf_map__type(m) == BPF_MAP_TYPE_RINGBUF)
			fixed += bpf_map__max_entries(m);
		else if (bpf_map__type(m) == BPF_MAP_TYPE_PERCPU_ARRAY)
			fixed += map_bytes(m) * ncpu;
		else
			fixed += map_bytes(m);
	}
	/* a group's per-CPU counters and their bases: a copy per CPU */
	per = bpf_map__value_size(groups) + bpf_map__value_size(locks) + 8 +
		(__u64)ncpu * 2 * (bpf_map__value_size(counts) + 8);
	room = mem_budget > fixed ? mem_budget - fixed : 0;
	while (n * 2 * per + extra * per <= room && n < (1u << 20))
		n *= 2;
	if (n < 64) {
		cfqx_err("memory budget of %llu KiB too small: the fixed maps take %llu KiB, 64 groups %llu KiB more",
			 (unsigned long long)(mem_budget >> 10),
			 (unsigned long long)(fixed >> 10),
			 (unsigned long long)((64 + extra) * per >> 10));
		return -1;
	}
	if (bpf_map__set_max_entries(groups, n + extra) ||
	    bpf_map__set_max_entries(locks, n + extra) ||
	    bpf_map__set_max_entries(counts, n + extra) ||
	    bpf_map__set_max_entries(base, n + extra)) {
		cfqx_err("cannot size the groups map: %s", strerror(errno));
		return -1;
	}
	skel->rodata->group_mask = n - 1;
	return 0;
}

int cfqx_load(const __u32 *devs, int ndevs, const struct cfqx_policy *pol)
{
	struct cfqx_policy def = CFQX_POLICY_DEFAULT;
	struct bpf_program *prog;
	struct cfqx_bpf *skel;
	char path[512];
	__u32 zero = 0, one = 1;
	int i, err;

	if (cfqx_check_can_load())
		return -1;
	if (cfqx_is_loaded() || access(CFQX_PIN_PROGS, F_OK) == 0) {
		cfqx_err("already loaded (%s exists); run cfqx unload first",
			 CFQX_PIN_ROOT);
		return -1;
	}
	libbpf_set_print(libbpf_quiet);
	skel = cfqx_bpf__open();
	if (!skel) {
		cfqx_err("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	if (ndevs > CFQX_MAX_FILTER_DEVS) {
		cfqx_err("at most %d devices", CFQX_MAX_FILTER_DEVS);
		cfqx_bpf__destroy(skel);
		return -1;
	}
	skel->rodata->nr_filter_devs = ndevs;
	for (i = 0; i < ndevs; i++)
		skel->rodata->filter_devs[i] = devs[i];
	skel->rodata->orphan_age_ns = (__u64)orphan_age_s * 1000000000ULL;
	if (start_hook == START_AUTO)
		start_hook = kernel_has_tracepoint("block_io_start") ?
			START_IO_START : START_GETRQ;
	skel->rodata->start_at_io_start = start_hook == START_IO_START;
	bpf_program__set_autoload(skel->progs.cfqx_getrq,
				  start_hook == START_GETRQ);
	bpf_program__set_autoload(skel->progs.cfqx_io_start,
				  start_hook == START_IO_START);
	if (size_maps(skel)) {
		cfqx_bpf__destroy(skel);
		return -1;
	}
	err = cfqx_bpf__load(skel);
	if (err) {
		cfqx_err("cannot load the BPF programs: %s (CFQX_DEBUG=1 shows the verifier log)",
			 strerror(-err));
		cfqx_bpf__destroy(skel);
		return -1;
	}
	if (!pol)
		pol = &def;
	if (bpf_map__update_elem(skel->maps.policy, &zero, sizeof(zero), pol,
				 sizeof(*pol), BPF_ANY)) {
		cfqx_err("cannot set the policy: %s", strerror(errno));
		goto fail;
	}
	for (i = 0; i < ndevs; i++) {
		if (bpf_map__update_elem(skel->maps.devices, &devs[i],
					 sizeof(devs[i]), &one, sizeof(one),
					 BPF_ANY)) {
			cfqx_err("cannot add a device: %s", strerror(errno));
			goto fail;
		}
	}
	if ((mkdir(CFQX_PIN_ROOT, 0700) && errno != EEXIST) ||
	    (mkdir(CFQX_PIN_PROGS, 0700) && errno != EEXIST)) {
		cfqx_err("cannot create %s: %s", CFQX_PIN_PROGS,
			 strerror(errno));
		goto fail;
	}
	err = bpf_object__pin_maps(skel->obj, CFQX_PIN_MAPS);
	if (err) {
		cfqx_err("cannot pin maps in %s: %s", CFQX_PIN_MAPS,
			 strerror(-err));
		goto fail;
	}
	/*
	 * Completion first, the start hook last (object order, which
	 * bpftool's autoattach follows too): every request whose start is
	 * seen is then seen issued and completed; earlier ones show as
	 * untracked.
	 */
	struct bpf_program *order[] = {
		skel->progs.cfqx_rq_complete,
		skel->progs.cfqx_rq_requeue,
		skel->progs.cfqx_rq_merge,
		skel->progs.cfqx_rq_issue,
		skel->progs.cfqx_bio_backmerge,
		skel->progs.cfqx_bio_frontmerge,
		start_hook == START_IO_START ? skel->progs.cfqx_io_start :
			skel->progs.cfqx_getrq,
	};

	for (i = 0; i < (int)(sizeof(order) / sizeof(order[0])); i++) {
		struct bpf_link *link;

		prog = order[i];
		link = bpf_program__attach(prog);
		if (!link) {
			cfqx_err("cannot attach %s: %s", bpf_program__name(prog),
				 strerror(errno));
			goto fail;
		}
		snprintf(path, sizeof(path), "%s/%s", CFQX_PIN_PROGS,
			 bpf_program__name(prog));
		err = bpf_link__pin(link, path);
		bpf_link__destroy(link);	/* the pin holds it */
		if (err) {
			cfqx_err("cannot pin %s: %s", path, strerror(-err));
			goto fail;
		}
	}
	cfqx_bpf__destroy(skel);
	return 0;
fail:
	remove_all();
	cfqx_bpf__destroy(skel);
	return -1;
}

int cfqx_ensure_loaded(void)
{
	if (cfqx_is_loaded())
		return 0;
	return cfqx_load(NULL, 0, NULL);
}

/*
 * Detach the policy map from every cfqx elevator that holds it (their
 * iosched/policy_map reads "id N"), so unload leaves no reference behind.
 */
static void detach_elevators(void)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	char path[512], buf[64];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int fd;

	fd = bpf_obj_get(CFQX_PIN_MAPS "/" CFQX_MAP_POLICY);
	if (fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		close(fd);
		return;
	}
	close(fd);
	d = opendir("/sys/block");
	if (!d)
		return;
	while ((de = readdir(d))) {
		unsigned id;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path),
			 "/sys/block/%s/queue/iosched/policy_map", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && sscanf(buf, "id %u", &id) == 1 &&
		    id == info.id) {
			fclose(f);
			f = fopen(path, "w");
			if (f) {
				fputs("-1\n", f);
				if (fclose(f))
					cfqx_err("cannot detach the policy map from %s",
						 de->d_name);
			}
			continue;
		}
		fclose(f);
	}
	closedir(d);
}

int cfqx_unload(void)
{
	if (geteuid() != 0) {
		cfqx_err("must be root to unload");
		return -1;
	}
	if (access(CFQX_PIN_ROOT, F_OK)) {
		cfqx_err("not loaded (%s does not exist)", CFQX_PIN_ROOT);
		return -1;
	}
	detach_elevators();
	remove_all();
	if (access(CFQX_PIN_ROOT, F_OK) == 0) {
		cfqx_err("could not remove everything under %s", CFQX_PIN_ROOT);
		return -1;
	}
	return 0;
}

int cfqx_pinned_map_fd(const char *name)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", CFQX_PIN_MAPS, name);
	fd = bpf_obj_get(path);
	if (fd < 0) {
		if (errno == ENOENT)
			cfqx_err("not loaded (%s missing; run cfqx load)", path);
		else
			cfqx_err("cannot open %s: %s", path, strerror(errno));
	}
	return fd;
}

int cfqx_read_global_stats(__u64 out[CFQX_STAT_NR])
{
	int ncpu = libbpf_num_possible_cpus();
	int fd, i, c, ret = 0;
	__u64 *vals;

	if (ncpu <= 0) {
		cfqx_err("cannot count CPUs");
		return -1;
	}
	fd = cfqx_pinned_map_fd(CFQX_MAP_STATS);
	if (fd < 0)
		return -1;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals) {
		close(fd);
		return -1;
	}
	for (i = 0; i < CFQX_STAT_NR; i++) {
		__u32 key = i;

		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &key, vals)) {
			cfqx_err("cannot read the stats map: %s",
				 strerror(errno));
			ret = -1;
			break;
		}
		for (c = 0; c < ncpu; c++)
			out[i] += vals[c];
	}
	free(vals);
	close(fd);
	return ret;
}

int cfqx_read_policy(struct cfqx_policy *out)
{
	struct cfqx_policy def = CFQX_POLICY_DEFAULT;
	__u32 zero = 0;
	int fd = cfqx_pinned_map_fd(CFQX_MAP_POLICY);

	if (fd < 0)
		return -1;
	if (bpf_map_lookup_elem(fd, &zero, out)) {
		cfqx_err("cannot read the policy map: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if (cfqx_policy_is_zero(out))
		*out = def;
	return 0;
}

int cfqx_write_policy(const struct cfqx_policy *p)
{
	__u32 zero = 0;
	int fd = cfqx_pinned_map_fd(CFQX_MAP_POLICY);

	if (fd < 0)
		return -1;
	if (bpf_map_update_elem(fd, &zero, p, BPF_ANY)) {
		cfqx_err("cannot write the policy map: %s", strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* "key:\tvalue" from /proc/self/fdinfo/FD, or -1. */
static long long fdinfo_value(int fd, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

int cfqx_prog_misses(__u64 *out)
{
	struct bpf_prog_info info;
	char path[512];
	struct dirent *de;
	__u32 len;
	long long id;
	DIR *d = opendir(CFQX_PIN_PROGS);
	int fd, pfd;

	*out = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", CFQX_PIN_PROGS, de->d_name);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		/* a link (cfqx load, bpftool autoattach) or a program */
		id = fdinfo_value(fd, "prog_id");
		pfd = id > 0 ? bpf_prog_get_fd_by_id((__u32)id) : fd;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (pfd >= 0 && !bpf_obj_get_info_by_fd(pfd, &info, &len))
			*out += info.recursion_misses;
		if (pfd >= 0 && pfd != fd)
			close(pfd);
		close(fd);
	}
	closedir(d);
	return 0;
}

int cfqx_count_pinned_progs(void)
{
	struct dirent *de;
	DIR *d = opendir(CFQX_PIN_PROGS);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}
