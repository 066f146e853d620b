# The main job and the BPF cost benchmark (scripts/demo.sh,
# scripts/bench-bpf.sh); both need root and the cfqx command.
.PHONY: demo bench-bpf
demo: $(CFQX_BIN) $(BPF_OBJ) | deps
	$(Q)$(ROOT)/scripts/demo.sh

bench-bpf: $(CFQX_BIN) $(BPF_OBJ) | deps
	$(Q)$(ROOT)/scripts/bench-bpf.sh
