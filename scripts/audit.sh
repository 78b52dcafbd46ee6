#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# audit.sh
# Run the series' Coccinelle audit of mmu_notifier range flags and
# struct kvm_gfn_range users (COCCI, default the tree's
# scripts/coccinelle/api/mmu_notifier_range.cocci) through the tree's
# "make coccicheck MODE=report", print the findings as markdown tables,
# cross-check them against a plain git grep of the tree, and end with
# "audit: N passed, N failed".  The verdicts are rfctool.py audit's
# (scripts/rfctool/rfc_audit.py, unit-tested on a captured coccicheck log).
# The report is also written to $BUILD/audit.txt (RFC_AUDIT_OUT
# overrides), the intermediate files to $BUILD/audit.d/.
#
# Only the files that can matter are parsed: those that git grep finds
# mentioning mmu_notifier_range_init*, mmu_notifier_ops,
# mmu_interval_notifier_ops or kvm_gfn_range, handed to spatch as
# --file-groups through SPFLAGS: 20 s instead of a run over the whole tree,
# which had not finished after 4 minutes on 2 loaded cores (spatch's own
# --use-gitgrep selects almost every file there, as the tokens of the
# consumer rules include "event" and "flags").
#
# Each finding counts as one check; it fails when its verdict is FAIL:
#   - PROTECTION_VMA/PAGE with constant flags that claim
#     MMU_NOTIFIER_RANGE_PERM_UPGRADE (a hard-coded upgrade: only
#     mm_cp_mmu_notifier_flags() may compute it), or a change_protection()
#     walk (a function with cp_flags) whose flags carry no upgrade
#     information, i.e. that drops MM_CP_PERM_UPGRADE.  Other constant flags
#     on a protection event (fork's PROTECTION_PAGE, pagemap_scan's
#     PROTECTION_VMA, mkclean) claim nothing, so every consumer zaps: they
#     are listed as "conservative" and pass.  Only a false upgrade claim can
#     let a secondary MMU keep a mapping that was revoked.
#   - a consumer that tests the upgrade or protection bits of range->flags
#     itself, ignoring the event;
#   - a struct kvm_gfn_range that is used before it is zeroed.
# Each of the three grep cross-checks is one more check, which fails when a
# site that grep sees is neither found by Coccinelle nor explained (a
# definition, a comment, another structure's .invalidate): Coccinelle did
# not check it, e.g. because it could not parse the function.
#
#: RFC_COCCI          audit: the coccinelle script (default the tree's)
#: RFC_AUDIT_J        audit: spatch jobs (default 1: the machine is shared)
#: RFC_AUDIT_OUT      audit: the report (default build/audit.txt)

. "$(dirname "$0")/lib.sh"
need spatch make git python3

COCCI=${RFC_COCCI:-$TREE/scripts/coccinelle/api/mmu_notifier_range.cocci}
case $COCCI in /*) ;; *) COCCI=$(pwd)/$COCCI ;; esac
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
[ -f "$COCCI" ] ||
	die "no $COCCI: apply the series, or point RFC_COCCI= at the script"
AUDIT_OUT=${RFC_AUDIT_OUT:-$BUILD/audit.txt}
work=${AUDIT_OUT%.txt}.d
mkdir -p "$work"

# One pass of git grep over the tree, for both the file list and the
# cross-check: the files that can matter (one spatch file group each) and
# the sites (file:line:text) that a plain grep sees.
notifier_re='mmu_(interval_)?notifier_ops'
cons_re='\.(invalidate_range_start|invalidate)[[:space:]]*='
git -C "$TREE" grep -n -E -e mmu_notifier_range_init -e "$notifier_re" \
	-e kvm_gfn_range -e "$cons_re" -- '*.c' '*.h' >"$work/grep" ||
	die "git grep found nothing in $TREE"
grep -E "mmu_notifier_range_init|$notifier_re|kvm_gfn_range" "$work/grep" |
	cut -d: -f1 | uniq >"$work/files"
nfiles=$(wc -l <"$work/files")
sed 'a\
' "$work/files" >"$work/groups"

info "coccicheck on $nfiles files of $TREE"
start=$(date +%s)
rc=0
nice make -s -C "$TREE" coccicheck MODE=report COCCI="$COCCI" \
	J="${RFC_AUDIT_J:-1}" SPFLAGS="--file-groups $work/groups" \
	>"$work/coccicheck.log" 2>&1 || rc=$?
secs=$(($(date +%s) - start))

rc2=0
rfctool audit "$TREE" "$COCCI" "$work" "$secs" "$rc" >"$AUDIT_OUT" || rc2=$?
cat "$AUDIT_OUT"
exit "$rc2"
