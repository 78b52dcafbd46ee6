#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Write the tree's commits on top of the base as format-patch files, with
# a cover letter taken from cover-letter.txt (first paragraph: subject,
# rest: blurb), to DIR (default: series/).  The output depends only on the
# commits: zeroed From hashes, no signature, the cover letter dated like
# the newest patch.  Refuses a dirty tree, unless --allow-dirty (used to
# compare the tree's commits with series/), which exports HEAD.

. "$(dirname "$0")/lib.sh"
need git

if [ "${1:-}" = --allow-dirty ]; then
	shift
	[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
else
	tree_must_be_clean
fi
out=${1:-$SERIES}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

n=$(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD")
if [ "$n" -gt 0 ]; then
	branch=$(git -C "$TREE" symbolic-ref --short -q HEAD || echo HEAD)
	git -C "$TREE" \
		-c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c diff.relative=false -c format.signature= \
		-c format.coverLetter=false -c format.numbered=auto \
		-c "branch.$branch.description=$(cat "$COVER")" \
		format-patch -q -o "$tmp" --zero-commit --no-signature \
		--subject-prefix="$SERIES_PREFIX" -v "$SERIES_VERSION" \
		--cover-letter --cover-from-description=subject \
		--base="$BASE_TAG" "$BASE_TAG..HEAD"
	cover=$(find "$tmp" -name '*0000-cover-letter.patch')
	last=$(find "$tmp" -name '*.patch' | LC_ALL=C sort | tail -n 1)
	date=$(sed -n '/^Date: /{p;q}' "$last")
	sed "s/^Date: .*/$date/" "$cover" >"$tmp/cover" && mv "$tmp/cover" "$cover"
fi

mkdir -p "$out"
find "$out" -maxdepth 1 -name '*.patch' -delete
[ "$n" -eq 0 ] || cp "$tmp"/*.patch "$out"/
info "exported $n patches to $out"
