/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The two line formats of the event pipeline: one JSON object per event
 * (`cfqx events --json`, `cfqx run --json`) and one human line (`cfqx
 * events`).  A formatter remembers the text of the fields of the previous
 * event and re-encodes only the fields that changed (an event storm
 * repeats device, kind, group_by, flags, suppressed and comm).  Integers
 * are encoded without printf (encode.h).
 *
 * JSON keys, in this order: seq, event, kind, dev ("MAJ:MIN"), ts_ns,
 * group_by, id, flags, value, value2, suppressed, comm (printable ASCII,
 * `"` and `\` escaped, other bytes \u00XX), incident (UUID).
 */
#ifndef CFQX_PIPELINE_FORMAT_H
#define CFQX_PIPELINE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "uevent.h"

/* Longest line of either format, newline included. */
#define CFQX_LINE_MAX		640
/* A formatter may write scratch up to this far past a line's end. */
#define CFQX_LINE_SLACK		64

struct cfqx_fmt {
	/* `,"event":"E","kind":K,"dev":"M:m","ts_ns":` */
	uint32_t a_kind, a_dev;
	unsigned int a_len;
	char a_txt[96];
	/* ts_ns / 10^8: its digits change once every 100 ms */
	uint64_t ts_hi;
	unsigned int ts_hi_len;
	char ts_hi_txt[32];
	/* `,"group_by":"G","id":` for each group_by */
	unsigned int g_len[CFQX_BY_NR];
	char g_txt[CFQX_BY_NR][32];
	/* `,"flags":F,"value":` */
	uint32_t f_flags;
	unsigned int f_len;
	char f_txt[64];
	/* `,"suppressed":S,"comm":"C","incident":"` */
	uint64_t b_supp;
	char b_comm[16];
	unsigned int b_len;
	char b_txt[192];
	/* text: escaped comm */
	char t_comm_raw[16];
	unsigned int t_comm_len;
	char t_comm[16 * 6 + 32];
};

void cfqx_fmt_init(struct cfqx_fmt *f);

/*
 * One JSON line (with its newline) for a valid event at d, which must
 * have CFQX_LINE_MAX + CFQX_LINE_SLACK bytes; returns the line's end.
 */
char *cfqx_fmt_json(struct cfqx_fmt *f, char *d, const struct cfqx_event *ev,
		    uint64_t seq, const char *uuid);
/* One human line, same contract. */
char *cfqx_fmt_text(struct cfqx_fmt *f, char *d, const struct cfqx_event *ev,
		    const char *uuid);

#endif /* CFQX_PIPELINE_FORMAT_H */
