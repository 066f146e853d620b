// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx policy`: print the live policy, switch it (key and/or fields,
 * validated before anything is written), or print the bytes for
 * `bpftool map update ... value hex` with --hex.
 */
#include <stdio.h>
#include <string.h>
#include "cfqx.h"

static void policy_usage(FILE *f)
{
	int i;

	fprintf(f,
		"usage: cfqx policy [KEY] [--FIELD N]... [--json]\n"
		"       cfqx policy --hex [KEY] [--FIELD N]...\n"
		"  Without KEY or fields: print the live policy.  Otherwise switch it;\n"
		"  the next request follows the new policy.\n"
		"  KEY: tgid pgid uid gid cgroup\n"
		"  --hex: print the %d policy bytes for\n"
		"    bpftool map update pinned %s/%s key 0 0 0 0 value hex BYTES\n"
		"    (starting from the defaults, not from the live policy)\n"
		"  fields:",
		CFQX_POLICY_SIZE, CFQX_PIN_MAPS, CFQX_MAP_POLICY);
	for (i = 1; i < CFQX_POLICY_SIZE / 4; i++) {
		const char *n = cfqx_policy_field_names[i];

		fputs(" --", f);
		for (; *n; n++)
			fputc(*n == '_' ? '-' : *n, f);
	}
	fputc('\n', f);
}

int cfqx_cmd_policy(int argc, char **argv)
{
	struct cfqx_policy pol = CFQX_POLICY_DEFAULT, set;
	int json = 0, hex = 0, key = -1, i;
	int nfield = 0;
	__u32 fieldset[CFQX_POLICY_SIZE / 4] = { 0 };
	char err[256], buf[256];

	/* parse into a scratch policy to learn which fields are given */
	memset(&set, 0, sizeof(set));
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			policy_usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--hex")) {
			hex = 1;
		} else if (cfqx_policy_is_option(a)) {
			if (cfqx_policy_set_option(&set, a,
						   i + 1 < argc ? argv[i + 1] : NULL,
						   err, sizeof(err))) {
				cfqx_err("%s", err);
				return CFQX_EXIT_USAGE;
			}
			fieldset[cfqx_policy_option_field(a)] = 1;
			nfield++;
			i++;
		} else if (a[0] == '-') {
			cfqx_err("policy: unknown option '%s' (cfqx policy --help)",
				 a);
			return CFQX_EXIT_USAGE;
		} else if (key < 0) {
			key = cfqx_group_by_parse(a, strlen(a));
			if (key < 0) {
				cfqx_err("unknown policy key '%s' (tgid pgid uid gid cgroup)",
					 a);
				return CFQX_EXIT_USAGE;
			}
		} else {
			cfqx_err("policy: unexpected argument '%s'", a);
			return CFQX_EXIT_USAGE;
		}
	}
	if (hex && json) {
		cfqx_err("policy: --hex and --json do not go together");
		return CFQX_EXIT_USAGE;
	}
	if (!hex && cfqx_read_policy(&pol))
		return CFQX_EXIT_FAIL;
	if (key >= 0)
		pol.group_by = key;
	for (i = 1; i < CFQX_POLICY_SIZE / 4; i++)
		if (fieldset[i])
			((__u32 *)&pol)[i] = ((__u32 *)&set)[i];
	if (cfqx_policy_validate(&pol, err, sizeof(err))) {
		cfqx_err("%s", err);
		return CFQX_EXIT_USAGE;
	}
	if (hex) {
		cfqx_policy_hex(&pol, buf, sizeof(buf));
		printf("%s\n", buf);
		return 0;
	}
	if (key >= 0 || nfield) {
		if (cfqx_write_policy(&pol))
			return CFQX_EXIT_FAIL;
	}
	if (json) {
		cfqx_policy_json(stdout, &pol);
		putchar('\n');
	} else {
		cfqx_policy_print(stdout, &pol);
	}
	return 0;
}
