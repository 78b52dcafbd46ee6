#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Create the kernel tree ($TREE): a git repository whose first commit is
# the base (tag v$BASE_VERSION), with series/*.patch applied by git am on
# branch rfc-v2.  An existing tree is left alone when it already matches
# series/; it is never reset while it holds work that series/ lacks,
# unless FORCE=1, and then the old head is kept under a backup tag.

. "$(dirname "$0")/lib.sh"
need git

patches() {
	find "$SERIES" -maxdepth 1 -name '*.patch' ! -name '*0000-cover-letter.patch' |
		LC_ALL=C sort
}

apply_series() {
	set -- $(patches)
	[ $# -gt 0 ] || { info "series/ is empty: tree is the bare base"; return 0; }
	info "applying $# patches"
	for p; do
		if ! git -C "$TREE" am -q --3way "$p" >&2; then
			cat >&2 <<-MSG
			$PROG: error: patch does not apply: series/${p##*/}
			$PROG: the tree is left in 'git am' state: fix it in $TREE, then
			$PROG:   git am --continue (or --skip / --abort), and 'make export'
			MSG
			exit 1
		fi
	done
}

identity() {
	# git am needs a committer: the repo's own identity, which is also
	# the one 'git commit -s' in the tree signs off with.  A machine
	# with none gets a placeholder (exported patches do not carry it).
	name=$(git -C "$TOP" config user.name || echo "RFC v2 harness")
	email=$(git -C "$TOP" config user.email || echo "harness@localhost")
	git -C "$TREE" config user.name "$name"
	git -C "$TREE" config user.email "$email"
}

if [ ! -e "$TREE/.git" ]; then
	[ ! -e "$TREE" ] || die "$TREE exists and is not a git tree; move it away"
	base=$("$TOP/scripts/base.sh")
	info "cloning the base into $TREE"
	mkdir -p "$(dirname "$TREE")"
	git clone -q --no-checkout "$base" "$TREE"
	git -C "$TREE" checkout -q -b "$BRANCH" "$BASE_TAG"
	git -C "$TREE" remote remove origin
	git -C "$TREE" branch -q -D master 2>/dev/null || true
	git -C "$TREE" fetch -q --no-tags "$base" "refs/tags/$BASE_TAG:refs/tags/$BASE_TAG"
	identity
	apply_series
	info "tree ready: $TREE ($(git -C "$TREE" rev-list --count "$BASE_TAG..HEAD") patches on $BASE_TAG)"
	exit 0
fi

# An existing tree: refuse to touch half-done or unexported work.
tree_must_be_clean

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tmp.series" "$tmp.tree"' EXIT INT TERM
"$TOP/scripts/export.sh" "$tmp" >/dev/null
patch_digest "$SERIES" >"$tmp.series"
patch_digest "$tmp" >"$tmp.tree"
if cmp -s "$tmp.series" "$tmp.tree"; then
	info "tree is up to date with series/"
	exit 0
fi

at_base=false
[ "$(git -C "$TREE" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ] ||
	at_base=true
if ! $at_base && [ "${FORCE:-0}" != 1 ]; then
	cat >&2 <<-MSG
	$PROG: error: $TREE differs from series/:
	$(diff "$tmp.series" "$tmp.tree" | sed -n 's/^< [^ ]*  /  only in series\/: /p; s/^> [^ ]*  /  only in the tree: /p')
	$PROG: 'make export' keeps the tree's commits (series/ follows the tree);
	$PROG: 'make tree FORCE=1' rebuilds the tree from series/ (the old head
	$PROG: is kept as a tag backup/<time> in the tree).
	MSG
	exit 1
fi

if ! $at_base; then
	tag=backup/$(date +%Y%m%d-%H%M%S)
	git -C "$TREE" tag "$tag" HEAD
	info "old head kept as tag $tag"
fi
git -C "$TREE" checkout -q -B "$BRANCH" "$BASE_TAG"
identity
apply_series
info "tree rebuilt from series/"
