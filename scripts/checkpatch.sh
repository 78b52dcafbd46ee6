#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict on every commit of the tree on top of the base,
# as git format-patch writes it (the tree as it is, not series/: a fixup
# is checked before it is exported; uncommitted changes are not commits
# and are not checked).  checkpatch_patch (lib.sh) runs it the way
# bisect-check does, as many at a time as there are CPUs (it is
# single-threaded).  Prints the result of each patch, in order.
# checkpatch.sh --one PATCH: one patch, its output in PATCH.out and its
# exit status in PATCH.rc.

. "$(dirname "$0")/lib.sh"
need perl git
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no kernel tree at $TREE: run 'make tree'"

if [ "${1:-}" = --one ]; then
	rc=0
	checkpatch_patch "$TREE" "$2" >"$2.out" 2>&1 || rc=$?
	echo "$rc" >"$2.rc"
	exit 0
fi

dir=$BUILD/checkpatch
rm -rf "$dir"
"$TOP/scripts/export.sh" --allow-dirty "$dir" 2>/dev/null

series_patches "$dir" | xargs -r -P "$(nproc)" -n 1 "$0" --one

pass=0
fail=0
for p in $(series_patches "$dir"); do
	if [ "$(cat "$p.rc" 2>/dev/null)" = 0 ]; then
		pass=$((pass + 1))
		echo "ok       ${p#"$dir"/}"
	else
		fail=$((fail + 1))
		echo "FAILED   ${p#"$dir"/}"
		sed 's/^/    /' "$p.out"
	fi
done
report checkpatch "$pass" "$fail"
[ "$fail" -eq 0 ]
