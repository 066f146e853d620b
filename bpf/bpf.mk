# SPDX-License-Identifier: GPL-2.0
# BPF side: every bpf/<name>.bpf.c becomes build/<name>.bpf.o (CO-RE, BTF)
# and build/<name>.skel.h (Debian's bpftool, matching libbpf 1.1).  The
# main object is $(BPF_OBJ) = build/cfqx.bpf.o; other objects (test-only,
# newer-kernel extras) ride on the same pattern rules.
BPF_SRCS := $(wildcard $(ROOT)/bpf/*.bpf.c)
BPF_OBJS := $(patsubst $(ROOT)/bpf/%.bpf.c,$(BUILD)/%.bpf.o,$(BPF_SRCS))
BPF_SKELS := $(BPF_OBJS:.bpf.o=.skel.h)
BPF_HDRS := $(wildcard $(ROOT)/include/cfqx/*.h) $(wildcard $(ROOT)/bpf/*.bpf.h)
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) \
	-I$(ROOT)/include -I$(ROOT) -Wall -Werror

$(BUILD)/%.bpf.o: $(ROOT)/bpf/%.bpf.c $(BPF_HDRS) $(VMLINUX) | deps $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o | deps
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL_GEN) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# The object `cfqx load` embeds: the same source with the block_io_start
# program added (CFQX_IO_START_HOOK), which the loader turns on or off
# from the running kernel's BTF.  build/cfqx.bpf.o, the one bpftool loads
# and attaches whole (autoattach), has no program a 6.1 kernel lacks.
$(BUILD)/cfqx-cmd.bpf.o: $(ROOT)/bpf/cfqx.bpf.c $(BPF_HDRS) $(VMLINUX) | deps $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DCFQX_IO_START_HOOK -c $< -o $@

$(BUILD)/cfqx.skel.h: $(BUILD)/cfqx-cmd.bpf.o | deps
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL_GEN) gen skeleton $< name cfqx_bpf > $@

ALL += $(BPF_OBJS) $(BPF_SKELS) $(BUILD)/cfqx-cmd.bpf.o
