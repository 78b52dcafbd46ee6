#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# audit.sh [RESULT]
# Run the series' Coccinelle audit of mmu_notifier range flags and
# struct kvm_gfn_range users (COCCI, default the tree's
# scripts/coccinelle/api/mmu_notifier_range.cocci) through the tree's
# "make coccicheck MODE=report", print the findings as markdown tables,
# cross-check them against a plain git grep of the tree, and end with
# "audit: N passed, N failed" (also written as "N N" to RESULT when given,
# like checkpatch.sh).  The report is also written to $BUILD/audit.txt
# (AUDIT_OUT overrides), the intermediate files to $BUILD/audit.d/.
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
# Environment: TREE (default build/linux), COCCI, AUDIT_J (spatch jobs,
# default 1: the machine is shared), AUDIT_OUT.

. "$(dirname "$0")/lib.sh"
need spatch make git awk

COCCI=${COCCI:-$TREE/scripts/coccinelle/api/mmu_notifier_range.cocci}
case $COCCI in /*) ;; *) COCCI=$(pwd)/$COCCI ;; esac
[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
[ -f "$COCCI" ] ||
	die "no $COCCI: apply the series, or point COCCI= at the script"
AUDIT_OUT=${AUDIT_OUT:-$BUILD/audit.txt}
work=${AUDIT_OUT%.txt}.d
mkdir -p "$work"

# One pass of git grep over the tree, for both the file list and the
# cross-check: the files that can matter (one spatch file group each) and
# the sites (file:line:text) that a plain grep sees.
notifier_re='mmu_(interval_)?notifier_ops'
init_re='(^|[^_[:alnum:]])mmu_notifier_range_init(_owner)?[[:space:]]*\('
cons_re='\.(invalidate_range_start|invalidate)[[:space:]]*='
gfn_re='struct[[:space:]]+kvm_gfn_range[[:space:]]+[[:alpha:]_][[:alnum:]_]*[[:space:]]*(=|;|\[)'
git -C "$TREE" grep -n -E -e mmu_notifier_range_init -e "$notifier_re" \
	-e kvm_gfn_range -e "$cons_re" -- '*.c' '*.h' >"$work/grep" ||
	die "git grep found nothing in $TREE"
grep -E "mmu_notifier_range_init|$notifier_re|kvm_gfn_range" "$work/grep" |
	cut -d: -f1 | uniq >"$work/files"
grep -E "$notifier_re" "$work/grep" | cut -d: -f1 | uniq >"$work/notifier-files" || :
grep -E "$init_re" "$work/grep" >"$work/grep-init" || :
grep -E "$cons_re" "$work/grep" >"$work/grep-consumer" || :
grep -E "$gfn_re" "$work/grep" >"$work/grep-gfn" || :
nfiles=$(wc -l <"$work/files")
sed 'a\
' "$work/files" >"$work/groups"

info "coccicheck on $nfiles files of $TREE"
start=$(date +%s)
rc=0
nice make -s -C "$TREE" coccicheck MODE=report COCCI="$COCCI" \
	J="${AUDIT_J:-1}" SPFLAGS="--file-groups $work/groups" \
	>"$work/coccicheck.log" 2>&1 || rc=$?
secs=$(($(date +%s) - start))

# path:line:col-col: kind: key=value...  ->  sorted by file and line.
grep -E '^[^ :]+:[0-9]+:[0-9]+-[0-9]+: (mmu_notifier_range_init(_owner)?|invalidate_range_start|invalidate|kvm_gfn_range): ' \
	"$work/coccicheck.log" | sed "s|^$TREE/||" |
	sort -u | sort -s -t: -k1,1 -k2,2n >"$work/findings"

# Markdown tables and cross-checks; prints "PASSED FAILED" last.
report() {
	awk -v tree="$TREE" -v cocci="$COCCI" -v nfiles="$nfiles" \
	    -v secs="$secs" -v rc="$rc" -v work="$work" '
	function kv(s,    n, a, i, k) {
		delete f
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) {
			k = index(a[i], "=")
			if (k)
				f[substr(a[i], 1, k - 1)] = substr(a[i], k + 1)
		}
	}
	function check(ok) {
		if (ok)
			pass++
		else
			fail++
	}
	BEGIN {
		while ((getline l < (work "/findings")) > 0) {
			split(l, h, ": ")
			split(h[1], loc, ":")
			site = loc[1] ":" loc[2]
			kind = h[2]
			rest = substr(l, length(h[1]) + length(h[2]) + 5)
			kv(rest)
			bad = f["verdict"] ~ /^FAIL/
			check(!bad)
			if (kind ~ /^mmu_notifier_range_init/) {
				ni++
				isite[ni] = site; ikind[ni] = kind
				iev[ni] = f["event"]; ifl[ni] = f["flags"]
				iinfo[ni] = f["upgrade-info"]; iv[ni] = f["verdict"]
				ev = f["event"]
				if (!(ev in evn))
					evs[++nev] = ev
				evn[ev]++
				evinfo[ev, f["upgrade-info"]]++
				if (bad)
					evfail[ev]++
				if (f["verdict"] == "conservative")
					evcons[ev]++
				cocci_init[site] = 1
			} else if (kind ~ /^invalidate/) {
				nc++
				csite[nc] = site; ckind[nc] = kind
				cfn[nc] = f["fn"]; cev[nc] = f["reads-event"]
				cfl[nc] = f["reads-flags"]; cfw[nc] = f["forwards-range"]
				cv[nc] = f["verdict"]
				cocci_cons[site] = 1
			} else {
				ng++
				gsite[ng] = site; gvar[ng] = f["var"]
				ginit[ng] = f["init"]; gz[ng] = f["zeroed"]
				if (f["first-use"] != "")
					gz[ng] = gz[ng] ", used at line " f["first-use"]
				gv[ng] = f["verdict"]
				if (f["init"] !~ /^(kmalloc|kvmalloc|vmalloc|kmem_cache_alloc)/)
					cocci_gfn[site] = 1
				if (bad)
					gfail++
			}
		}
		while ((getline l < (work "/notifier-files")) > 0)
			nfile[l] = 1

		printf "# mmu_notifier range flags / kvm_gfn_range audit\n\n"
		printf "tree: %s  \nscript: %s  \n", tree, cocci
		printf "coccicheck: %d files, %d s, exit status %d\n\n", nfiles, secs, rc
		check(rc == 0 && ni > 0)

		printf "## Producers: mmu_notifier_range_init*() by event\n\n"
		printf "| event | calls | upgrade-info yes | no | unknown | conservative (literal, zap) | FAIL |\n"
		printf "| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
		for (i = 1; i <= nev; i++) {
			e = evs[i]
			printf "| %s | %d | %d | %d | %d | %d | %d |\n", e, evn[e],
			       evinfo[e, "yes"], evinfo[e, "no"], evinfo[e, "unknown"],
			       evcons[e], evfail[e]
		}
		printf "\n### Protection events and non-constant events\n\n"
		printf "| site | call | event | flags | upgrade-info | verdict |\n"
		printf "| --- | --- | --- | --- | --- | --- |\n"
		for (i = 1; i <= ni; i++) {
			if (iv[i] == "n/a")
				continue
			v = iv[i]
			if (v == "conservative")
				v = "conservative: no upgrade info, consumers zap"
			printf "| %s | %s | %s | `%s` | %s | %s |\n", isite[i],
			       ikind[i], iev[i], ifl[i], iinfo[i], v
		}

		printf "\n## Consumers: invalidate_range_start() and interval invalidate()\n\n"
		printf "| site | callback | function | reads event | reads flags | hands range on | verdict |\n"
		printf "| --- | --- | --- | --- | --- | --- | --- |\n"
		for (i = 1; i <= nc; i++)
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", csite[i],
			       ckind[i], cfn[i], cev[i], cfl[i], cfw[i], cv[i]

		printf "\n## struct kvm_gfn_range variables\n\n"
		printf "| site | variable | initialiser | zeroed | verdict |\n"
		printf "| --- | --- | --- | --- | --- |\n"
		for (i = 1; i <= ng; i++)
			printf "| %s | %s | `%s` | %s | %s |\n", gsite[i], gvar[i],
			       ginit[i], gz[i], gv[i]
		printf "\nnot zeroed: %d\n", gfail

		printf "\n## Cross-check with git grep\n\n"
		xcheck("mmu_notifier_range_init*() call", "grep-init", cocci_init)
		xcheck(".invalidate_range_start / .invalidate assignment",
		       "grep-consumer", cocci_cons)
		xcheck("struct kvm_gfn_range variable", "grep-gfn", cocci_gfn)
		printf "%d %d\n", pass, fail
	}
	# Compare the sites git grep sees with those Coccinelle reported, and
	# explain each difference.
	function xcheck(what, file, seen,    l, site, text, n, ngrep,
			why, unexplained, k, p, lines) {
		ngrep = 0
		unexplained = 0
		lines = ""
		delete gseen
		while ((getline l < (work "/" file)) > 0) {
			p = index(l, ":")
			p += index(substr(l, p + 1), ":")
			site = substr(l, 1, p - 1)
			text = substr(l, p + 1)
			ngrep++
			gseen[site] = 1
			if (site in seen)
				continue
			sub(/^[[:space:]]+/, "", text)
			split(site, sp, ":")
			if (text ~ /^(\*|\/\*|\/\/)/)
				why = "comment"
			else if (text ~ /^#[[:space:]]*define/)
				why = "macro definition (!CONFIG_MMU_NOTIFIER stub)"
			else if (text ~ /^(static|extern|void|bool|int)[[:space:]]/ ||
				 text ~ /^[[:alnum:]_]+\(struct mmu_notifier_range \*/)
				why = "function definition"
			else if (file == "grep-consumer" && !(sp[1] in nfile))
				why = "another structure (no mmu_notifier ops in the file)"
			else {
				why = "UNEXPLAINED: not checked by Coccinelle"
				unexplained++
			}
			lines = lines sprintf("- grep only: %s `%s`: %s\n", site, text, why)
		}
		close(work "/" file)
		n = 0
		for (k in seen) {
			n++
			if (!(k in gseen))
				lines = lines sprintf("- coccinelle only: %s: the grep pattern misses it (split over lines?)\n", k)
		}
		printf "### %s\n\n", what
		printf "coccinelle: %d, git grep: %d, unexplained: %d\n\n", n, ngrep, unexplained
		printf "%s\n", lines
		check(unexplained == 0)
	}'
}

report >"$work/report"
sed '$d' "$work/report" >"$AUDIT_OUT"
read -r pass fail <<EOF
$(tail -n 1 "$work/report")
EOF
[ "$rc" -eq 0 ] || {
	echo "coccicheck failed (exit status $rc), last lines of $work/coccicheck.log:"
	tail -n 20 "$work/coccicheck.log" | sed 's/^/    /'
	echo
} >>"$AUDIT_OUT"
echo "audit: $pass passed, $fail failed" >>"$AUDIT_OUT"
cat "$AUDIT_OUT"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" -eq 0 ]
