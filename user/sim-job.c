// SPDX-License-Identifier: GPL-2.0
/*
 * fio job files for `cfqx sim`: the subset of fio's syntax and keys the
 * simulator models ([global] and job sections; rw, bs, iodepth, ioengine,
 * numjobs, uid, gid, cgroup, thinktime, size, offset, rwmixread, direct,
 * runtime, time_based, name, filename), parsed with fio's units, and the
 * processes a file starts with their synthetic identities.  Any other key,
 * and any bad value, is one "FILE:LINE: reason" error: a file the
 * simulator accepts means the same to fio.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "sim.h"

#define MAX_JOBS	256
#define MAX_PROCS	1024
#define MAX_LINE	1024

static int parse_u64(const char *s, const char **end, sim_u64 *out)
{
	unsigned long long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno)
		return -1;
	*out = v;
	*end = e;
	return 0;
}

int sim_parse_bytes(const char *s, sim_u64 *out)
{
	const char *e;
	sim_u64 v, mul = 1;

	if (!s || parse_u64(s, &e, &v))
		return -1;
	switch (tolower((unsigned char)*e)) {
	case 'k': mul = 1ULL << 10; e++; break;
	case 'm': mul = 1ULL << 20; e++; break;
	case 'g': mul = 1ULL << 30; e++; break;
	case 't': mul = 1ULL << 40; e++; break;
	default: break;
	}
	if (mul > 1 && tolower((unsigned char)*e) == 'i' &&
	    tolower((unsigned char)e[1]) == 'b')
		e += 2;
	else if (mul > 1 && tolower((unsigned char)*e) == 'b')
		e++;
	if (*e || (v && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

int sim_parse_time(const char *s, sim_u64 unit_ns, sim_u64 *out)
{
	static const struct { const char *sfx; sim_u64 ns; } units[] = {
		{ "ns", 1 }, { "us", SIM_NS_PER_US }, { "usec", SIM_NS_PER_US },
		{ "ms", SIM_NS_PER_MS }, { "msec", SIM_NS_PER_MS },
		{ "s", SIM_NS_PER_S }, { "sec", SIM_NS_PER_S },
		{ "m", 60 * SIM_NS_PER_S }, { "min", 60 * SIM_NS_PER_S },
		{ "h", 3600 * SIM_NS_PER_S },
	};
	const char *e;
	sim_u64 v, mul = unit_ns;
	size_t i;

	if (!s || parse_u64(s, &e, &v))
		return -1;
	if (*e) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(e, units[i].sfx))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		mul = units[i].ns;
	}
	if (v && mul > UINT64_MAX / v)
		return -1;
	*out = v * mul;
	return 0;
}

static const char *const engine_names[] = {
	[SIM_ENG_PSYNC] = "psync", [SIM_ENG_SYNC] = "sync",
	[SIM_ENG_LIBAIO] = "libaio", [SIM_ENG_IO_URING] = "io_uring",
};

static int parse_bool(const char *v, bool *out)
{
	if (!v || !strcmp(v, "1")) {	/* a bare key means 1 */
		*out = true;
		return 0;
	}
	if (!strcmp(v, "0")) {
		*out = false;
		return 0;
	}
	return -1;
}

static int parse_uint(const char *v, sim_u64 min, sim_u64 max,
		      unsigned *out)
{
	__u64 x;

	if (cfqx_parse_u64(v, max, &x) || x < min)
		return -1;
	*out = (unsigned)x;
	return 0;
}

static int copy_str(const char *v, char *dst, size_t len, bool spaces)
{
	size_t i, n = v ? strlen(v) : 0;

	if (!n || n >= len)
		return -1;
	for (i = 0; i < n; i++)
		if (!isprint((unsigned char)v[i]) || (!spaces && v[i] == ' '))
			return -1;
	memcpy(dst, v, n + 1);
	return 0;
}

/*
 * Set @key to @val (NULL for a bare key) in @j.  0, or -1 with the reason
 * (without the FILE:LINE prefix) in @why; -2 for an unknown key.
 */
static int set_key(struct sim_job *j, const char *key, const char *val,
		   char *why, size_t len)
{
	sim_u64 x;
	bool b;

#define BAD(...) do { snprintf(why, len, __VA_ARGS__); return -1; } while (0)
#define NEED() do { if (!val) BAD("%s needs a value", key); } while (0)
	if (!strcmp(key, "rw") || !strcmp(key, "readwrite")) {
		static const struct { const char *n; int rw; bool rnd; } m[] = {
			{ "read", 0, false }, { "randread", 0, true },
			{ "write", 1, false }, { "randwrite", 1, true },
			{ "rw", 2, false }, { "readwrite", 2, false },
			{ "randrw", 2, true },
		};
		size_t i;

		NEED();
		for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (!strcmp(val, m[i].n))
				break;
		if (i == sizeof(m) / sizeof(m[0]))
			BAD("bad %s value '%s' (read write randread randwrite rw randrw)",
			    key, val);
		j->rw = m[i].rw;
		j->random = m[i].rnd;
	} else if (!strcmp(key, "bs") || !strcmp(key, "blocksize")) {
		NEED();
		if (sim_parse_bytes(val, &x) || x < 512 || x > (64ULL << 20) ||
		    x % 512)
			BAD("bad %s value '%s' (512 to 64m, a multiple of 512; one size for reads and writes)",
			    key, val);
		j->bs = x;
	} else if (!strcmp(key, "iodepth")) {
		NEED();
		if (parse_uint(val, 1, 1024, &j->iodepth))
			BAD("bad iodepth value '%s' (1 to 1024)", val);
	} else if (!strcmp(key, "ioengine")) {
		size_t i;

		NEED();
		for (i = 0; i < sizeof(engine_names) / sizeof(engine_names[0]); i++)
			if (!strcmp(val, engine_names[i]))
				break;
		if (i == sizeof(engine_names) / sizeof(engine_names[0]))
			BAD("bad ioengine value '%s' (psync sync libaio io_uring)",
			    val);
		j->engine = (int)i;
	} else if (!strcmp(key, "numjobs")) {
		NEED();
		if (parse_uint(val, 1, 256, &j->numjobs))
			BAD("bad numjobs value '%s' (1 to 256)", val);
	} else if (!strcmp(key, "uid") || !strcmp(key, "gid")) {
		NEED();
		if (parse_uint(val, 0, 0xfffffffeULL,
			       key[0] == 'u' ? &j->uid : &j->gid))
			BAD("bad %s value '%s' (a number, 0 to 4294967294)",
			    key, val);
	} else if (!strcmp(key, "cgroup")) {
		NEED();
		if (copy_str(val, j->cgroup, sizeof(j->cgroup), false))
			BAD("bad cgroup value '%s' (a cgroup name, no spaces, < %zu characters)",
			    val, sizeof(j->cgroup));
	} else if (!strcmp(key, "thinktime")) {
		NEED();
		if (sim_parse_time(val, SIM_NS_PER_US, &x) ||
		    x > 10 * SIM_NS_PER_S)
			BAD("bad thinktime value '%s' (microseconds, or with us/ms/s; at most 10s)",
			    val);
		j->thinktime_ns = x;
	} else if (!strcmp(key, "size") || !strcmp(key, "offset")) {
		NEED();
		if (sim_parse_bytes(val, &x) || x % 512 ||
		    (key[0] == 's' && !x))
			BAD("bad %s value '%s' (bytes with k/m/g/t, a multiple of 512%s)",
			    key, val, key[0] == 's' ? ", not 0" : "");
		if (key[0] == 's')
			j->size = x;
		else
			j->offset = x;
	} else if (!strcmp(key, "rwmixread")) {
		NEED();
		if (parse_uint(val, 0, 100, &j->rwmixread))
			BAD("bad rwmixread value '%s' (0 to 100)", val);
	} else if (!strcmp(key, "direct")) {
		if (parse_bool(val, &b))
			BAD("bad direct value '%s' (0 or 1)", val);
		j->direct = b;
	} else if (!strcmp(key, "time_based")) {
		if (parse_bool(val, &b))
			BAD("bad time_based value '%s' (0 or 1)", val);
		j->time_based = b;
	} else if (!strcmp(key, "runtime")) {
		NEED();
		if (sim_parse_time(val, SIM_NS_PER_S, &x) || !x ||
		    x > 3600 * SIM_NS_PER_S)
			BAD("bad runtime value '%s' (seconds, or with ms/s/m; > 0, at most 1h)",
			    val);
		j->runtime_ns = x;
	} else if (!strcmp(key, "name")) {
		NEED();
		if (copy_str(val, j->name, sizeof(j->name), true))
			BAD("bad name value '%s' (printable, < %zu characters)",
			    val, sizeof(j->name));
	} else if (!strcmp(key, "filename")) {
		NEED();
		if (copy_str(val, j->filename, sizeof(j->filename), true))
			BAD("bad filename value '%s' (< %zu characters)", val,
			    sizeof(j->filename));
	} else {
		return -2;
	}
	return 0;
#undef NEED
#undef BAD
}

static const char supported_keys[] =
	"rw bs iodepth ioengine numjobs uid gid cgroup thinktime size offset "
	"rwmixread direct runtime time_based name filename";

static void job_defaults(struct sim_job *j)
{
	memset(j, 0, sizeof(*j));
	j->bs = 4096;
	j->iodepth = 1;
	j->engine = SIM_ENG_PSYNC;
	j->numjobs = 1;
	j->rwmixread = 50;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static void finish_job(struct sim_job *j)
{
	if (!j->name[0])
		memcpy(j->name, j->section, sizeof(j->name));
	j->read_pct = j->rw == 0 ? 100 : j->rw == 1 ? 0 : j->rwmixread;
}

int sim_jobfile_parse_text(const char *label, const char *text,
			   struct sim_jobfile *jf, char *err, size_t errlen)
{
	struct sim_job global, *cur = NULL;
	char line[MAX_LINE + 2], why[256];
	const char *p = text;
	int lineno = 0, rc;

	memset(jf, 0, sizeof(*jf));
	job_defaults(&global);
	jf->jobs = calloc(MAX_JOBS, sizeof(*jf->jobs));
	if (!jf->jobs) {
		snprintf(err, errlen, "%s: out of memory", label);
		return -1;
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *s, *eq, *key, *val = NULL;

		lineno++;
		if (n > MAX_LINE) {
			snprintf(err, errlen, "%s:%d: line longer than %d characters",
				 label, lineno, MAX_LINE);
			goto fail;
		}
		memcpy(line, p, n);
		line[n] = 0;
		p += n + (nl ? 1 : 0);
		s = trim(line);
		if (!*s || *s == ';' || *s == '#')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');

			if (!e || e[1] || e == s + 1 || e - s - 1 >= 64) {
				snprintf(err, errlen, "%s:%d: bad section header '%s' (expected [name], < 64 characters)",
					 label, lineno, s);
				goto fail;
			}
			*e = 0;
			if (cur)
				finish_job(cur);
			if (!strcmp(s + 1, "global")) {
				cur = &global;
				continue;
			}
			if (jf->njobs == MAX_JOBS) {
				snprintf(err, errlen, "%s:%d: more than %d job sections",
					 label, lineno, MAX_JOBS);
				goto fail;
			}
			cur = &jf->jobs[jf->njobs++];
			*cur = global;
			cur->name[0] = 0;
			if (global.name[0])
				memcpy(cur->name, global.name, sizeof(cur->name));
			snprintf(cur->section, sizeof(cur->section), "%s", s + 1);
			cur->line = lineno;
			continue;
		}
		if (!cur) {
			snprintf(err, errlen, "%s:%d: '%s' outside a section ([global] or [job])",
				 label, lineno, s);
			goto fail;
		}
		eq = strchr(s, '=');
		if (eq) {
			*eq = 0;
			val = trim(eq + 1);
		}
		key = trim(s);
		rc = set_key(cur, key, val, why, sizeof(why));
		if (rc == -2) {
			snprintf(err, errlen, "%s:%d: unsupported key '%s' (cfqx sim knows: %s)",
				 label, lineno, key, supported_keys);
			goto fail;
		}
		if (rc) {
			snprintf(err, errlen, "%s:%d: %s", label, lineno, why);
			goto fail;
		}
	}
	if (cur)
		finish_job(cur);
	if (!jf->njobs) {
		snprintf(err, errlen, "%s: no job sections", label);
		goto fail;
	}
	return 0;
fail:
	sim_jobfile_free(jf);
	return -1;
}

int sim_jobfile_parse(const char *path, struct sim_jobfile *jf, char *err,
		      size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;
	int rc;

	memset(jf, 0, sizeof(*jf));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		snprintf(err, errlen, "%s: cannot read (not a regular file?)",
			 path);
		fclose(f);
		return -1;
	}
	if (n > (1 << 20)) {
		snprintf(err, errlen, "%s: larger than 1 MiB", path);
		fclose(f);
		return -1;
	}
	buf = malloc(n + 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n) {
		snprintf(err, errlen, "%s: cannot read", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[n] = 0;
	if (strlen(buf) != (size_t)n) {
		snprintf(err, errlen, "%s: contains a NUL byte (not a job file)",
			 path);
		free(buf);
		return -1;
	}
	rc = sim_jobfile_parse_text(path, buf, jf, err, errlen);
	free(buf);
	return rc;
}

void sim_jobfile_free(struct sim_jobfile *jf)
{
	free(jf->jobs);
	jf->jobs = NULL;
	jf->njobs = 0;
}

unsigned sim_job_depth(const struct sim_job *j)
{
	unsigned d = j->iodepth;

	if (j->engine == SIM_ENG_PSYNC || j->engine == SIM_ENG_SYNC)
		d = 1;
	if (!j->direct && j->read_pct < 100 && d < SIM_WRITEBACK_DEPTH)
		d = SIM_WRITEBACK_DEPTH;
	return d;
}

int sim_procs(const struct sim_jobfile *jf, struct sim_proc_id **out)
{
	struct sim_proc_id *p;
	const char *cg[MAX_JOBS];
	int n = 0, ncg = 0, i, k;
	unsigned c;

	for (i = 0; i < jf->njobs; i++)
		n += jf->jobs[i].numjobs;
	if (n > MAX_PROCS)
		return -1;
	p = calloc(n, sizeof(*p));
	if (!p)
		return -1;
	n = 0;
	for (i = 0; i < jf->njobs; i++) {
		const struct sim_job *j = &jf->jobs[i];
		sim_u64 cgid = 1;

		if (j->cgroup[0] && strcmp(j->cgroup, "/")) {
			for (k = 0; k < ncg; k++)
				if (!strcmp(cg[k], j->cgroup))
					break;
			if (k == ncg)
				cg[ncg++] = j->cgroup;
			cgid = 2 + k;
		}
		for (c = 0; c < j->numjobs; c++, n++) {
			p[n].job = i;
			p[n].clone = c;
			p[n].tgid = 1001 + n;
			p[n].pgid = 1001 + n - c;
			p[n].uid = j->uid;
			p[n].gid = j->gid;
			p[n].cgroup = cgid;
		}
	}
	*out = p;
	return n;
}

sim_u64 sim_proc_key(const struct sim_proc_id *p, unsigned group_by)
{
	switch (group_by) {
	case CFQX_BY_PGID: return p->pgid;
	case CFQX_BY_UID: return p->uid;
	case CFQX_BY_GID: return p->gid;
	case CFQX_BY_CGROUP: return p->cgroup;
	default: return p->tgid;
	}
}
