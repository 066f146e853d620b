# SPDX-License-Identifier: GPL-2.0
# Prometheus metrics (issue 13): `cfqx stats --prometheus` and
# `cfqx run --metrics` checked with promtool and a real Prometheus server
# (root, the ASan/UBSan build of cfqx).  The format's unit tests are in
# tests/unit/test-prom.c.
.PHONY: test-metrics
test-metrics: $(BUILD)/cfqx-asan | deps
	$(Q)$(call run_test,metrics) env CFQX=$(BUILD)/cfqx-asan \
		$(ROOT)/tests/metrics/prometheus.sh
TESTS += test-metrics
