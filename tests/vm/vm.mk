# SPDX-License-Identifier: GPL-2.0
# VM tests of the cfqx elevator: build the initramfs (scripts/vm/
# mkinitramfs.sh) and boot Debian's 6.1 kernel under QEMU (scripts/vm/
# run.sh).  `vm-test` is part of `make test`; `bench-sched` compares cfqx
# with none, mq-deadline, kyber and bfq and writes build/bench-sched.{txt,md,png}.
VM_DIR := $(BUILD)/vm
VM_INITRD := $(VM_DIR)/initramfs.cpio
VM_HELPER := $(TEST_BIN)/vm/cfqx-vm-attach
VM_TIMEOUT ?= 600
BENCH_TIMEOUT ?= 1500

$(VM_HELPER): $(ROOT)/tests/vm/cfqx-vm-attach.c | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(USER_CFLAGS) -static -o $@ $<

# Rebuilt every time: it picks up whatever other parts built (cfqx, tests).
.PHONY: vm-initramfs
vm-initramfs: $(KMOD_KO) $(VM_HELPER) | deps
	$(call msg,CPIO,$(VM_INITRD))
	$(Q)mkdir -p $(VM_DIR)
	$(Q)$(ROOT)/scripts/vm/mkinitramfs.sh $(VM_INITRD)

.PHONY: vm-test bench-sched
TESTS += vm-test
vm-test: vm-initramfs
	$(Q)$(call run_test,vm-test) $(ROOT)/scripts/vm/run.sh $(VM_INITRD) test $(VM_TIMEOUT)

bench-sched: vm-initramfs
	$(Q)$(ROOT)/scripts/vm/run.sh $(VM_INITRD) bench $(BENCH_TIMEOUT) && \
		$(ROOT)/scripts/vm/bench-report.sh $(VM_DIR)/console-bench.log $(BUILD)
