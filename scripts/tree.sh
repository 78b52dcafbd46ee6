#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Create the kernel tree ($TREE): a git repository whose first commit is
# the base (tag v$BASE_VERSION), with the patches of series/, posting by
# posting in the order of series/POSTINGS, applied by git am on branch
# series.  An existing tree is never reset: when it differs from
# series/ it is kept with a one-line warning saying how, and every test
# target tests it as it is (HEAD and uncommitted changes).  KPU_FORCE=1
# rebuilds it from series/, keeping the old head under a backup tag.
#: KPU_FORCE          make tree: 1 rebuilds a tree that differs from series/

. "$(dirname "$0")/lib.sh"
need git

postings >/dev/null

# tree.sh --state: the one line, nothing changed.
if [ "${1:-}" = --state ]; then
	tree_state || :
	exit 0
fi

patches() {
	series_patches "$SERIES"
}

apply_series() {
	# Every posting listed, with as many patches as the list says.
	postings | while read -r name count _; do
		n=$(posting_patches "$SERIES" "$name" | wc -l)
		[ "$n" -eq "$count" ] ||
			die "series/$name has $n patches, series/POSTINGS says $count: run make export, or fix the list"
	done || exit 1
	# shellcheck disable=SC2046 # patch names have no spaces
	set -- $(patches)
	[ $# -gt 0 ] || { info "series/ is empty: tree is the bare base"; stamp; return 0; }
	info "applying $# patches"
	for p; do
		if ! git -C "$TREE" am -q --3way "$p" >&2; then
			cat >&2 <<-MSG
			$PROG: error: patch does not apply: series/${p#"$SERIES"/}
			$PROG: the tree is left in 'git am' state: fix it in $TREE, then
			$PROG:   git am --continue (or --skip / --abort), and 'make export'
			MSG
			exit 1
		fi
	done
	stamp
}

# What was applied, so that tree_state knows the tree at once (lib.sh).
stamp() {
	echo "$(git -C "$TREE" rev-parse HEAD) $(series_stamp)" >"$(stamp_file)"
}

identity() {
	# git am needs a committer: the repo's own identity.  Exported
	# patches do not carry it, and the tree's commits are not signed
	# off: make out adds the sender's Signed-off-by.  A machine with
	# none gets a placeholder.
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

# An existing tree: tested as it is.  One that differs from series/ (new
# commits, uncommitted fixups) is kept with a warning; only KPU_FORCE=1
# rebuilds it from series/, and never over uncommitted changes or a
# half-done git am or rebase.
! tree_mid_operation ||
	die "$TREE is in the middle of git am or rebase: finish or abort it first"
if state=$(tree_state); then
	info "$state"
	exit 0
fi
at_base=false
[ "$(git -C "$TREE" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ] ||
	at_base=true
# A clean tree at the bare base has nothing to lose: apply series/.
if ! { $at_base && [ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; } &&
		[ "${KPU_FORCE:-0}" != 1 ]; then
	info "warning: $state"
	info "testing the tree as it is"
	exit 0
fi
tree_must_be_clean

if ! $at_base; then
	stamp=backup/$(date +%Y%m%d-%H%M%S)
	tag=$stamp
	n=1
	while git -C "$TREE" rev-parse -q --verify "refs/tags/$tag" >/dev/null; do
		n=$((n + 1))
		tag=$stamp-$n
	done
	git -C "$TREE" tag "$tag" HEAD
	info "old head kept as tag $tag"
fi
git -C "$TREE" checkout -q -B "$BRANCH" "$BASE_TAG"
identity
apply_series
info "tree rebuilt from series/"
