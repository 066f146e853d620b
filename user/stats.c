// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx stats [--json]`: totals per device and group since load, read from
 * the pinned maps (works the same for a bpftool-loaded instance).  The JSON
 * schema is documented in the README; tests and the demo rely on it.
 */
#include <stdio.h>
#include <string.h>
#include "cfqx.h"

int cfqx_cmd_stats(int argc, char **argv)
{
	struct cfqx_snapshot s;
	int json = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: cfqx stats [--json]\n"
			       "  Requests, bytes, latency percentiles, deadline misses, seeks,\n"
			       "  budget and starvation per device and group since load.\n");
			return 0;
		} else {
			cfqx_err("stats: bad argument '%s'", argv[i]);
			return CFQX_EXIT_USAGE;
		}
	}
	if (cfqx_snapshot_read(&s))
		return CFQX_EXIT_FAIL;
	if (json)
		cfqx_stats_json(stdout, &s);
	else
		cfqx_stats_text(stdout, &s);
	cfqx_snapshot_free(&s);
	return fflush(stdout) ? CFQX_EXIT_FAIL : 0;
}
