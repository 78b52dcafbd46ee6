#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# postings.sh [NAME...]
# Check that each posting of series/POSTINGS (default: all of them)
# stands on what it says it needs, as a maintainer would take it: in a
# worktree (build/linux-postings) at the base, git am (no three-way
# merge) the patches in series/ of the postings it needs and then its
# own; then every one of its commits goes through bisect-check (three
# builds, the selftests it touches, checkpatch --strict).  With
# KPU_POSTINGS_GUEST=1, a posting then runs the tests of the kvm-selftest
# suite that its tree has on a guest kernel built from that tree, npt=1
# and npt=0 (guest-suite.sh with KPU_TREE, KPU_KERNELS=patched,
# KPU_TESTS=available; kernel and logs in build/postings-guest): what the
# posting claims, on the posting alone.
# With KPU_POSTINGS_KUNIT=1, a posting whose tree has the series' KUnit
# suites runs them too (kunit.sh x86_64 on its tree, in
# build/postings-kunit).  Otherwise a posting's own tests are the suites
# of make check, which runs them on the whole stack.  Checks series/ as exported, so it refuses to
# run when the tree does not match it.  One line per posting, then
# "postings: N passed, N failed"; the per-commit lines are indented under
# it.
#: KPU_POSTINGS_GUEST postings: 1 also runs each posting's x86 KVM selftests on a guest
#:                    kernel of its own tree (default 0)
#: KPU_POSTINGS_KUNIT postings: 1 also runs the x86_64 KUnit suites on each posting's
#:                    own tree, where it has them (default 0)

. "$(dirname "$0")/lib.sh"
need git

state=$(tree_state) || die "$state"
all=$(postings | awk '{ print $1 }')
# shellcheck disable=SC2086 # posting names are words
[ $# -gt 0 ] || set -- $all
for name; do
	echo "$all" | grep -qx -- "$name" ||
		die "no posting '$name' in series/POSTINGS (known: $(echo "$all" | paste -s -d' ' -))"
done

wt=$BUILD/linux-postings
if [ ! -e "$wt/.git" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$wt" "$BASE_TAG"
fi
log=$BUILD/postings.log
: >"$log"

pass=0
fail=0
for name; do
	needs=$(posting_needs "$name" | paste -s -d' ' -)
	git -C "$wt" am --abort >/dev/null 2>&1 || :
	git -C "$wt" checkout -q -f --detach "$BASE_TAG"
	bad=
	for d in $needs; do
		for p in $(posting_patches "$SERIES" "$d"); do
			git -C "$wt" am -q "$p" >>"$log" 2>&1 || {
				bad="$d (which it needs) does not apply: ${p#"$SERIES"/}"
				break 2
			}
		done
	done
	from=$(git -C "$wt" rev-parse HEAD)
	if [ -z "$bad" ]; then
		for p in $(posting_patches "$SERIES" "$name"); do
			git -C "$wt" am -q "$p" >>"$log" 2>&1 || {
				bad="does not apply on $BASE_TAG${needs:+ + $needs}: ${p#"$SERIES"/}"
				break
			}
		done
	fi
	if [ -z "$bad" ]; then
		(
			unset KPU_SUITE
			KPU_TREE=$wt KPU_BISECT_REVS=$from..HEAD
			export KPU_TREE KPU_BISECT_REVS
			exec "$TOP/scripts/bisect-check.sh"
		) >"$BUILD/postings.out" 2>&1 || {
			cp "$BUILD/bisect/log" "$BUILD/postings-$name.log"
			bad="a commit fails bisect-check (details in $BUILD/postings-$name.log)"
		}
		sed -e '/^bisect-check: /d' -e 's/^/    /' "$BUILD/postings.out"
	fi
	if [ -z "$bad" ] && [ "${KPU_POSTINGS_GUEST:-0}" = 1 ]; then
		(
			unset KPU_SUITE
			KPU_TREE=$wt KPU_BUILD=$BUILD/postings-guest KPU_KERNELS=patched
			KPU_TESTS=available
			export KPU_TREE KPU_BUILD KPU_KERNELS KPU_TESTS
			exec "$TOP/scripts/guest-suite.sh" kvm-selftest
		) >"$BUILD/postings-guest.out" 2>&1 ||
			bad="its selftests fail on its own guest kernel (details in $BUILD/postings-guest.out)"
		sed -n 's/^kvm-selftest: /    guest selftests: /p' "$BUILD/postings-guest.out"
	fi
	if [ -z "$bad" ] && [ "${KPU_POSTINGS_KUNIT:-0}" = 1 ] &&
		[ -f "$wt/mm/tests/mprotect_notifier_kunit.c" ]; then
		(
			unset KPU_SUITE
			KPU_TREE=$wt KPU_BUILD=$BUILD/postings-kunit
			export KPU_TREE KPU_BUILD
			exec "$TOP/scripts/kunit.sh" x86_64
		) >"$BUILD/postings-kunit.out" 2>&1 ||
			bad="its KUnit suites fail on its own tree (details in $BUILD/postings-kunit.out)"
		sed -n 's/^kunit-x86_64: /    kunit: /p' "$BUILD/postings-kunit.out"
	fi
	if [ -z "$bad" ]; then
		pass=$((pass + 1))
		echo "ok       $name (on $BASE_TAG${needs:+ + $needs})"
	else
		fail=$((fail + 1))
		echo "FAILED   $name: $bad"
	fi
done
git -C "$wt" am --abort >/dev/null 2>&1 || :
git -C "$wt" checkout -q -f --detach "$BASE_TAG"
[ "$fail" -eq 0 ] || info "git am's messages in $log"
report postings "$pass" "$fail"
[ "$fail" -eq 0 ]
