// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of the uevent encoder (user/uevent.c), built with ASan/UBSan:
 * over random events (random bytes in every field, comm included) the
 * synthetic-uevent string always passes the kernel's own rules
 * (kobject_synth_uevent: UUID, then " KEY=VALUE" with letters and digits
 * only), stays inside cfqx's share of the 32 variable / 2048 byte budget,
 * and carries every value losslessly (decimal numbers, hex comm); bad
 * kinds are refused rather than encoded.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uevent.h"

static unsigned long long rng_state = 0x9e3779b97f4a7c15ull;

static unsigned long long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void random_event(struct cfqx_event *ev)
{
	unsigned char *p = (unsigned char *)ev;

	for (size_t i = 0; i < sizeof(*ev); i++)
		p[i] = (unsigned char)rnd();
	ev->kind = (__u16)(1 + rnd() % (CFQX_EV_NR - 1));
	ev->size = sizeof(*ev);
	ev->group_by = (__u32)(rnd() % CFQX_BY_NR);
	if (rnd() % 4 == 0)
		ev->comm[rnd() % sizeof(ev->comm)] = '\0';
	if (rnd() % 8 == 0)
		ev->comm[0] = '\0';
}

/* CFQXEVENT values as the README documents them (a stable interface). */
static const char *const documented_words[CFQX_EV_NR] = {
	[CFQX_EV_POLICY] = "policy",
	[CFQX_EV_BUSY] = "busy",
	[CFQX_EV_IDLE] = "idle",
	[CFQX_EV_STARVED] = "starved",
	[CFQX_EV_DEADLINE] = "deadline",
	[CFQX_EV_OVER_BUDGET] = "overbudget",
};

/* Value of KEY in an encoded string, copied to out; 0 if absent. */
static int value_of(const char *s, const char *key, char *out, size_t n)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(s, pat);
	if (!p)
		return 0;
	p += strlen(pat);
	e = strchr(p, ' ');
	if (!e)
		e = p + strlen(p);
	cr_assert_lt((size_t)(e - p), n);
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = '\0';
	return 1;
}

static unsigned long long num(const char *s, const char *key)
{
	char v[64];

	cr_assert(value_of(s, key, v, sizeof(v)), "%s missing in %s", key, s);
	return strtoull(v, NULL, 10);
}

Test(uevent, random_events_pass_kernel_rules_and_round_trip)
{
	for (int round = 0; round < 200000; round++) {
		struct cfqx_event ev;
		struct cfqx_uevent_args a = { 0 };
		char buf[CFQX_UEVENT_MAX_BYTES + 128], v[64];
		int len, vars, kvars;

		random_event(&ev);
		cfqx_uuid_random(a.uuid);
		a.ev = &ev;
		a.suppressed = rnd();
		a.seq = rnd();
		len = cfqx_uevent_encode(&a, buf, sizeof(buf), &vars);
		cr_assert_gt(len, 0, "encode failed: %d", len);
		cr_assert_eq((size_t)len, strlen(buf));
		kvars = cfqx_uevent_synth_check(buf, (size_t)len);
		cr_assert_eq(kvars, vars, "kernel rules refuse: %s", buf);
		cr_assert_leq(vars + 11, CFQX_UEVENT_KERNEL_VARS);
		for (int i = 0; i < len; i++)
			cr_assert(buf[i] == ' ' || buf[i] == '=' || buf[i] == '-' ||
				  (buf[i] >= '0' && buf[i] <= '9') ||
				  (buf[i] >= 'a' && buf[i] <= 'z') ||
				  (buf[i] >= 'A' && buf[i] <= 'Z'),
				  "char %d in %s", buf[i], buf);
		/* lossless */
		cr_assert_eq(num(buf, "CFQXKIND"), ev.kind);
		cr_assert_eq(num(buf, "CFQXDEV"), ev.dev);
		cr_assert_eq(num(buf, "CFQXID"), ev.id);
		cr_assert_eq(num(buf, "CFQXFLAGS"), ev.flags);
		cr_assert_eq(num(buf, "CFQXVALUE"), ev.value);
		cr_assert_eq(num(buf, "CFQXVALUE2"), ev.value2);
		cr_assert_eq(num(buf, "CFQXSUPPRESSED"), a.suppressed);
		cr_assert_eq(num(buf, "CFQXTS"), ev.ts_ns);
		cr_assert_eq(num(buf, "CFQXSEQ"), a.seq);
		cr_assert(value_of(buf, "CFQXEVENT", v, sizeof(v)));
		cr_assert_str_eq(v, documented_words[ev.kind]);
		if (ev.comm[0]) {
			size_t cl = strnlen(ev.comm, sizeof(ev.comm));

			cr_assert(value_of(buf, "CFQXCOMM", v, sizeof(v)));
			cr_assert_eq(strlen(v), 2 * cl);
			for (size_t i = 0; i < cl; i++) {
				unsigned int byte;

				sscanf(v + 2 * i, "%2x", &byte);
				cr_assert_eq(byte, (unsigned char)ev.comm[i]);
			}
		} else {
			cr_assert(!value_of(buf, "CFQXCOMM", v, sizeof(v)));
		}
	}
}

Test(uevent, bad_input_is_refused_not_encoded)
{
	struct cfqx_event ev;
	struct cfqx_uevent_args a = { 0 };
	char buf[2048];

	random_event(&ev);
	cfqx_uuid_random(a.uuid);
	a.ev = &ev;
	ev.kind = 0;
	cr_assert_eq(cfqx_uevent_encode(&a, buf, sizeof(buf), NULL), -EINVAL);
	ev.kind = CFQX_EV_NR;
	cr_assert_eq(cfqx_uevent_encode(&a, buf, sizeof(buf), NULL), -EINVAL);
	ev.kind = CFQX_EV_BUSY;
	ev.group_by = CFQX_BY_NR;
	cr_assert_eq(cfqx_uevent_encode(&a, buf, sizeof(buf), NULL), -EINVAL);
	ev.group_by = CFQX_BY_UID;
	/* too small a buffer: an error, never a truncated uevent */
	for (size_t n = 0; n < 120; n++)
		cr_assert_eq(cfqx_uevent_encode(&a, buf, n, NULL), -E2BIG);
	a.uuid[8] = 'x';
	cr_assert_eq(cfqx_uevent_encode(&a, buf, sizeof(buf), NULL), -EINVAL);
}

Test(uevent, uuids_are_valid_v4_and_distinct)
{
	char a[CFQX_UUID_LEN + 1], b[CFQX_UUID_LEN + 1];

	for (int i = 0; i < 10000; i++) {
		cfqx_uuid_random(a);
		cfqx_uuid_random(b);
		cr_assert(cfqx_uuid_valid(a));
		cr_assert_eq(strlen(a), CFQX_UUID_LEN);
		cr_assert_eq(a[14], '4');
		cr_assert_str_neq(a, b);
	}
}

Test(uevent, synth_check_matches_kernel_parser)
{
	const char *u = "change 12345678-1234-4234-8234-123456789abc";
	char s[256];

	snprintf(s, sizeof(s), "%s A=1 B=x2", u);
	cr_assert_eq(cfqx_uevent_synth_check(s, strlen(s)), 2);
	snprintf(s, sizeof(s), "%s", u);
	cr_assert_eq(cfqx_uevent_synth_check(s, strlen(s)), 0);
	snprintf(s, sizeof(s), "%s A_B=1", u);	/* '_' refused */
	cr_assert_eq(cfqx_uevent_synth_check(s, strlen(s)), -1);
	snprintf(s, sizeof(s), "%s A=", u);	/* empty value */
	cr_assert_eq(cfqx_uevent_synth_check(s, strlen(s)), -1);
	snprintf(s, sizeof(s), "%s A=1  B=2", u);
	cr_assert_eq(cfqx_uevent_synth_check(s, strlen(s)), -1);
	snprintf(s, sizeof(s), "%s A=1.5", u);
	cr_assert_eq(cfqx_uevent_synth_check(s, strlen(s)), -1);
}

Test(uevent, wire_format_has_header_and_synth_vars)
{
	struct cfqx_event ev;
	struct cfqx_uevent_args a = { 0 };
	char s[2048], w[4096];
	int len, wl;

	random_event(&ev);
	ev.kind = CFQX_EV_STARVED;
	cfqx_uuid_random(a.uuid);
	a.ev = &ev;
	len = cfqx_uevent_encode(&a, s, sizeof(s), NULL);
	cr_assert_gt(len, 0);
	wl = cfqx_uevent_wire(s, (size_t)len, "/devices/virtual/block/loop3",
			      "MAJOR=7\nMINOR=3\nDEVNAME=loop3\nDEVTYPE=disk\n",
			      w, sizeof(w));
	cr_assert_gt(wl, 0);
	cr_assert_str_eq(w, "change@/devices/virtual/block/loop3");
	cr_assert_str_eq(w + strlen(w) + 1, "ACTION=change");
	cr_assert(memmem(w, (size_t)wl, "\0SUBSYSTEM=block\0", 17));
	cr_assert(memmem(w, (size_t)wl, "\0MINOR=3\0", 9));
	cr_assert(memmem(w, (size_t)wl, "\0SYNTH_ARG_CFQXEVENT=starved\0", 29));
	cr_assert(memmem(w, (size_t)wl, "\0SYNTH_UUID=", 12));
	cr_assert_eq(w[wl - 1], '\0');
	cr_assert_eq(cfqx_uevent_wire(s, (size_t)len, "/x", "", w, 64), -E2BIG);
}
