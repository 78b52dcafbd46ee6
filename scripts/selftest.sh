#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own tests, on a tiny fake base so that they take seconds:
# tarball verification, tree creation, the series <-> tree round trip, and
# refusing bad input without losing anything.  Writes "PASSED FAILED" to
# $1 when given.

. "$(dirname "$0")/lib.sh"
need git tar xz sha256sum

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM
S=$TOP/scripts
pass=0
fail=0

# Each case runs in a subshell with errexit, outside any conditional
# context (where sh would ignore errexit): any failing step fails it.
t() {
	name=$1
	shift
	set +e
	(set -e; "$@") >"$W/log" 2>&1
	rc=$?
	set -e
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok       $name"
	else
		fail=$((fail + 1))
		echo "FAILED   $name"
		sed 's/^/    /' "$W/log"
	fi
}

# Fixture: a base tarball with a kernel-like layout.
mkdir -p "$W/src/linux-9.9.9/mm"
printf 'VERSION = 9\nPATCHLEVEL = 9\n' >"$W/src/linux-9.9.9/Makefile"
printf 'int a;\nint b;\nint c;\n' >"$W/src/linux-9.9.9/mm/x.c"
printf '/ignored-but-shipped\n' >"$W/src/linux-9.9.9/.gitignore"
printf 'shipped\n' >"$W/src/linux-9.9.9/ignored-but-shipped"
tar -C "$W/src" -cJf "$W/linux_9.9.9.orig.tar.xz" linux-9.9.9
cat >"$W/base.conf" <<-CONF
BASE_VERSION=9.9.9
BASE_DEBIAN_VERSION=9.9.9-1
BASE_SHA256=$(sha256_of "$W/linux_9.9.9.orig.tar.xz")
CONF
printf 'Test series\n\nA blurb.\n' >"$W/cover.txt"

export BASE_CONF="$W/base.conf" RFC_CACHE="$W/cache" SHARED_DIR="$W/noshared" \
	TREE="$W/tree" SERIES="$W/series" COVER="$W/cover.txt" BUILD="$W/build" \
	LINUX_TARBALL="$W/linux_9.9.9.orig.tar.xz"
unset FORCE

# "! cmd" never trips errexit; this does.
fails() {
	if "$@"; then
		return 1
	fi
}

# Give the tree two commits, as a developer would.
commit() {
	printf '%s\n' "$2" >>"$TREE/$1"
	git -C "$TREE" add "$1"
	git -C "$TREE" -c user.name=Dev -c user.email=dev@localhost \
		commit -q -s -m "mm: $3" -m "Because $3."
}

fetch_ok() {
	p=$("$S/fetch-base.sh")
	[ "$(sha256_of "$p")" = "$(sha256_of "$LINUX_TARBALL")" ]
}

wrong_hash() {
	cp "$LINUX_TARBALL" "$W/bad.tar.xz"
	echo junk >>"$W/bad.tar.xz"
	before=$(sha256_of "$W/bad.tar.xz")
	fails env LINUX_TARBALL="$W/bad.tar.xz" RFC_CACHE="$W/cache2" "$S/fetch-base.sh" 2>"$W/err"
	grep -q 'sha256 mismatch' "$W/err"
	[ "$(sha256_of "$W/bad.tar.xz")" = "$before" ]	# the user's file is kept
	[ ! -e "$W/cache2/dl/linux_9.9.9.orig.tar.xz" ]	# and not cached
}

missing_tarball() {
	fails env LINUX_TARBALL="$W/nope.tar.xz" "$S/fetch-base.sh" 2>"$W/err"
	grep -q 'no such file' "$W/err"
}

missing_tool() {
	fails sh -c '. "$(dirname "$0")/lib.sh"; need no-such-tool-xyz' "$S/selftest.sh" 2>"$W/err"
	grep -q "'no-such-tool-xyz' is missing: run 'make deps'" "$W/err"
}

tree_is_base() {
	"$S/tree.sh"
	git -C "$TREE" rev-parse -q --verify refs/tags/v9.9.9 >/dev/null
	[ "$(git -C "$TREE" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse "v9.9.9^{commit}")" ]
	[ -f "$TREE/ignored-but-shipped" ]
	[ -z "$(git -C "$TREE" status --porcelain)" ]
}

base_reproducible() {
	a=$(git -C "$RFC_CACHE/linux-9.9.9.git" rev-parse "v9.9.9^{commit}")
	RFC_CACHE="$W/cache3" "$S/base.sh" >/dev/null
	[ "$a" = "$(git -C "$W/cache3/linux-9.9.9.git" rev-parse "v9.9.9^{commit}")" ]
}

export_series() {
	commit mm/x.c 'int d;' 'add d'
	commit mm/y.c 'int e;' 'add e'
	"$S/export.sh"
	ls "$SERIES" >"$W/names"
	grep -qx 'v2-0000-cover-letter.patch' "$W/names"
	grep -qx 'v2-0001-mm-add-d.patch' "$W/names"
	grep -qx 'v2-0002-mm-add-e.patch' "$W/names"
	grep -q '^Subject: \[RFC PATCH v2 0/2\] Test series' "$SERIES/v2-0000-cover-letter.patch"
	grep -q '^A blurb\.' "$SERIES/v2-0000-cover-letter.patch"
	grep -q '^base-commit: ' "$SERIES/v2-0000-cover-letter.patch"
	grep -q '^From 0\{40\} ' "$SERIES/v2-0001-mm-add-d.patch"
}

export_stable() {
	patch_digest "$SERIES" >"$W/d1"
	sleep 1
	"$S/export.sh"
	patch_digest "$SERIES" >"$W/d2"
	cmp "$W/d1" "$W/d2"
}

tree_up_to_date() {
	"$S/tree.sh" 2>"$W/err"
	grep -q 'up to date' "$W/err"
}

round_trip() {
	rm -rf "$TREE"
	"$S/tree.sh"
	[ "$(git -C "$TREE" rev-list --count v9.9.9..HEAD)" -eq 2 ]
	patch_digest "$SERIES" >"$W/d1"
	"$S/export.sh"
	patch_digest "$SERIES" >"$W/d2"
	cmp "$W/d1" "$W/d2"
}

export_refuses_dirty() {
	patch_digest "$SERIES" >"$W/d1"
	echo 'int dirty;' >>"$TREE/mm/x.c"
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'uncommitted changes' "$W/err"
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'uncommitted changes' "$W/err"
	grep -q 'int dirty;' "$TREE/mm/x.c"
	patch_digest "$SERIES" >"$W/d2"
	cmp "$W/d1" "$W/d2"
	git -C "$TREE" checkout -q -- mm/x.c
}

tree_keeps_unexported() {
	commit mm/x.c 'int f;' 'add f'
	head=$(git -C "$TREE" rev-parse HEAD)
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'only in the tree: v2-0003-mm-add-f.patch' "$W/err"
	[ "$(git -C "$TREE" rev-parse HEAD)" = "$head" ]
	FORCE=1 "$S/tree.sh" 2>"$W/err"
	[ "$(git -C "$TREE" rev-list --count v9.9.9..HEAD)" -eq 2 ]
	[ "$(git -C "$TREE" tag -l 'backup/*' --points-at "$head" | wc -l)" -eq 1 ]
}

stale_patch_stops() {
	sed -i 's/^ int c;$/ int C;/' "$SERIES/v2-0002-mm-add-e.patch"
	sed -i 's/^+int e;$/+int e;\n+int g;/; s/^@@ -0,0 +1 @@/@@ -0,0 +1,2 @@/' \
		"$SERIES/v2-0002-mm-add-e.patch"
	sed -i 's/^ int c;$/ int C;/' "$SERIES/v2-0001-mm-add-d.patch"
	rm -rf "$TREE"
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'patch does not apply: series/v2-0001-mm-add-d.patch' "$W/err"
	[ -d "$TREE/.git/rebase-apply" ]
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'middle of git am' "$W/err"
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'middle of git am' "$W/err"
	[ -f "$SERIES/v2-0002-mm-add-e.patch" ]
}

mirror_from_apt_sources() {
	mkdir -p "$W/apt/sources.list.d"
	cat >"$W/apt/sources.list.d/debian.sources" <<-SRC
	Types: deb
	# http://old.invalid/debian
	URIs: http://mirror.invalid/debian
	Suites: bookworm bookworm-updates
	Components: main

	Types: deb
	URIs: http://mirror.invalid/debian-security
	Suites: bookworm-security
	Components: main
	SRC
	printf 'deb [arch=amd64] http://other.invalid/debian bookworm main\n' \
		>"$W/apt/sources.list"
	printf 'deb http://third.invalid/apt stable main\n' \
		>"$W/apt/sources.list.d/x.list"
	APT_ETC=$W/apt sh -c '. "$(dirname "$0")/lib.sh"; debian_mirror' \
		"$S/selftest.sh" >"$W/m"
	printf 'http://other.invalid/debian\nhttp://mirror.invalid/debian\n' | cmp - "$W/m"
}

kunit_json_counts() {
	cat >"$W/k.json" <<-JSON
	{"name": "KUnit Test Group", "sub_groups": [], "test_cases": [],
	 "misc": {"tests": 9, "passed": 5, "failed": 1, "crashed": 1,
		  "skipped": 1, "errors": 1}}
	JSON
	[ "$("$S/kunit_counts.py" "$W/k.json")" = "5 3" ]
}

# Console lines in the formats the kernel prints them: each splat must be
# seen, the boot messages of the debug options must not.
splats_recognised() {
	for l in '[   12.3] BUG: KASAN: slab-use-after-free in kvm_tdp_mmu_zap_leafs+0x1/0x2' \
		'[    1.0] WARNING: CPU: 1 PID: 77 at arch/x86/kvm/mmu/mmu.c:1 kvm_arch_change_prot_gfn_range+0x1/0x2' \
		'[    2.0] WARNING: possible circular locking dependency detected' \
		'[    2.0] WARNING: suspicious RCU usage' \
		'[    3.0] BUG: sleeping function called from invalid context at mm/memory.c:1' \
		'[    4.0] UBSAN: shift-out-of-bounds in mm/mprotect.c:1:2' \
		'[    5.0] Oops: general protection fault, probably for non-canonical address' \
		'[    6.0] Kernel panic - not syncing: Fatal exception' \
		'[    7.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' \
		'[    8.0] BUG: Bad page state in process test  pfn:12345'; do
		printf '%s\n' "$l" | grep -qE "$SPLAT_RE" || { echo "missed: $l"; return 1; }
	done
	for l in '[    0.0] KernelAddressSanitizer initialized (generic)' \
		'[    0.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar' \
		'[    0.0] rcu: 	RCU lockdep checking is enabled.' \
		'    ok 1 no guest write to memory the host mapped non-writable'; do
		fails grep -qE "$SPLAT_RE" <<-EOL || { echo "false splat: $l"; return 1; }
		$l
		EOL
	done
}

# A message that moved is not new; a second copy of one is.
sparse_compare() {
	cat >"$W/base.log" <<-'EOL'
	/b/mm/a.c:10:5: warning: symbol 'x' was not declared. Should it be static?
	/b/mm/a.c: note: in included file:
	/b/mm/a.c:20:1: error: too long token expansion
	EOL
	cat >"$W/new.log" <<-'EOL'
	/p/mm/a.c:12:5: warning: symbol 'x' was not declared. Should it be static?
	/p/mm/a.c:22:1: error: too long token expansion
	/p/mm/a.c:40:1: error: too long token expansion
	EOL
	sparse_normalise /b <"$W/base.log" >"$W/b"
	sparse_normalise /p <"$W/new.log" >"$W/p"
	[ "$(LC_ALL=C comm -13 "$W/b" "$W/p")" = "mm/a.c: error: too long token expansion" ]
}

t "fetch-base: LINUX_TARBALL verified and cached" fetch_ok
t "fetch-base: wrong hash stops, user's file kept" wrong_hash
t "fetch-base: missing LINUX_TARBALL is named" missing_tarball
t "lib: a missing tool points at make deps" missing_tool
t "tree: first commit is the base, tagged" tree_is_base
t "base: commit is reproducible" base_reproducible
t "export: cover letter and stable names" export_series
t "export: output does not churn" export_stable
t "tree: up to date with series/ is a no-op" tree_up_to_date
t "tree + export: round trip leaves series/ unchanged" round_trip
t "export/tree: refuse a dirty tree, lose nothing" export_refuses_dirty
t "tree: unexported commits kept; FORCE=1 backs up" tree_keeps_unexported
t "tree: stale patch named, git am state left" stale_patch_stops
t "apt: mirror read from the machine's sources" mirror_from_apt_sources
t "check: kunit.py JSON counted" kunit_json_counts
t "check-debug: console splats recognised" splats_recognised
t "sparse: moved message not new, repeated one is" sparse_compare

echo "selftest: $pass passed, $fail failed"
[ -z "${1:-}" ] || echo "$pass $fail" >"$1"
[ "$fail" -eq 0 ]
