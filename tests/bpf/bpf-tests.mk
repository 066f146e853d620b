# SPDX-License-Identifier: GPL-2.0
# Root integration test of the BPF accounting and the cfqx command on a
# real loop device over tmpfs (see tests/bpf/test-bpf-accounting.c).  The
# binary is self-contained so the VM harness can run it on 6.1 too.
BPF_TEST := $(TEST_BIN)/test-bpf-accounting

$(TEST_BIN):
	$(Q)mkdir -p $@

$(BPF_TEST): $(ROOT)/tests/bpf/test-bpf-accounting.c \
		$(ROOT)/tests/bpf/json-mini.h | deps $(TEST_BIN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(USER_CFLAGS) $< -lpthread -o $@

.PHONY: test-bpf
test-bpf: $(BPF_TEST) $(CFQX_BIN) $(BPF_OBJ)
	$(Q)$(call run_test,bpf) $(BPF_TEST) --cfqx $(CFQX_BIN) \
		--bpf-obj $(BPF_OBJ) --require-bpftool

ALL += $(BPF_TEST)
TESTS += test-bpf

# Same test driving the ASan+UBSan build of cfqx (leaks and UB fail it),
# with records started at block_getrq: test-bpf takes cfqx's own choice
# (block_io_start where the kernel has it, as on 6.5+ hosts), so the two
# runs cover both start hooks; the 6.1 guest runs getrq (t60).
.PHONY: test-bpf-asan
test-bpf-asan: $(BPF_TEST) $(BUILD)/cfqx-asan $(BPF_OBJ)
	$(Q)$(call run_test,bpf-asan) env ASAN_OPTIONS=detect_leaks=1:exitcode=99 \
		$(BPF_TEST) --cfqx $(BUILD)/cfqx-asan --bpf-obj $(BPF_OBJ) --require-bpftool \
		--start-hook getrq

TESTS += test-bpf-asan
