// SPDX-License-Identifier: GPL-2.0
/*
 * `cfqx status`: is an instance pinned, which policy and devices, the drop
 * counters, and the daemon's counters when `cfqx run` publishes them.
 * Exit 0 when loaded, CFQX_EXIT_NOT_LOADED (3) when not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "cfqx.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, len = 0, n;

	if (!f)
		return NULL;
	for (;;) {
		if (len + 4096 > cap) {
			char *nb = realloc(buf, cap + 8192);

			if (!nb)
				break;
			buf = nb;
			cap += 8192;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	if (buf) {
		buf[len] = 0;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
			buf[--len] = 0;
		if (buf[0] != '{') {	/* not a JSON object: don't embed */
			free(buf);
			return NULL;
		}
	}
	return buf;
}

int cfqx_cmd_status(int argc, char **argv)
{
	struct cfqx_policy pol;
	__u64 counters[CFQX_STAT_NR], misses = 0;
	__u32 dev[256], key, *prev = NULL;
	char name[32], keys[64], *daemon;
	const char *hook;
	int json = 0, i, ndev = 0, fd, nprogs;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: cfqx status [--json]\n"
			       "  Loaded?, live policy, accounted devices, drop counters,\n"
			       "  and the cfqx run daemon's counters (%s).\n"
			       "  Exit 0 when loaded, 3 when not.\n",
			       CFQX_DAEMON_JSON);
			return 0;
		} else {
			cfqx_err("status: bad argument '%s'", argv[i]);
			return CFQX_EXIT_USAGE;
		}
	}
	if (!cfqx_is_loaded()) {
		if (json)
			printf("{\"loaded\":false}\n");
		else
			printf("cfqx: not loaded\n");
		return CFQX_EXIT_NOT_LOADED;
	}
	if (cfqx_read_policy(&pol) || cfqx_read_global_stats(counters))
		return CFQX_EXIT_FAIL;
	fd = cfqx_pinned_map_fd(CFQX_MAP_DEVICES);
	if (fd < 0)
		return CFQX_EXIT_FAIL;
	while (ndev < 256 && bpf_map_get_next_key(fd, prev, &key) == 0) {
		dev[ndev] = key;
		prev = &dev[ndev++];
	}
	close(fd);
	nprogs = cfqx_count_pinned_progs();
	hook = cfqx_loaded_start_hook();
	cfqx_prog_misses(&misses);
	daemon = slurp(CFQX_DAEMON_JSON);

	if (json) {
		printf("{\"loaded\":true,\"pin_root\":\"%s\",\"programs\":%d,\"start_hook\":",
		       CFQX_PIN_ROOT, nprogs < 0 ? 0 : nprogs);
		if (hook)
			cfqx_json_str(stdout, hook);
		else
			fputs("null", stdout);
		fputs(",\"policy\":", stdout);
		cfqx_policy_json(stdout, &pol);
		printf(",\"all_devices\":%s,\"devices\":[", ndev ? "false" : "true");
		for (i = 0; i < ndev; i++) {
			cfqx_dev_name(dev[i], name, sizeof(name));
			printf("%s{\"dev\":\"%u:%u\",\"name\":", i ? "," : "",
			       CFQX_MAJOR(dev[i]), CFQX_MINOR(dev[i]));
			cfqx_json_str(stdout, name);
			putchar('}');
		}
		printf("],\"counters\":{");
		for (i = 0; i < CFQX_STAT_NR; i++)
			printf("%s\"%s\":%llu", i ? "," : "",
			       cfqx_stat_names[i], counters[i]);
		printf(",\"prog_misses\":%llu},\"daemon\":%s}\n",
		       (unsigned long long)misses, daemon ? daemon : "null");
	} else {
		cfqx_policy_keys_line(pol.group_by, keys, sizeof(keys));
		printf("cfqx: loaded (%s, %d programs attached, requests start at %s)\n",
		       CFQX_PIN_ROOT, nprogs < 0 ? 0 : nprogs,
		       hook ? hook : "no hook");
		printf("policy:   %s, quantum %u, fifo_expire_sync %u ms, fifo_expire_async %u ms, back_seek_max %u KiB, event_rate %u/s\n",
		       keys, pol.quantum, pol.fifo_expire_sync,
		       pol.fifo_expire_async, pol.back_seek_max,
		       pol.event_rate);
		printf("devices: ");
		if (!ndev)
			printf(" all");
		for (i = 0; i < ndev; i++) {
			cfqx_dev_name(dev[i], name, sizeof(name));
			printf(" %s (%u:%u)", name, CFQX_MAJOR(dev[i]),
			       CFQX_MINOR(dev[i]));
		}
		printf("\ncounters:");
		for (i = 0; i < CFQX_STAT_NR; i++)
			printf(" %s %llu", cfqx_stat_names[i], counters[i]);
		printf(" prog_misses %llu\n", (unsigned long long)misses);
		if (daemon)
			printf("daemon:   %s\n", daemon);
		else
			printf("daemon:   none (no %s)\n", CFQX_DAEMON_JSON);
	}
	free(daemon);
	return 0;
}
