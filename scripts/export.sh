#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# export.sh [--allow-dirty] [DIR]
# Write the tree's commits on top of the base as the postings that
# series/POSTINGS lists (lib.sh postings()), each into DIR/NAME (default
# series/NAME) as git format-patch writes it for mailing: numbered within
# the posting, "[PATCH]" or "[RFC PATCH vN]", with base-commit: and a
# prerequisite-patch-id: for every patch of the postings it needs, and a
# cover letter from series/NAME/cover-letter.txt (first paragraph:
# subject, rest: blurb) when it has more than one patch; a posting of one
# patch gets series/NAME/notes.txt, if there is one, below its "---".
#
# The tree is one stack: the postings' commits in the order of the list.
# A posting whose needs are all the postings before it is exported from
# the stack as it is.  One that needs fewer is cherry-picked onto the
# base and what it needs (in the worktree build/linux-export): the
# export fails when it does not apply there, so every posting that is
# exported applies on what it says it needs.
#
# The output depends only on the commits: zeroed From hashes, no
# signature, a cover letter dated like its last patch.  Refuses a dirty
# tree, unless --allow-dirty (used to compare the tree's commits with
# series/), which exports HEAD.

. "$(dirname "$0")/lib.sh"
need git

strict=true
if [ "${1:-}" = --allow-dirty ]; then
	shift
	strict=false
	[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
else
	tree_must_be_clean
fi
out=${1:-$SERIES}

tmp=$(mktemp -d)
# The worktree and branches of this run only: two runs at once (a make
# target's tree_state beside make export) do not meet.
wt=
ref=rfc-export-$$
cleanup() {
	rm -rf "$tmp"
	git -C "$TREE" for-each-ref --format='%(refname:short)' "refs/heads/$ref/" |
		xargs -r git -C "$TREE" branch -q -D
	if [ -n "$wt" ]; then
		git -C "$wt" cherry-pick --abort >/dev/null 2>&1 || :
		git -C "$TREE" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
		git -C "$TREE" worktree prune
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

postings >"$tmp/list"
git -C "$TREE" rev-list --reverse "$BASE_TAG..HEAD" >"$tmp/commits"
n=$(wc -l <"$tmp/commits")
want=$(awk '{ s += $2 } END { print s + 0 }' "$tmp/list")
if [ "$n" -ne "$want" ]; then
	! $strict ||
		die "series/POSTINGS gives its postings $want patches, the tree has $n commits on $BASE_TAG: say in series/POSTINGS which posting each commit belongs to"
	# Comparing the tree with series/: the postings take the commits in
	# order, the last one takes whatever is left, and the postings that
	# get none are left out.
	awk -v n="$n" '
		{ c = $2 < n ? $2 : n; n -= c; $2 = c; if (c > 0) l[++k] = $0 }
		END {
			if (n > 0) { split(l[k], w, " "); w[2] += n; l[k] = w[1] " " w[2]; for (i = 3; i in w; i++) l[k] = l[k] " " w[i] }
			for (i = 1; i <= k; i++) print l[i]
		}' "$tmp/list" >"$tmp/list.n"
	mv "$tmp/list.n" "$tmp/list"
fi

# commits_of NAME: the tree's commits that make up posting NAME.
commits_of() {
	awk -v p="$1" '$1 == p { print from + 1, from + $2 } { from += $2 }' "$tmp/list" |
		{ read -r a b; sed -n "${a},${b}p" "$tmp/commits"; }
}

head=$(git -C "$TREE" rev-parse HEAD)
cp "$tmp/list" "$tmp/order"
i=0
while read -r name count rfc version _; do
	i=$((i + 1))
	commits_of "$name" >"$tmp/mine"
	first=$(head -n 1 "$tmp/mine")
	last=$(tail -n 1 "$tmp/mine")
	before=$(awk -v n="$i" 'NR < n { print $1 }' "$tmp/list")
	needs=$(posting_needs "$name")
	needs_w=$(echo "$needs" | paste -s -d' ' -)
	if [ "$needs" = "$before" ]; then
		repo=$TREE from=$first^ to=$last
	else
		# Cherry-pick what it needs and then the posting onto the base.
		if [ -z "$wt" ]; then
			mkdir -p "$BUILD"
			wt=$(mktemp -d "$BUILD/linux-export.XXXXXX")
			git -C "$TREE" worktree add -q --detach "$wt" "$BASE_TAG"
		fi
		git -C "$wt" checkout -q --detach "$BASE_TAG"
		for d in $needs; do commits_of "$d"; done >"$tmp/picks"
		if [ -s "$tmp/picks" ] &&
				! xargs git -C "$wt" -c commit.gpgSign=false cherry-pick --allow-empty <"$tmp/picks" >"$tmp/log" 2>&1; then
			cat "$tmp/log" >&2
			die "posting $name: what it needs ($needs_w) does not apply on $BASE_TAG without the postings in between"
		fi
		from=$(git -C "$wt" rev-parse HEAD)
		if ! xargs git -C "$wt" -c commit.gpgSign=false cherry-pick --allow-empty <"$tmp/mine" >"$tmp/log" 2>&1; then
			cat "$tmp/log" >&2
			die "posting $name does not apply on $BASE_TAG${needs_w:+ + $needs_w} (series/POSTINGS says that is all it needs)"
		fi
		repo=$wt to=$(git -C "$wt" rev-parse HEAD)
	fi
	prefix=PATCH
	[ "$rfc" = - ] || prefix="RFC PATCH"
	set -- --subject-prefix="$prefix"
	[ "$version" -eq 1 ] || set -- "$@" -v "$version"
	desc=
	if [ "$count" -gt 1 ]; then
		c=$SERIES/$name/cover-letter.txt
		if [ -f "$c" ]; then
			desc=$(cat "$c")
		elif $strict; then
			die "posting $name has $count patches and no cover letter: write $c (first paragraph: subject)"
		else
			desc="$name (no cover letter yet)"
		fi
		set -- "$@" --cover-letter --cover-from-description=subject
	fi
	# format-patch takes the cover letter's text from the description of
	# the branch it exports: a temporary one, at the posting's last commit.
	# Its prerequisite-patch-id: lines are patch ids of diffs without the
	# indent heuristic (git 2.39), whatever the patches use; so the patches
	# go without it too, or b4 could not find a needed posting's patch by
	# the id of its text where the heuristic moves a hunk.
	mkdir -p "$tmp/out/$name"
	git -C "$repo" branch -f "$ref/$name" "$to"
	git -C "$repo" \
		-c core.abbrev=12 -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c diff.relative=false -c format.signature= \
		-c format.coverLetter=false -c format.numbered=auto -c format.signOff=false \
		-c "branch.$ref/$name.description=$desc" \
		format-patch -q -o "$tmp/out/$name" --zero-commit --no-signature --no-indent-heuristic \
		"$@" --base="$BASE_TAG" "$from..$ref/$name"
	git -C "$repo" branch -q -D "$ref/$name"
	# A posting of one patch has no cover letter: what its cover would say
	# (what it needs, its base) goes below the patch's "---", from
	# series/NAME/notes.txt, where git am does not take it.
	n_=$SERIES/$name/notes.txt
	if [ -f "$n_" ]; then
		[ "$count" -eq 1 ] ||
			die "posting $name has $count patches: its notes go in $SERIES/$name/cover-letter.txt, not $n_"
		p_=$(find "$tmp/out/$name" -name '*.patch')
		awk -v f="$n_" '!done && $0 == "---" {
			print; while ((getline l < f) > 0) print l; print ""; done = 1; next
		} { print }' "$p_" >"$tmp/notes" && mv "$tmp/notes" "$p_"
	fi
	cover=$(find "$tmp/out/$name" -name '*0000-cover-letter.patch')
	if [ -n "$cover" ]; then
		lastp=$(find "$tmp/out/$name" -name '*.patch' | LC_ALL=C sort | tail -n 1)
		date=$(sed -n '/^Date: /{p;q}' "$lastp")
		sed "1,/^\$/ s/^Date: .*/$date/" "$cover" >"$tmp/cover" && mv "$tmp/cover" "$cover"
	fi
done <"$tmp/order"
[ "$(git -C "$TREE" rev-parse HEAD)" = "$head" ] || die "the tree moved during the export"

# The prerequisite-patch-id: lines of every posting must name the patches
# of the postings it needs as they are exported (b4 finds them by these).
while read -r name _; do
	for d in $(posting_needs "$name"); do
		for p in $(posting_patches "$tmp/out" "$d"); do
			git -C "$TREE" patch-id --stable <"$p" | cut -d' ' -f1
		done
	done | LC_ALL=C sort >"$tmp/want"
	cat "$tmp/out/$name"/*.patch | sed -n 's/^prerequisite-patch-id: \([0-9a-f]\{40\}\)$/\1/p' |
		LC_ALL=C sort >"$tmp/got"
	cmp -s "$tmp/want" "$tmp/got" ||
		die "posting $name: its prerequisite-patch-id: lines do not name the patches of $(posting_needs "$name" | paste -s -d' ' -) as exported"
done <"$tmp/order"

mkdir -p "$out"
# Every posting's directory gets exactly its patches; a directory of a
# posting no longer listed loses its patches (and says so).
find "$out" -mindepth 2 -maxdepth 2 -name '*.patch' | sed 's|/[^/]*$||' | sort -u |
while read -r d; do
	! $strict || grep -q "^${d##*/} " "$tmp/list" ||
		info "warning: $d is no posting of series/POSTINGS: its patches removed"
	find "$d" -maxdepth 1 -name '*.patch' -delete
done
find "$out" -maxdepth 1 -name '*.patch' -delete
while read -r name _; do
	mkdir -p "$out/$name"
	cp "$tmp/out/$name"/*.patch "$out/$name/"
done <"$tmp/list"
info "exported $n patches as $(wc -l <"$tmp/list") postings to $out"
