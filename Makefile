# SPDX-License-Identifier: GPL-2.0
# cfqx build, in the style of libbpf-bootstrap: quiet by default (V=1 shows
# every command), generated files in build/, .DELETE_ON_ERROR so a failed
# step never leaves a half-written output.  Each part of the tree adds its
# own rules and tests in a fragment (kfifo/kfifo.mk, bpf/bpf.mk, ...).
.DELETE_ON_ERROR:
.DEFAULT_GOAL := all
SHELL := /bin/bash

ROOT := $(abspath .)
BUILD := $(ROOT)/build

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(ROOT)/%,%,$(2))";
MAKEFLAGS += --no-print-directory
endif

CC := gcc
CXX := g++
CLANG ?= clang
# Skeletons come from Debian's bpftool so they match the system libbpf 1.1;
# scripts/bpftool.sh installs a newer one (for autoattach) in /usr/local.
BPFTOOL_GEN ?= /usr/sbin/bpftool
ARCH := x86

OPT ?= -O2
USER_CFLAGS := -std=c11 -D_GNU_SOURCE $(OPT) -g -Wall -Wextra -Werror \
	-I$(ROOT)/include -I$(ROOT)/kfifo/include -I$(BUILD)
USER_LDFLAGS :=

# Sanitizer flavours of user code, used by the test targets.
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
TSAN_FLAGS := -fsanitize=thread -fno-omit-frame-pointer

# Everything a target needs from the system (packages, bpffs, tracefs):
# scripts/deps.sh is idempotent and quick when nothing is missing.
.PHONY: deps
deps:
	$(Q)$(ROOT)/scripts/deps.sh

$(BUILD):
	$(Q)mkdir -p $@

# Tests: each fragment appends its test targets to TESTS; run_test records
# a verdict per test and checks dmesg for new splats.
TESTS :=
run_test = $(ROOT)/scripts/run-test.sh $(1)

# vmlinux.h from the running kernel's BTF, never committed.
VMLINUX := $(ROOT)/vmlinux.h
$(VMLINUX): | deps $(BUILD)
	$(call msg,BTF,$@)
	$(Q)bpftool btf dump file /sys/kernel/btf/vmlinux format c > $@

# Outputs every fragment may name (fragments are included in alphabetical
# order, so cross-part paths are fixed here).
LIBKFIFO_A := $(BUILD)/libkfifo.a
LIBKFIFO_SO := $(BUILD)/libkfifo.so
BPF_OBJ := $(BUILD)/cfqx.bpf.o
CFQX_BIN := $(BUILD)/cfqx
TEST_BIN := $(BUILD)/tests
# The scheduling core, compiled unchanged into the module, `cfqx sim` and
# the unit tests.
SCHED_SRCS := $(ROOT)/sched/cfqx-sched.c
SCHED_HDRS := $(wildcard $(ROOT)/sched/*.h)
ALL :=

-include $(sort $(wildcard $(ROOT)/*/*.mk $(ROOT)/tests/*/*.mk))

.PHONY: all test bench clean
all: $(ALL)

# Every benchmark, one after another (each prints its own table).
bench: bench-kfifo bench-bpf bench-events bench-sched

test: | deps
	$(Q)rm -rf $(BUILD)/test-results
	$(Q)rc=0; $(MAKE) -k $(TESTS) || rc=$$?; \
		$(ROOT)/scripts/test-summary.sh $(BUILD)/test-results || rc=1; \
		exit $$rc

clean:
	$(call msg,CLEAN,build)
	$(Q)rm -rf $(BUILD) kmod/*.o kmod/*.ko kmod/*.mod* kmod/.*.cmd \
		kmod/modules.order kmod/Module.symvers
