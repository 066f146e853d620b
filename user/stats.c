// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx stats [--json|--prometheus]`: totals per device and group since
 * load, read from the pinned maps (works the same for a bpftool-loaded
 * instance).  The JSON schema is documented in docs/abi.md; tests and the
 * demo rely on it.  --prometheus prints the text exposition format for
 * node_exporter's textfile collector (docs/metrics.md).
 */
#include <stdio.h>
#include <string.h>
#include "cfqx.h"

int cfqx_cmd_stats(int argc, char **argv)
{
	struct cfqx_snapshot s;
	int json = 0, prom = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--prometheus")) {
			prom = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: cfqx stats [--json | --prometheus]\n"
			       "  Requests, bytes, latency percentiles, deadline misses, seeks,\n"
			       "  budget and starvation per device and group since load.\n"
			       "  --prometheus: text exposition format (node_exporter textfile).\n");
			return 0;
		} else {
			cfqx_err("stats: bad argument '%s'", argv[i]);
			return CFQX_EXIT_USAGE;
		}
	}
	if (json && prom) {
		cfqx_err("stats: --json and --prometheus exclude each other");
		return CFQX_EXIT_USAGE;
	}
	if (cfqx_snapshot_read(&s))
		return CFQX_EXIT_FAIL;
	if (prom)
		cfqx_prom_write(stdout, &s);
	else if (json)
		cfqx_stats_json(stdout, &s);
	else
		cfqx_stats_text(stdout, &s);
	cfqx_snapshot_free(&s);
	return fflush(stdout) ? CFQX_EXIT_FAIL : 0;
}
