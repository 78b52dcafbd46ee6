#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# audit.sh
# The coccinelle audit of mmu_notifier range flags and struct
# kvm_gfn_range users, in two parts, both through the tree's
# "make coccicheck MODE=report":
#   - the harness's inventory (COCCI, default audit/inventory.cocci), which
#     lists every site with a verdict: printed as markdown tables and
#     cross-checked against a plain git grep of the tree;
#   - the series' own scripts/coccinelle/api/mmu_notifier_range.cocci,
#     which reports problems only and must say nothing.
# Ends with "audit: N passed, N failed".  The verdicts are harness.py
# audit's (scripts/tool/audit.py, unit-tested on a captured
# coccicheck log).  The report is also written to $BUILD/audit.txt
# (KPU_AUDIT_OUT overrides), the intermediate files to $BUILD/audit.d/.
#
# Only the files that can matter are parsed: those that git grep finds
# mentioning mmu_notifier_range_init*, mmu_notifier_ops,
# mmu_interval_notifier_ops or kvm_gfn_range, handed to spatch as
# --file-groups through SPFLAGS: 20 s instead of a run over the whole tree,
# which had not finished after 4 minutes on 2 loaded cores (spatch's own
# --use-gitgrep selects almost every file there, as the tokens of the
# consumer rules include "event" and "flags").
#
# Each inventory finding counts as one check; it fails when its verdict is
# FAIL:
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
#   - a struct kvm_gfn_range that is handed on before it is zeroed or has
#     its mn_event and mn_flags set.
# The series' script is one more check, which fails on any finding.
# Each of the three grep cross-checks is one more check, which fails when a
# site that grep sees is neither found by Coccinelle nor explained (a
# definition, a comment, another structure's .invalidate): Coccinelle did
# not check it, e.g. because it could not parse the function.
#
#: KPU_COCCI          audit: the inventory script (default audit/inventory.cocci)
#: KPU_AUDIT_J        audit: spatch jobs (default 1: the machine is shared)
#: KPU_AUDIT_OUT      audit: the report (default build/audit.txt)

. "$(dirname "$0")/lib.sh"
need spatch make git python3

COCCI=${KPU_COCCI:-$TOP/audit/inventory.cocci}
case $COCCI in /*) ;; *) COCCI=$(pwd)/$COCCI ;; esac
SERIES_COCCI=$TREE/scripts/coccinelle/api/mmu_notifier_range.cocci
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
[ -f "$COCCI" ] || die "no $COCCI: point KPU_COCCI= at the inventory script"
AUDIT_OUT=${KPU_AUDIT_OUT:-$BUILD/audit.txt}
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
	J="${KPU_AUDIT_J:-1}" SPFLAGS="--file-groups $work/groups" \
	>"$work/coccicheck.log" 2>&1 || rc=$?
secs=$(($(date +%s) - start))

# The series' script: no output is the expected result.  Without it (a
# tree without the series) harness.py counts it as not run.
rm -f "$work/series.log"
if [ -f "$SERIES_COCCI" ]; then
	info "coccicheck with the series' $SERIES_COCCI"
	nice make -s -C "$TREE" coccicheck MODE=report COCCI="$SERIES_COCCI" \
		J="${KPU_AUDIT_J:-1}" SPFLAGS="--file-groups $work/groups" \
		>"$work/series.log" 2>&1 ||
		echo "coccicheck: exit status $?" >>"$work/series.log"
fi

rc2=0
harness audit "$TREE" "$COCCI" "$work" "$secs" "$rc" >"$AUDIT_OUT" || rc2=$?
cat "$AUDIT_OUT"
exit "$rc2"
