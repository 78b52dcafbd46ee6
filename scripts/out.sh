#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Write the mail-ready postings to out/: the tree's commits as exported to
# series/, a directory per posting, with To: (maintainers) and Cc:
# (reviewers and lists) from the tree's get_maintainer.pl on each patch; a
# cover letter gets those of all its posting's patches.  Send one posting
# with: git send-email out/NAME/*.patch
#: KPU_OUT            make out: output directory (default out/)

. "$(dirname "$0")/lib.sh"
need git perl

out=${KPU_OUT:-$TOP/out}
rm -rf "$out"
"$TOP/scripts/export.sh" "$out"

patch_digest "$SERIES" >"$out/.series"
patch_digest "$out" >"$out/.tree"
cmp -s "$out/.series" "$out/.tree" ||
	info "warning: series/ is not the tree's export: run 'make export'"
rm -f "$out/.series" "$out/.tree"

gm() {
	(cd "$TREE" && ./scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats --no-tree "$@") | paste -s -d, - | sed 's/,/, /g'
}

# Insert To:/Cc: after the Date: header of one patch; Cc: drops whoever
# is in To: already.
headers() {
	awk -v to="$2" -v cc="$3" '
		BEGIN {
			n = split(to, t, ", ")
			for (i = 1; i <= n; i++) seen[t[i]] = 1
			m = split(cc, c, ", ")
			cc = ""
			for (i = 1; i <= m; i++)
				if (!(c[i] in seen))
					cc = cc (cc == "" ? "" : ", ") c[i]
		}
		{ print }
		!done && /^Date: / {
			if (to != "") print "To: " to
			if (cc != "") print "Cc: " cc
			done = 1
		}' "$1" >"$1.tmp" && mv "$1.tmp" "$1"
}

total=0
for d in $(postings | awk '{ print $1 }'); do
	patches=$(posting_patches "$out" "$d")
	for p in $patches; do
		total=$((total + 1))
		headers "$p" "$(gm --m --nor --nol "$p")" "$(gm --nom --r --l "$p")"
	done
	for cover in "$out/$d"/*0000-cover-letter.patch; do
		# shellcheck disable=SC2086
		[ ! -f "$cover" ] ||
			headers "$cover" "$(gm --m --nor --nol $patches)" "$(gm --nom --r --l $patches)"
	done
done
[ "$total" -gt 0 ] || { info "series is empty: nothing to mail"; exit 0; }
info "mail-ready postings in $out ($total patches in $(postings | wc -l) postings)"
