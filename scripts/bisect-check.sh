#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bisect-check.sh [ARCH...]
# Walk the series one commit at a time in a worktree (build/linux-bisect)
# and check that each commit builds on its own for x86_64 (KVM_INTEL=m
# KVM_AMD=m KVM_WERROR=y), arm64 and s390 (build.sh: mm/ virt/kvm/
# arch/ARCH/kvm/ with the KUnit tests built in, and on x86_64 the HMM test
# driver), that a commit touching the KVM, mm or RDMA selftests builds
# them all by their own Makefiles (selftests_make in lib.sh), and that the
# commit is checkpatch --strict clean
# (checkpatch_patch in lib.sh, as the checkpatch suite runs it).  Build
# directories (build/bisect/ARCH) are reused from commit to
# commit, so each step rebuilds only what the commit changed; ccache keeps
# a second run short.  Ends with "bisect-check: N passed, N failed", one
# per commit.
#: KPU_BISECT_REVS    bisect-check: the commits to walk, as git rev-list
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
revs=${KPU_BISECT_REVS:-$BASE_TAG..HEAD}
# The number of each commit in the series, counted from the base.
first=$(git -C "$TREE" rev-list --reverse "$revs" | head -n 1)
[ -n "$first" ] || die "KPU_BISECT_REVS='$revs' selects no commit"
i=$(git -C "$TREE" rev-list --count "$BASE_TAG..$first^" 2>/dev/null) ||
	die "KPU_BISECT_REVS='$revs' starts outside $BASE_TAG..HEAD"
for c in $(git -C "$TREE" rev-list --reverse "$revs"); do
	i=$((i + 1))
	subj=$(git -C "$TREE" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	bad=
	for a; do
		KPU_TREE=$wt KPU_BUILD=$bb "$TOP/scripts/build.sh" "$a" >>"$log" 2>&1 ||
			bad="$bad build-$a"
	done
	# The selftest collections the commit touches, each built whole by
	# its own Makefile (kvm: for x86_64 and arm64 as the files touched
	# say), so that a commit that breaks a Makefile or a test it does not
	# name fails.
	for coll in kvm mm rdma; do
		files=$(git -C "$wt" diff-tree --no-commit-id --name-only -r "$c" -- \
			"tools/testing/selftests/$coll")
		[ -n "$files" ] || continue
		arches=x86_64
		if [ "$coll" = kvm ]; then
			arches=$(echo "$files" | awk '
				/\/x86\// { print "x86_64"; next }
				/\/arm64\// { print "arm64"; next }
				{ print "x86_64"; print "arm64" }' | sort -u)
		fi
		for a in $arches; do
			# Only the arches asked for (bisect-check.sh ARCH...).
			case " $* " in *" $a "*) ;; *) continue ;; esac
			selftests_make "$wt" "$coll" "$a" "$bb/$a" "$bb/selftests-$coll-$a" \
				>>"$log" 2>&1 || bad="$bad selftests-$coll-$a"
		done
	done
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
