#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mutants.sh [NAME...]   (default: $KPU_MUTANTS, or every mutant)
# Wrong implementations of the series, each of which a named test must
# catch: mutants/NAME.diff, a diff against the tree's HEAD after a header
# that says what is wrong and which test catches it:
#
#   Wrong: recovery builds a huge SPTE over a gfn being invalidated
#   Catch: SUITE MODE TEST...       (a guest suite of guest/suites, on its
#                                    patched kernel built from the mutant,
#                                    in one of its modes, those tests)
#   Catch: kunit ARCH FILTER        (scripts/kunit.sh ARCH FILTER)
#
# Each mutant is applied to a worktree of the tree at its HEAD
# (build/mutant/linux), which is built into build/mutant/ (guest-patched,
# guest-arm64-patched, kunit-ARCH: the same relative layout as build/, so
# ccache serves all but the files the mutant touches), and its test runs.
# A guest suite's verdict says whether it was caught (KPU_CATCH: a named
# test failed, or a console shows a kernel splat such as the WARN of
# KVM_PROVE_MMU's check; e2e only by its snapshot check); a guest that
# gives no result is not a catch.  A KUnit filter is caught when a case
# fails.  The builds are never kept as anything but build outputs.  Logs:
# build/mutant/NAME.log.  The unmutated tree passes the same tests in
# kvm-selftest and kunit-*.
#
# mutants.sh --apply-only [NAME...]  (make check's mutants-apply) builds
# and runs nothing: each mutant counts as passed when its Catch: line is
# understood and it applies to the tree's HEAD, so that a change to the
# series that leaves a mutant behind fails make check.
#: KPU_MUTANTS        mutants: the names to run (default every mutants/*.diff)
#: KPU_MUTANTS_DIR    mutants: where the mutants are (default mutants/)

. "$(dirname "$0")/lib.sh"
need git

apply_only=false
if [ "${1:-}" = --apply-only ]; then
	apply_only=true
	shift
fi
M=${KPU_MUTANTS_DIR:-$TOP/mutants}
MB=$BUILD/mutant
WT=$MB/linux
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"

# shellcheck disable=SC2086 # KPU_MUTANTS is a list of names
[ $# -gt 0 ] || set -- ${KPU_MUTANTS:-}
if [ $# -eq 0 ]; then
	for f in "$M"/*.diff; do
		[ -f "$f" ] || die "no mutants in $M"
		n=${f##*/}
		set -- "$@" "${n%.diff}"
	done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each Catch: line must name a suite, a mode and tests that its plan has.
for n; do
	[ -f "$M/$n.diff" ] || die "no mutant '$n' ($M/$n.diff)"
	catch=$(sed -n 's/^Catch: //p' "$M/$n.diff" | head -n 1)
	case $catch in
	"kunit "[a-z0-9_]*" "[!\ ]*) ;;
	*" "[a-z0-9]*" "[!\ ]*)
		# shellcheck disable=SC2086 # the Catch: line is words
		KPU_TESTS=${catch#* * } KPU_MODES=$(echo "$catch" | cut -d' ' -f2) \
			KPU_KERNELS=patched harness plan "$GUEST_SUITES" "${catch%% *}" \
			"$tmp/p" >/dev/null 2>"$tmp/err" ||
			die "$M/$n.diff: 'Catch: $catch': $(cat "$tmp/err")" ;;
	*) die "$M/$n.diff: no 'Catch: SUITE MODE TEST...' or 'Catch: kunit ARCH FILTER' line" ;;
	esac
done

pass=0
fail=0
if $apply_only; then
	for n; do
		git -C "$TREE" apply --check "$M/$n.diff" && r=ok || r=no
		count "$r" "$n: applies to the tree's HEAD"
	done
	report mutants-apply "$pass" "$fail"
	[ "$fail" -eq 0 ]
	exit
fi

head=$(git -C "$TREE" rev-parse HEAD)
mkdir -p "$MB"
[ -e "$WT/.git" ] || git -C "$TREE" worktree add -q --detach "$WT" "$head" >&2
# reset --hard rewrites only the files that differ, so each build after
# the first recompiles what the previous and the next mutant touch.
reset_wt() { git -C "$WT" reset -q --hard "$head"; }

for n in "$@"; do
	d=$M/$n.diff
	log=$MB/$n.log
	wrong=$(sed -n 's/^Wrong: //p' "$d" | head -n 1)
	# shellcheck disable=SC2046 # the Catch: line is words
	set -- $(sed -n 's/^Catch: //p' "$d" | head -n 1)
	echo "mutant $n: $wrong"
	reset_wt
	if ! git -C "$WT" apply "$d"; then
		count no "$n: does not apply to the tree's HEAD"
		continue
	fi
	case $1 in
	kunit)
		arch=$2 filter=$3
		rc=0
		KPU_TREE=$WT KPU_BUILD=$MB KPU_SUITE="mutant $n" \
			"$TOP/scripts/kunit.sh" "$arch" "$filter" >"$log" 2>&1 || rc=$?
		grep -a 'EXPECTATION FAILED\|ASSERTION FAILED\|^\[[0-9:]*\] \[FAILED\]\|passed,' "$log" |
			head -n 20 | sed 's/^/    /'
		# kunit.sh fails when a case fails, and when it leaves no results.
		if [ "$rc" -ne 0 ] && grep -aq "^mutant $n: [0-9]* passed, [1-9]" "$log"; then
			r=ok
		else
			r=no
		fi
		count "$r" "$n: caught by KUnit $filter on $arch" ;;
	*)
		suite=$1 mode=$2
		shift 2
		rc=0
		KPU_TREE=$WT KPU_BUILD=$MB KPU_SUITE_DIR=$MB/$n KPU_KERNELS=patched \
			KPU_MODES=$mode KPU_TESTS="$*" KPU_CATCH=1 \
			"$TOP/scripts/guest-suite.sh" "$suite" >"$log" 2>&1 || rc=$?
		grep -a '^caught\|^not caught' "$log" | sed 's/^/    /'
		[ "$rc" = 0 ] && r=ok || r=no
		count "$r" "$n: caught by $suite $* ($mode)" ;;
	esac
done
reset_wt
report mutants "$pass" "$fail"
[ "$fail" -eq 0 ]
