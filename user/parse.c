// SPDX-License-Identifier: GPL-2.0
/*
 * Pure command-line parsing for cfqx: numbers and policy options.  No I/O,
 * no globals, so the unit tests run it without root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cfqx.h"

#define NFIELDS (CFQX_POLICY_SIZE / 4)

int cfqx_parse_u32(const char *s, __u32 max, __u32 *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = (__u32)v;
	return 0;
}

/* "--fifo-expire-sync" / "fifo_expire_sync" -> field index, or -1. */
static int field_index(const char *opt)
{
	char norm[64];
	size_t i;
	int f;

	while (*opt == '-')
		opt++;
	for (i = 0; opt[i] && i < sizeof(norm) - 1; i++)
		norm[i] = opt[i] == '-' ? '_' : opt[i];
	norm[i] = 0;
	for (f = 1; f < NFIELDS; f++)	/* 0, group_by, is the KEY */
		if (!strcmp(norm, cfqx_policy_field_names[f]))
			return f;
	return -1;
}

int cfqx_policy_option_field(const char *opt)
{
	return field_index(opt);
}

bool cfqx_policy_is_option(const char *opt)
{
	return opt && opt[0] == '-' && opt[1] == '-' && field_index(opt) > 0;
}

int cfqx_policy_set_option(struct cfqx_policy *p, const char *opt,
			   const char *val, char *err, size_t errlen)
{
	int f = field_index(opt);
	__u32 v;

	if (f < 0) {
		snprintf(err, errlen, "unknown policy option %s", opt);
		return -1;
	}
	if (!val || cfqx_parse_u32(val, 0xffffffffu, &v)) {
		snprintf(err, errlen, "%s needs a non-negative integer, got '%s'",
			 opt, val ? val : "");
		return -1;
	}
	((__u32 *)p)[f] = v;
	return 0;
}

int cfqx_policy_validate(const struct cfqx_policy *p, char *err,
			 size_t errlen)
{
	int bad = cfqx_policy_check(p);

	if (!bad)
		return 0;
	if (bad == 1)
		snprintf(err, errlen, "bad group_by %u (tgid pgid uid gid cgroup)",
			 p->group_by);
	else
		snprintf(err, errlen, "bad %s value %u (out of range)",
			 cfqx_policy_field_names[bad - 1],
			 ((const __u32 *)p)[bad - 1]);
	return -1;
}
