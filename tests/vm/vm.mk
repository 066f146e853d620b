# SPDX-License-Identifier: GPL-2.0
# VM tests of the cfqx elevator, once per supported kernel (6.1, 6.12,
# 6.12-rt; scripts/kernels.sh): build that kernel's initramfs (scripts/vm/
# mkinitramfs.sh, with build/kmod/<release>/cfqx.ko) and boot it under
# QEMU (scripts/vm/run.sh).  `vm-test` (part of `make test`) runs
# vm-test-6.1, vm-test-6.12 and vm-test-6.12-rt, each recorded on its own;
#   make vm-test VM_KERNELS="6.12"        a subset of the kernels
#   make vm-test VM_TESTS="t10 t60"       a subset of the in-guest tests
# `bench-sched` compares cfqx with none, mq-deadline, kyber and bfq on
# BENCH_KERNEL and writes build/bench-sched.{txt,md,png}.
VM_DIR := $(BUILD)/vm
VM_KERNELS ?= $(KMOD_SUPPORTED)
VM_TESTS ?=
VM_HELPER := $(TEST_BIN)/vm/cfqx-vm-attach
# A guest's deadline only bounds a hang (the in-guest stall watchdog
# reports a stuck device within 30 s): a 6.1 guest took 465-570 s of the
# old 600 on this 2-core host, so a slower host would have failed a run
# that passes.
VM_TIMEOUT ?= 900
BENCH_KERNEL ?= 6.1
BENCH_TIMEOUT ?= 1500
vm_initrd = $(VM_DIR)/$(1)/initramfs.cpio

$(VM_HELPER): $(ROOT)/tests/vm/cfqx-vm-attach.c | deps
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(USER_CFLAGS) -static -o $@ $<

# Rebuilt every time: it picks up the module and the command, BPF object
# and BPF test the in-guest suite runs (t55, t60).
define vm_rules
.PHONY: vm-initramfs-$(1) vm-test-$(1)
vm-initramfs-$(1): kmod-$(1) $$(VM_HELPER) $$(CFQX_BIN) $$(BPF_OBJ) $$(BPF_TEST) | deps
	$$(call msg,CPIO,$(call vm_initrd,$(1)))
	$$(Q)$$(ROOT)/scripts/vm/mkinitramfs.sh $(1) $(call vm_initrd,$(1))

vm-test-$(1): vm-initramfs-$(1)
	$$(Q)CFQX_VM_TESTS="$$(VM_TESTS)" $$(call run_test,vm-test-$(1)) \
		$$(ROOT)/scripts/vm/run.sh $(1) $(call vm_initrd,$(1)) test $$(VM_TIMEOUT)
endef
$(foreach k,$(KMOD_SUPPORTED),$(eval $(call vm_rules,$(k))))

.PHONY: vm-test vm-initramfs bench-sched
TESTS += $(addprefix vm-test-,$(VM_KERNELS))
# Every kernel runs even when an earlier one failed (-k).
vm-test:
	$(Q)$(MAKE) -k $(addprefix vm-test-,$(VM_KERNELS))
vm-initramfs: $(addprefix vm-initramfs-,$(VM_KERNELS))

# The VM tables, then the simulator matrix's summary (it says which
# targets it misses; the bench reports, `make test` asserts).
# Two guests: the fairness and latency suite, then the per-request cost
# in an instruction-timed guest (tests/vm/bench-cost.sh).
bench-sched: vm-initramfs-$(BENCH_KERNEL) $(SIM_MATRIX_BIN)
	$(Q)$(ROOT)/scripts/vm/run.sh $(BENCH_KERNEL) $(call vm_initrd,$(BENCH_KERNEL)) bench $(BENCH_TIMEOUT) && \
		$(ROOT)/scripts/vm/run.sh $(BENCH_KERNEL) $(call vm_initrd,$(BENCH_KERNEL)) cost $(BENCH_TIMEOUT) && \
		$(ROOT)/scripts/vm/bench-report.sh $(BUILD) $(VM_DIR)/$(BENCH_KERNEL)/console-bench.log \
			$(VM_DIR)/$(BENCH_KERNEL)/console-cost.log
	$(Q)$(SIM_MATRIX_BIN) --out $(BUILD)/sim-matrix --plot $(BUILD)/sim-matrix.png || \
		echo "bench-sched: the simulator matrix misses targets (above)"
