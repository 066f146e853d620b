# SPDX-License-Identifier: GPL-2.0
# Builds the cfqx blk-mq elevator (build/kmod/cfqx.ko) against Debian
# bookworm's 6.1 kernel headers, out of the source tree: sources are
# symlinked into build/kmod and kbuild runs with M=build/kmod, W=1.
# The block-private headers come from the matching linux-source tarball at
# build time (kmod/block-headers.sh), never from the repo.

# The ABI that linux-headers-amd64 points at (6.1.0-NN-amd64).
KMOD_ABI ?= $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | \
	sed -n 's/.*linux-headers-\([0-9][^ ,]*-amd64\).*/\1/p')
KDIR ?= /usr/src/linux-headers-$(KMOD_ABI)
KSRC_TARBALL ?= /usr/src/linux-source-6.1.tar.xz
KMOD_BUILD := $(BUILD)/kmod
KMOD_HDRS := $(BUILD)/kmod-hdrs
KMOD_SRCS := $(wildcard $(ROOT)/kmod/*.c $(ROOT)/kmod/*.h) $(ROOT)/kmod/Kbuild \
	$(SCHED_SRCS) $(SCHED_HDRS)
KMOD_DEPS := $(KMOD_SRCS) $(wildcard $(ROOT)/kmod/*.h) \
	$(ROOT)/include/cfqx/cfqx.h $(ROOT)/include/cfqx/cfq.h

ALL += $(KMOD_KO)

.PHONY: kmod
kmod: $(KMOD_KO)

$(KMOD_HDRS)/.source: $(ROOT)/kmod/block-headers.sh | deps $(BUILD)
	$(call msg,HDRS,$(KMOD_HDRS)/block)
	$(Q)$(ROOT)/kmod/block-headers.sh $(KSRC_TARBALL) $(KMOD_HDRS)

$(KMOD_KO): $(KMOD_DEPS) $(KMOD_HDRS)/.source | deps
	$(call msg,KMOD,$@)
	$(Q)test -d "$(KDIR)" || { echo "kmod: KDIR $(KDIR) missing (linux-headers-amd64)" >&2; exit 1; }
	$(Q)mkdir -p $(KMOD_BUILD)
	$(Q)for f in $(KMOD_SRCS); do ln -sf $$f $(KMOD_BUILD)/; done
	$(Q)$(MAKE) -C $(KDIR) M=$(KMOD_BUILD) W=1 \
		CFQX_INCLUDE=$(ROOT)/include CFQX_BLOCK_HDRS=$(KMOD_HDRS) \
		modules > $(KMOD_BUILD)/build.log 2>&1 || { cat $(KMOD_BUILD)/build.log; exit 1; }
	$(Q)if grep -E 'warning:|error:' $(KMOD_BUILD)/build.log; then \
		echo "kmod: the build has warnings (W=1 must be clean)" >&2; rm -f $@; exit 1; fi
