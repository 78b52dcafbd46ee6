#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vma-test.sh
# Build and run tools/testing/vma, the userspace test of the VMA code, in
# the tree: it includes mm/vma.h, so it tests the series'
# vma_flags_perm_upgrade() itself.  Its "N tests run, N passed, N failed."
# line becomes "vma-test: N passed, N failed".

. "$(dirname "$0")/lib.sh"
need make gcc

[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
dir=$TREE/tools/testing/vma
[ -d "$dir" ] || die "no $dir"

make -s -C "$dir" -j"$(nproc)" vma >&2 || {
	info "tools/testing/vma did not build (liburcu-dev missing? run 'make deps')"
	report vma-test 0 1
	exit 1
}
rc=0
(cd "$dir" && ./vma) >"$BUILD/vma-test.out" 2>&1 || rc=$?
cat "$BUILD/vma-test.out"
line=$(grep -E '^[0-9]+ tests run, [0-9]+ passed, [0-9]+ failed\.$' "$BUILD/vma-test.out" | tail -n 1)
if [ -z "$line" ]; then
	info "no result line from tools/testing/vma (exit $rc)"
	report vma-test 0 1
	exit 1
fi
passed=$(echo "$line" | awk '{ print $4 }' | tr -d ,)
failed=$(echo "$line" | awk '{ print $6 }')
report vma-test "$passed" "$failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
