# The BPF accounting tests of the cfqx command, on Debian's 6.1 kernel.
# test-bpf-accounting is built by the user/ part (build/tests); when it was
# not built this test says so and fails rather than pass silently.
. /tests/lib.sh
FAILED=0
if [ ! -x /cfqx/bin/test-bpf-accounting ]; then
	notok "test-bpf-accounting not in the initramfs (build/tests/test-bpf-accounting not built)"
	exit 1
fi
cd /cfqx
# The soak with a fifth of its processes: a fork costs about 2 ms under
# TCG, and the full 100000 took 210 s of the guest's 600 (the host runs
# the full soak in test-bpf; 20000 still recycle the 8 MiB maps many times).
CFQX_SOAK_PROCS=20000 CFQX_BPF_OBJ=/cfqx/cfqx.bpf.o test-bpf-accounting
rc=$?
check "test-bpf-accounting on $(uname -r) (rc $rc)" [ $rc -eq 0 ]
exit $FAILED
