// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * JSON and human line formatters of the event pipeline
 * (pipeline_format.h).  Each cached segment is rebuilt only when the
 * fields it depends on differ from the previous event's; the segments and
 * the numbers between them are copied with fixed-size moves
 * (cfqx_copy_fast), which is why lines need CFQX_LINE_SLACK bytes of room.
 */
#include "pipeline_format.h"

#include <string.h>

#include <cfqx/cfq.h>

#include "encode.h"

/* A string literal: its length is known at compile time. */
#define put_lit(d, lit) \
	(memcpy((d), (lit), sizeof(lit) - 1), (d) + sizeof(lit) - 1)

static char *put_str(char *d, const char *s)
{
	size_t n = strlen(s);

	memcpy(d, s, n);
	return d + n;
}

/* JSON string body of a comm: printable ASCII as is, the rest \u00XX. */
static char *put_comm(char *d, const char *comm)
{
	for (size_t i = 0; i < 16 && comm[i]; i++) {
		unsigned char ch = (unsigned char)comm[i];

		if (ch == '"' || ch == '\\') {
			*d++ = '\\';
			*d++ = (char)ch;
		} else if (ch < 0x20 || ch >= 0x7f) {
			d = put_lit(d, "\\u00");
			d = cfqx_put_hex(d, &ch, 1);
		} else {
			*d++ = (char)ch;
		}
	}
	return d;
}

static const char *kind_name(unsigned int kind)
{
	return kind < CFQX_EV_NR && cfqx_event_names[kind] ?
	       cfqx_event_names[kind] : "unknown";
}

static const char *group_by_name(unsigned int gb)
{
	return gb < CFQX_BY_NR ? cfqx_group_by_names[gb] : "unknown";
}

static void set_a(struct cfqx_fmt *f, uint32_t kind, uint32_t dev)
{
	char *e = f->a_txt;

	e = put_lit(e, ",\"event\":\"");
	e = put_str(e, kind_name(kind));
	e = put_lit(e, "\",\"kind\":");
	e = cfqx_put_u64(e, kind);
	e = put_lit(e, ",\"dev\":\"");
	e = cfqx_put_u64(e, CFQX_MAJOR(dev));
	*e++ = ':';
	e = cfqx_put_u64(e, CFQX_MINOR(dev));
	e = put_lit(e, "\",\"ts_ns\":");
	f->a_kind = kind;
	f->a_dev = dev;
	f->a_len = (unsigned int)(e - f->a_txt);
}

static void set_f(struct cfqx_fmt *f, uint32_t flags)
{
	char *e = f->f_txt;

	e = put_lit(e, ",\"flags\":");
	e = cfqx_put_u64(e, flags);
	e = put_lit(e, ",\"value\":");
	f->f_flags = flags;
	f->f_len = (unsigned int)(e - f->f_txt);
}

static void set_b(struct cfqx_fmt *f, uint64_t supp, const char *comm)
{
	char *e = f->b_txt;

	e = put_lit(e, ",\"suppressed\":");
	e = cfqx_put_u64(e, supp);
	e = put_lit(e, ",\"comm\":\"");
	e = put_comm(e, comm);
	e = put_lit(e, "\",\"incident\":\"");
	f->b_supp = supp;
	memcpy(f->b_comm, comm, sizeof(f->b_comm));
	f->b_len = (unsigned int)(e - f->b_txt);
}

static void set_t_comm(struct cfqx_fmt *f, const char *comm)
{
	f->t_comm_len = (unsigned int)(put_comm(f->t_comm, comm) - f->t_comm);
	memcpy(f->t_comm_raw, comm, sizeof(f->t_comm_raw));
}

void cfqx_fmt_init(struct cfqx_fmt *f)
{
	static const char none[16];

	memset(f, 0, sizeof(*f));
	set_a(f, 0, 0);
	set_f(f, 0);
	set_b(f, 0, none);
	set_t_comm(f, none);
	for (unsigned int g = 0; g < CFQX_BY_NR; g++) {
		char *e = f->g_txt[g];

		e = put_lit(e, ",\"group_by\":\"");
		e = put_str(e, group_by_name(g));
		e = put_lit(e, "\",\"id\":");
		f->g_len[g] = (unsigned int)(e - f->g_txt[g]);
	}
}

/* A timestamp: the high digits from the cache, the low 8 made anew. */
static char *put_ts(struct cfqx_fmt *f, char *d, uint64_t ts)
{
	uint64_t hi = ts / 100000000u;

	if (!hi || hi >= 100000000u)
		return cfqx_put_u64(d, ts);
	if (hi != f->ts_hi) {
		f->ts_hi = hi;
		f->ts_hi_len = (unsigned int)(cfqx__put_small(f->ts_hi_txt,
					      (uint32_t)hi) - f->ts_hi_txt);
	}
	d = cfqx_copy_fast(d, f->ts_hi_txt, f->ts_hi_len);
	cfqx__put8(d + 8, (uint32_t)(ts - hi * 100000000u));
	return d + 8;
}

char *cfqx_fmt_json(struct cfqx_fmt *f, char *d, const struct cfqx_event *ev,
		    uint64_t seq, const char *uuid)
{
	unsigned int gb = ev->group_by < CFQX_BY_NR ? ev->group_by : 0;

	d = put_lit(d, "{\"seq\":");
	d = cfqx_put_u64(d, seq);
	if (ev->kind != f->a_kind || ev->dev != f->a_dev)
		set_a(f, ev->kind, ev->dev);
	d = cfqx_copy_fast(d, f->a_txt, f->a_len);
	d = put_ts(f, d, ev->ts_ns);
	d = cfqx_copy_fast(d, f->g_txt[gb], f->g_len[gb]);
	d = cfqx_put_u64(d, ev->id);
	if (ev->flags != f->f_flags)
		set_f(f, ev->flags);
	d = cfqx_copy_fast(d, f->f_txt, f->f_len);
	d = cfqx_put_u64(d, ev->value);
	d = put_lit(d, ",\"value2\":");
	d = cfqx_put_u64(d, ev->value2);
	if (ev->suppressed != f->b_supp ||
	    memcmp(ev->comm, f->b_comm, sizeof(f->b_comm)))
		set_b(f, ev->suppressed, ev->comm);
	d = cfqx_copy_fast(d, f->b_txt, f->b_len);
	memcpy(d, uuid, CFQX_UUID_LEN);
	d += CFQX_UUID_LEN;
	memcpy(d, "\"}\n", 4);
	return d + 3;
}

char *cfqx_fmt_text(struct cfqx_fmt *f, char *d, const struct cfqx_event *ev,
		    const char *uuid)
{
	const char *name = kind_name(ev->kind);
	size_t n = strlen(name);

	d = cfqx_put_u64(d, ev->ts_ns / 1000000000ull);
	*d++ = '.';
	d = cfqx_put_u64_pad(d, ev->ts_ns % 1000000000ull / 1000, 6);
	*d++ = ' ';
	memcpy(d, name, n);
	d += n;
	while (n++ < 11)	/* %-11s */
		*d++ = ' ';
	d = put_lit(d, " dev ");
	d = cfqx_put_u64(d, CFQX_MAJOR(ev->dev));
	*d++ = ':';
	d = cfqx_put_u64(d, CFQX_MINOR(ev->dev));
	*d++ = ' ';
	d = put_str(d, group_by_name(ev->group_by));
	*d++ = ' ';
	d = cfqx_put_u64(d, ev->id);
	if (ev->flags & CFQX_GF_KTHREAD)
		d = put_lit(d, " kthread");
	d = put_lit(d, " (");
	if (memcmp(ev->comm, f->t_comm_raw, sizeof(f->t_comm_raw)))
		set_t_comm(f, ev->comm);
	d = cfqx_copy_fast(d, f->t_comm, f->t_comm_len);
	d = put_lit(d, ") value ");
	d = cfqx_put_u64(d, ev->value);
	d = put_lit(d, " value2 ");
	d = cfqx_put_u64(d, ev->value2);
	d = put_lit(d, " suppressed ");
	d = cfqx_put_u64(d, ev->suppressed);
	d = put_lit(d, " incident ");
	memcpy(d, uuid, CFQX_UUID_LEN);
	d += CFQX_UUID_LEN;
	*d++ = '\n';
	return d;
}
