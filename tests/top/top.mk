# SPDX-License-Identifier: GPL-2.0
# `cfqx top` end to end (issue 13): live-policy filtering, --all, the
# header, and the q/p/s keys on a pseudo terminal (root, ASan build).
.PHONY: test-top
test-top: $(BUILD)/cfqx-asan | deps
	$(Q)$(call run_test,top) env CFQX=$(BUILD)/cfqx-asan $(ROOT)/tests/top/top.sh
TESTS += test-top
