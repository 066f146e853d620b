#!/usr/bin/env bash
# Summarizes build/test-results/: fails when a test failed or none ran.
set -u
dir=$1
pass=$(ls "$dir"/*.pass 2>/dev/null | wc -l)
fail=$(ls "$dir"/*.fail 2>/dev/null | wc -l)
echo "=== summary: $pass passed, $fail failed"
for f in "$dir"/*.fail; do
	[ -e "$f" ] && echo "    FAILED: $(basename "$f" .fail)"
done
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
