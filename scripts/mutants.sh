#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mutants.sh [NAME...]   (default: $RFC_MUTANTS, or every mutant)
# Wrong implementations of the series, each of which a named test must
# catch: mutants/NAME.diff, a diff against the tree's HEAD after a header
# that says what is wrong and which test catches it:
#
#   Wrong: recovery builds a huge SPTE over a gfn being invalidated
#   Catch: guest NPT TEST [ARGS...]     (x86_64 guest kernel, kvm_amd.npt=NPT;
#                                        TEST: x86/NAME or mm/NAME, a KVM or
#                                        an mm selftest)
#   Catch: arm64 MODE TEST [ARGS...]    (arm64 guest kernel, run-guest.sh MODE)
#   Catch: kunit ARCH FILTER            (scripts/kunit.sh ARCH FILTER)
#   Catch: e2e NPT BACKING...           (scripts/e2e.sh on the mutant's x86_64
#                                        guest kernel, kvm_amd.npt=NPT, those
#                                        backings; caught when a snapshot
#                                        holds a guest write made after it
#                                        started: a page whose snapwork
#                                        stamp differs from the reference)
#
# Each mutant is applied to a worktree of the tree at its HEAD
# (build/mutant/linux), which is built into build/mutant/ (guest-patched,
# guest-arm64-patched, kunit-ARCH: the same relative layout as build/, so
# ccache serves all but the files the mutant touches), and its test runs.  A mutant counts as
# passed ("caught") when the test fails, or when the guest's console shows
# a kernel splat, e.g. the WARN of KVM_PROVE_MMU's check at the end of an
# invalidation; a guest that gives no result is not a catch.  The builds
# are never kept as anything but build outputs.  Logs: build/mutant/NAME.log.
# The unmutated tree passes the same tests in kvm-selftest and kunit-*.
#
# mutants.sh --apply-only [NAME...]  (make check's mutants-apply) builds
# and runs nothing: each mutant counts as passed when its Catch: line is
# understood and it applies to the tree's HEAD, so that a change to the
# series that leaves a mutant behind fails make check.
#: RFC_MUTANTS        mutants: the names to run (default every mutants/*.diff)
#: RFC_MUTANTS_DIR    mutants: where the mutants are (default mutants/)

. "$(dirname "$0")/lib.sh"
need git cpio gzip file qemu-system-x86_64 busybox

apply_only=false
if [ "${1:-}" = --apply-only ]; then
	apply_only=true
	shift
fi
M=${RFC_MUTANTS_DIR:-$TOP/mutants}
MB=$BUILD/mutant
WT=$MB/linux
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"

# shellcheck disable=SC2086 # RFC_MUTANTS is a list of names
[ $# -gt 0 ] || set -- ${RFC_MUTANTS:-}
if [ $# -eq 0 ]; then
	for f in "$M"/*.diff; do
		[ -f "$f" ] || die "no mutants in $M"
		n=${f##*/}
		set -- "$@" "${n%.diff}"
	done
fi
for n; do
	[ -f "$M/$n.diff" ] || die "no mutant '$n' ($M/$n.diff)"
	grep -q '^Catch: \(guest [01] [^ ]\|arm64 [a-z0-9]* [^ ]\|kunit [a-z0-9_]* [^ ]\|e2e [01] [^ ]\)' "$M/$n.diff" ||
		die "$M/$n.diff: no 'Catch: guest NPT TEST', 'Catch: arm64 MODE TEST', 'Catch: kunit ARCH FILTER' or 'Catch: e2e NPT BACKING...' line"
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
	guest | arm64)
		mode=$2 test=$3
		case $1 in
		guest) kind=patched bb='' what=npt=$mode ;;
		arm64) kind=arm64-patched bb="--busybox $(arm64_busybox)" what=$mode ;;
		esac
		shift 3
		kernel=$(RFC_TREE=$WT RFC_BUILD=$MB "$TOP/scripts/guest-kernel.sh" "$kind") || {
			count no "$n: the guest kernel does not build"
			continue
		}
		# A KVM selftest (x86/perm_upgrade_test), or an mm one (mm/hmm-tests).
		tree=$TREE TREE=$WT
		case $test in
		mm/*)
			mm_selftests "$MB/guest-$kind" "$MB/mm-$kind" "${test#mm/}"
			bin=$MB/mm-$kind/${test#mm/} ;;
		*)
			kvm_selftests "$MB/guest-$kind" "$MB/selftests-$kind" "$test"
			bin=$MB/selftests-$kind/$test ;;
		esac
		TREE=$tree
		# shellcheck disable=SC2086 # $bb is an option and its argument, or nothing
		"$TOP/scripts/mkinitramfs.sh" $bb "$MB/$n.cpio.gz" "$bin" "$@" >&2
		guest_run "$kernel" "$MB/$n.cpio.gz" "$mode" "$log"
		case $guest_rc in 1 | 3) r=ok ;; *) r=no ;; esac
		count "$r" "$n: caught by ${test##*/} $* ($what): $guest_result" ;;
	kunit)
		arch=$2 filter=$3
		rc=0
		RFC_TREE=$WT RFC_BUILD=$MB RFC_SUITE="mutant $n" \
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
	e2e)
		npt=$2
		shift 2
		kernel=$(RFC_TREE=$WT RFC_BUILD=$MB "$TOP/scripts/guest-kernel.sh" patched) || {
			count no "$n: the guest kernel does not build"
			continue
		}
		# The mutant's kernel as e2e's "prior" kernel, alone.
		RFC_PRIOR_KERNEL=$kernel RFC_E2E_KERNELS=prior RFC_E2E_NPT=$npt \
			RFC_E2E_BACKINGS="$*" RFC_E2E_DIR=$MB/e2e-$n RFC_RESULTS=$MB/e2e-$n \
			"$TOP/scripts/e2e.sh" >"$log" 2>&1 || :
		grep -a '^E2E-VERIFY' "$MB/e2e-$n/prior-npt$npt.log" 2>/dev/null | sed 's/^/    /'
		# A torn snapshot: pages whose snapwork stamp (a guest write)
		# differs from the memory saved when the snapshot started.
		if grep -aq '^E2E-VERIFY .* stamp_pages=[1-9]' "$MB/e2e-$n/prior-npt$npt.log" 2>/dev/null; then
			r=ok
		else
			r=no
		fi
		count "$r" "$n: caught by e2e's snapshot check ($*, npt=$npt)" ;;
	esac
done
reset_wt
report mutants "$pass" "$fail"
[ "$fail" -eq 0 ]
