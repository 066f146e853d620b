// SPDX-License-Identifier: GPL-2.0
/*
 * cfqx: entry point and command table.  Each subcommand lives in its own
 * file; to add one, declare it in cfqx.h and add a row here.
 */
#include <stdio.h>
#include <string.h>
#include "cfqx.h"

static const struct cfqx_command commands[] = {
	{ "load", cfqx_cmd_load, "load, attach and pin the BPF accounting" },
	{ "unload", cfqx_cmd_unload, "detach and remove everything pinned" },
	{ "status", cfqx_cmd_status, "loaded?, policy, devices, drop counters" },
	{ "policy", cfqx_cmd_policy, "print or switch the live policy" },
	{ "stats", cfqx_cmd_stats, "totals per device and group since load" },
	{ "top", cfqx_cmd_top, "live per-group bandwidth table" },
	{ "run", cfqx_cmd_run, "daemon: events to uevents (and JSON lines)" },
	{ "events", cfqx_cmd_events, "print the event stream, one line each" },
	{ "sim", cfqx_cmd_sim, "simulate a fio job file on a device model" },
	{ "fairness", cfqx_cmd_fairness, "max-min fair shares of measured figures" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: cfqx COMMAND [ARGS]   (cfqx COMMAND --help)\n\n"
		"CFQ v2 (Linux 2.6.10) per-group I/O accounting in BPF.\n\n"
		"commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name,
			commands[i].summary);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return CFQX_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	cfqx_err("unknown command '%s' (try cfqx --help)", argv[1]);
	return CFQX_EXIT_USAGE;
}
