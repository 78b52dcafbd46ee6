#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh [ARCH...]
# Walk the series one commit at a time in a worktree (build/linux-bisect)
# and check that each commit builds on its own for x86_64 (KVM_INTEL=m
# KVM_AMD=m KVM_WERROR=y), arm64 and s390 (build.sh: mm/ virt/kvm/
# arch/ARCH/kvm/ with the KUnit tests built in, and on x86_64 the HMM test
# driver), that a commit touching the KVM or mm selftests or rxe_odp_test
# builds the ones it touches, and that the commit is checkpatch --strict clean
# (checkpatch_patch in lib.sh, as the checkpatch suite runs it).  Build
# directories (build/bisect/ARCH) are reused from commit to
# commit, so each step rebuilds only what the commit changed; ccache keeps
# a second run short.  Ends with "bisect-check: N passed, N failed", one
# per commit.
#: RFC_BISECT_REVS    bisect-check: the commits to walk, as git rev-list
#:                    takes them (default v7.2.8..HEAD: the whole series)

. "$(dirname "$0")/lib.sh"
need make ccache perl
[ $# -gt 0 ] || set -- x86_64 arm64 s390
tree_must_be_clean

wt=$BUILD/linux-bisect
bb=$BUILD/bisect
if [ ! -e "$wt/.git" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" "$BASE_TAG"
fi
mkdir -p "$bb"
log=$bb/log
: >"$log"
use_ccache

pass=0
fail=0
i=0
revs=${RFC_BISECT_REVS:-$BASE_TAG..HEAD}
# The number of each commit in the series, counted from the base.
first=$(git -C "$TREE" rev-list --reverse "$revs" | head -n 1)
[ -n "$first" ] || die "RFC_BISECT_REVS='$revs' selects no commit"
i=$(git -C "$TREE" rev-list --count "$BASE_TAG..$first^" 2>/dev/null) ||
	die "RFC_BISECT_REVS='$revs' starts outside $BASE_TAG..HEAD"
for c in $(git -C "$TREE" rev-list --reverse "$revs"); do
	i=$((i + 1))
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	bad=
	for a; do
		RFC_TREE=$wt RFC_BUILD=$bb "$TOP/scripts/build.sh" "$a" >>"$log" 2>&1 ||
			bad="$bad build-$a"
	done
	sel=$(git -C "$wt" diff-tree --no-commit-id --name-only --diff-filter=d -r "$c" -- \
		tools/testing/selftests/kvm | sed -n 's|^tools/testing/selftests/kvm/\(.*\)\.c$|\1|p')
	# x86/ and arm64/ tests for their arch, the others for both; not the
	# files a commit deletes (or moves away).
	for a in x86_64 arm64; do
		asel=$(echo "$sel" | awk -v a="$a" '!/\// || (a == "x86_64" && /^x86\//) ||
			(a == "arm64" && /^arm64\//)')
		[ -n "$asel" ] || continue
		# shellcheck disable=SC2086 # test names are words
		(TREE=$wt; kvm_selftests "$bb/$a" "$bb/selftests-$a" $asel) \
			>>"$log" 2>&1 || bad="$bad selftests-$a"
	done
	sel=$(git -C "$wt" diff-tree --no-commit-id --name-only --diff-filter=d -r "$c" -- \
		tools/testing/selftests/mm | sed -n 's|^tools/testing/selftests/mm/\(.*\)\.c$|\1|p')
	if [ -n "$sel" ]; then
		# shellcheck disable=SC2086 # test names are words
		(TREE=$wt; mm_selftests "$bb/x86_64" "$bb/mm" $sel) \
			>>"$log" 2>&1 || bad="$bad mm-selftests"
	fi
	if git -C "$wt" diff-tree --no-commit-id --name-only --diff-filter=d -r "$c" -- \
			tools/testing/selftests/rdma | grep -q '/rxe_odp_test\.c$'; then
		(TREE=$wt; rxe_odp_test "$bb/x86_64" "$bb/rxe_odp_test") \
			>>"$log" 2>&1 || bad="$bad rdma-selftests"
	fi
	git -C "$wt" format-patch -q -1 --stdout "$c" >"$bb/patch"
	checkpatch_patch "$wt" "$bb/patch" >>"$log" 2>&1 || bad="$bad checkpatch"
	if [ -z "$bad" ]; then
		pass=$((pass + 1))
		printf 'ok      %2d %s\n' "$i" "$subj"
	else
		fail=$((fail + 1))
		printf 'FAILED  %2d %s:%s\n' "$i" "$subj" "$bad"
	fi
done
git -C "$wt" checkout -q --detach "$BASE_TAG"
[ "$fail" -eq 0 ] || info "details in $log"
report bisect-check "$pass" "$fail"
[ "$fail" -eq 0 ]
