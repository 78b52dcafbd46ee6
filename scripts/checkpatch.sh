#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --strict on every patch of series/ (cover letter aside),
# with the tree's own checkpatch.  Prints the result of each patch and
# writes "PASSED FAILED" to $1 when given.
#
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") fires on every new
# file whatever MAINTAINERS says; it is replaced by the question itself:
# get_maintainer.pl must name a maintainer for each file a patch creates.

. "$(dirname "$0")/lib.sh"
need perl
[ -x "$TREE/scripts/checkpatch.pl" ] || die "no kernel tree at $TREE: run 'make tree'"

# New files of a patch that no MAINTAINERS entry covers.
unmaintained() {
	bad=0
	for f in $(awk '/^diff --git / { f = $4 } /^new file mode/ { print substr(f, 3) }' "$1"); do
		if ! ./scripts/get_maintainer.pl --no-git --no-git-fallback --nol --nor \
				-f "$f" 2>/dev/null | grep -q '(maintainer:'; then
			echo "$f: new file without a maintainer in MAINTAINERS"
			bad=1
		fi
	done
	return "$bad"
}

# checkpatch runs scripts/spdxcheck.py with the first python3 on PATH; it
# needs Debian's, which has python3-ply and python3-git.
PATH=/usr/bin:$PATH

pass=0
fail=0
for p in $([ ! -d "$SERIES" ] || find "$SERIES" -maxdepth 1 -name '*.patch' ! -name '*0000-cover-letter.patch' | LC_ALL=C sort); do
	if out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --quiet --showfile \
			--ignore FILE_PATH_CHANGES "$p" 2>&1 && unmaintained "$p"); then
		pass=$((pass + 1))
		echo "ok       ${p##*/}"
	else
		fail=$((fail + 1))
		echo "FAILED   ${p##*/}"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
done
echo "checkpatch: $pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" -eq 0 ]
