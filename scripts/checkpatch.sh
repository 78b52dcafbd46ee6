#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict on every commit of the tree on top of the base,
# as git format-patch writes it (the tree as it is, not series/: a fixup
# is checked before it is exported; uncommitted changes are not commits
# and are not checked).  checkpatch_patch (lib.sh) runs it the way
# bisect-check does.  Prints the result of each patch.

. "$(dirname "$0")/lib.sh"
need perl git
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no kernel tree at $TREE: run 'make tree'"

dir=$BUILD/checkpatch
rm -rf "$dir"
"$TOP/scripts/export.sh" --allow-dirty "$dir" 2>/dev/null

pass=0
fail=0
for p in $(series_patches "$dir"); do
	if out=$(checkpatch_patch "$TREE" "$p"); then
		pass=$((pass + 1))
		echo "ok       ${p#"$dir"/}"
	else
		fail=$((fail + 1))
		echo "FAILED   ${p#"$dir"/}"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
done
report checkpatch "$pass" "$fail"
[ "$fail" -eq 0 ]
