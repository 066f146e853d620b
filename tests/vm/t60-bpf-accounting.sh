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
CFQX_BPF_OBJ=/cfqx/cfqx.bpf.o test-bpf-accounting
rc=$?
check "test-bpf-accounting on $(uname -r) (rc $rc)" [ $rc -eq 0 ]
exit $FAILED
