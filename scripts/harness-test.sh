#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own tests, on a tiny fake base so that they take seconds:
# tarball verification, tree creation, the series <-> tree round trip,
# testing a tree that differs from series/, refusing bad input without
# losing anything, the suite runner and its protocol, and the guest
# runner (run-guest.sh, guest-suite.sh) with a fake qemu-system-x86_64.

. "$(dirname "$0")/lib.sh"
need git tar xz sha256sum busybox

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
	(set -ex; "$@") >"$W/log" 2>&1
	rc=$?
	set -e
	if [ "$rc" -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok       $name"
	else
		fail=$((fail + 1))
		echo "FAILED   $name"
		[ ! -s "$W/err" ] || { echo "    (err:)"; sed "s/^/      /" "$W/err"; }
		tail -n 15 "$W/log" | sed 's/^/    /'
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
# No posting yet; export_series lists one of two patches, with a cover
# letter.
mkdir -p "$W/series/all"
printf '# NAME PATCHES RFC VERSION NEEDS\n' >"$W/series/POSTINGS"
printf 'Test series\n\nA blurb.\n' >"$W/series/all/cover-letter.txt"

export KPU_BASE_CONF="$W/base.conf" KPU_CACHE="$W/cache" KPU_SHARED="$W/noshared" \
	KPU_TREE="$W/tree" KPU_SERIES="$W/series" \
	KPU_BUILD="$W/build" KPU_LINUX_TARBALL="$W/linux_9.9.9.orig.tar.xz"
TREE=$KPU_TREE SERIES=$KPU_SERIES LINUX_TARBALL=$KPU_LINUX_TARBALL
unset KPU_FORCE KPU_SUITE KPU_SUITES

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
		commit -q -m "mm: $3" -m "Because $3."
}

fetch_ok() {
	p=$("$S/fetch-base.sh")
	[ "$(sha256_of "$p")" = "$(sha256_of "$LINUX_TARBALL")" ]
}

wrong_hash() {
	cp "$LINUX_TARBALL" "$W/bad.tar.xz"
	echo junk >>"$W/bad.tar.xz"
	before=$(sha256_of "$W/bad.tar.xz")
	fails env KPU_LINUX_TARBALL="$W/bad.tar.xz" KPU_CACHE="$W/cache2" "$S/fetch-base.sh" 2>"$W/err"
	grep -q 'sha256 mismatch' "$W/err"
	[ "$(sha256_of "$W/bad.tar.xz")" = "$before" ]	# the user's file is kept
	[ ! -e "$W/cache2/dl/linux_9.9.9.orig.tar.xz" ]	# and not cached
}

missing_tarball() {
	fails env KPU_LINUX_TARBALL="$W/nope.tar.xz" "$S/fetch-base.sh" 2>"$W/err"
	grep -q 'no such file' "$W/err"
}

missing_tool() {
	# shellcheck disable=SC2016 # for the inner shell
	fails sh -c '. "$(dirname "$0")/lib.sh"; need no-such-tool-xyz' "$S/harness-test.sh" 2>"$W/err"
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
	a=$(git -C "$KPU_CACHE/linux-9.9.9.git" rev-parse "v9.9.9^{commit}")
	KPU_CACHE="$W/cache3" "$S/base.sh" >/dev/null
	[ "$a" = "$(git -C "$W/cache3/linux-9.9.9.git" rev-parse "v9.9.9^{commit}")" ]
}

export_series() {
	commit mm/x.c 'int d;' 'add d'
	commit mm/y.c 'int e;' 'add e'
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'gives its postings 0 patches, the tree has 2 commits' "$W/err"
	printf 'all 2 rfc 2 -\n' >>"$SERIES/POSTINGS"
	"$S/export.sh"
	ls "$SERIES/all" >"$W/names"
	grep -qx 'v2-0000-cover-letter.patch' "$W/names"
	grep -qx 'v2-0001-mm-add-d.patch' "$W/names"
	grep -qx 'v2-0002-mm-add-e.patch' "$W/names"
	grep -q '^Subject: \[RFC PATCH v2 0/2\] Test series' "$SERIES/all/v2-0000-cover-letter.patch"
	grep -q '^A blurb\.' "$SERIES/all/v2-0000-cover-letter.patch"
	grep -q '^base-commit: ' "$SERIES/all/v2-0000-cover-letter.patch"
	grep -q '^From 0\{40\} ' "$SERIES/all/v2-0001-mm-add-d.patch"
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
	grep -q 'tree matches series/' "$W/err"
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
	# tree.sh keeps the fixup, and says so in one line.
	"$S/tree.sh" 2>"$W/err"
	grep -q 'warning: tree matches series/ but has uncommitted changes' "$W/err"
	fails env KPU_FORCE=1 "$S/tree.sh" 2>"$W/err"
	grep -q 'uncommitted changes' "$W/err"
	grep -q 'int dirty;' "$TREE/mm/x.c"
	patch_digest "$SERIES" >"$W/d2"
	cmp "$W/d1" "$W/d2"
	git -C "$TREE" checkout -q -- mm/x.c
}

tree_keeps_unexported() {
	commit mm/x.c 'int f;' 'add f'
	head=$(git -C "$TREE" rev-parse HEAD)
	"$S/tree.sh" 2>"$W/err"
	grep -q 'warning: tree has 1 commit not in series/ (run make export' "$W/err"
	[ "$(git -C "$TREE" rev-parse HEAD)" = "$head" ]
	KPU_FORCE=1 "$S/tree.sh" 2>"$W/err"
	[ "$(git -C "$TREE" rev-list --count v9.9.9..HEAD)" -eq 2 ]
	[ "$(git -C "$TREE" tag -l 'backup/*' --points-at "$head" | wc -l)" -eq 1 ]
}

# A changed patch is one commit not in series/ and one patch not in the
# tree, never "only in" both by name.
tree_changed_patch() {
	git -C "$TREE" commit -q --amend -m "mm: add e" -m "Because e, amended."
	"$S/tree.sh" 2>"$W/err"
	grep -q 'warning: tree has 1 commit not in series/, series/ has 1 patch not in the tree' "$W/err"
	[ "$("$S/tree.sh" --state)" = "$(sed -n 's/^tree.sh: warning: //p' "$W/err")" ]
	KPU_FORCE=1 "$S/tree.sh" 2>"$W/err"
	"$S/tree.sh" 2>"$W/err"
	grep -q 'tree matches series/' "$W/err"
}

# Two postings, the second needing the first: each in its directory,
# numbered on its own, the second with a prerequisite-patch-id; the old
# posting's directory loses its patches, not its cover letter.  A posting
# that needs nothing is exported from the base alone.
export_postings() {
	cp "$SERIES/POSTINGS" "$W/postings"
	printf '# two\nfix 1 - 1 -\nfeat 1 rfc 3 fix\n' >"$SERIES/POSTINGS"
	"$S/export.sh" 2>"$W/err"
	grep -q 'all is no posting of series/POSTINGS' "$W/err"
	[ -z "$(find "$SERIES/all" -name '*.patch')" ]
	[ -f "$SERIES/all/cover-letter.txt" ]
	grep -q '^Subject: \[PATCH\] mm: add d$' "$SERIES/fix/0001-mm-add-d.patch"
	grep -q '^Subject: \[RFC PATCH v3\] mm: add e$' "$SERIES/feat/v3-0001-mm-add-e.patch"
	fails grep -q '^prerequisite-patch-id: ' "$SERIES/fix/0001-mm-add-d.patch"
	grep -q '^prerequisite-patch-id: ' "$SERIES/feat/v3-0001-mm-add-e.patch"
	# A one-patch posting's notes.txt goes below its "---", once.
	printf 'Needs fix.\n' >"$SERIES/feat/notes.txt"
	"$S/export.sh"
	sed -n '/^---$/,/^$/p' "$SERIES/feat/v3-0001-mm-add-e.patch" >"$W/notes"
	printf -- '---\nNeeds fix.\n\n' | cmp -s - "$W/notes"
	[ "$(grep -c '^Needs fix\.$' "$SERIES/feat/v3-0001-mm-add-e.patch")" -eq 1 ]
	"$S/tree.sh" 2>"$W/err"
	grep -q 'tree matches series/' "$W/err"
	printf 'fix 1 - 1 -\nfeat 1 rfc 3 -\n' >"$SERIES/POSTINGS"
	"$S/export.sh"
	fails grep -q '^prerequisite-patch-id: ' "$SERIES/feat/v3-0001-mm-add-e.patch"
	rm -rf "$TREE"
	"$S/tree.sh"
	[ "$(git -C "$TREE" rev-list --count v9.9.9..HEAD)" -eq 2 ]
	# git am left the notes out of the commit; a posting of two patches
	# may not have notes.txt.
	[ "$(git -C "$TREE" log -1 --format=%B | grep -c 'Needs fix')" -eq 0 ]
	printf 'x 2 - 1 -\n' >"$SERIES/POSTINGS"
	mkdir -p "$SERIES/x"
	printf 'Notes.\n' >"$SERIES/x/notes.txt"
	printf 'X\n\nBlurb.\n' >"$SERIES/x/cover-letter.txt"
	cp -r "$SERIES/feat" "$W/feat.keep"
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'posting x has 2 patches: its notes go in' "$W/err"
	cmp -s "$W/feat.keep/v3-0001-mm-add-e.patch" "$SERIES/feat/v3-0001-mm-add-e.patch"
	rm -rf "$SERIES/x" "$W/feat.keep" "$SERIES/feat/notes.txt"
	cp "$W/postings" "$SERIES/POSTINGS"
	"$S/export.sh"
	rm -rf "$SERIES/fix" "$SERIES/feat"
}

# make out: each posting in its directory, To: and Cc: from the tree's
# get_maintainer.pl (a stub here) on every patch, all of them on the cover.
out_postings() {
	mkdir -p "$TREE/scripts"
	cat >"$TREE/scripts/get_maintainer.pl" <<-'STUB'
	#!/bin/sh
	case " $* " in *" --no-rolestats "*) ;; *) echo "Maint <m@example.org> (maintainer:MM)"; exit ;; esac
	case " $* " in *" --m "*) echo "Maint <m@example.org>" ;; esac
	case " $* " in *" --r "*) echo "Rev <r@example.org>" ;; esac
	case " $* " in *" --l "*) echo "list@example.org" ;; esac
	STUB
	chmod +x "$TREE/scripts/get_maintainer.pl"
	# checkpatch, as it judges a Signed-off-by: required unless ignored;
	# each call that requires one is logged; CP_FAIL=1 fails every call.
	cat >"$TREE/scripts/checkpatch.pl" <<-STUB
	#!/bin/sh
	for a; do p=\$a; done
	case " \$* " in *MISSING_SIGN_OFF*) exit 0 ;; esac
	echo "\$p" >>"$W/checkpatch.calls"
	[ "\${CP_FAIL:-0}" = 0 ] || { echo "\$p: ERROR: stub"; exit 1; }
	grep -q '^Signed-off-by: ' "\$p" || { echo "\$p: ERROR: Missing Signed-off-by"; exit 1; }
	STUB
	chmod +x "$TREE/scripts/checkpatch.pl"
	mkdir -p "$W/out"
	: >"$W/out/keep"
	# No one to sign off: the series' own identity, a no-reply address,
	# two people; out/ is left as it was.
	for who in "$(git -C "$TREE" log -1 --format='%an <%ae>')" 'Bot <bot@users.noreply.github.com>' \
			'Jane <jane@kernel.org>, X <x@kernel.org>'; do
		KPU_SENDER=$who KPU_OUT="$W/out" fails "$S/out.sh" 2>"$W/err"
		grep -q 'is not a sender who can sign off' "$W/err"
		[ -f "$W/out/keep" ]
	done
	[ ! -e "$W/checkpatch.calls" ]
	# A patch that fails checkpatch: out/ is left as it was too.
	CP_FAIL=1 KPU_SENDER='Jane Doe <jane@kernel.org>' KPU_OUT="$W/out" fails "$S/out.sh" 2>"$W/err"
	grep -q 'checkpatch on what make out wrote: all/v2-0001-.*; .* left as it was' "$W/err"
	[ -f "$W/out/keep" ]
	[ -z "$(find "$W" -maxdepth 1 -name 'out.new.*')" ]
	rm "$W/checkpatch.calls"
	KPU_SENDER='Jane Doe  <jane@kernel.org>' KPU_OUT="$W/out" "$S/out.sh" 2>"$W/err"
	grep -q 'mail-ready postings in .* (2 patches in 1 postings), from and signed off by Jane Doe <jane@kernel.org>' "$W/err"
	grep -q "warning: base-commit: names the harness's import" "$W/err"
	[ ! -e "$W/out/keep" ]
	# checkpatch, sign-off check on, once on each patch, not on the cover.
	[ "$(wc -l <"$W/checkpatch.calls")" -eq 2 ]
	rm "$W/checkpatch.calls"
	for p in "$W/out/all/"v2-000[012]-*.patch; do
		grep -qx 'To: Maint <m@example.org>' "$p"
		grep -qx 'Cc: Rev <r@example.org>, list@example.org' "$p"
		grep -qx 'From: Jane Doe <jane@kernel.org>' "$p"
	done
	for p in "$W/out/all/"v2-000[12]-*.patch; do
		[ "$(grep '^Signed-off-by: ' "$p")" = 'Signed-off-by: Jane Doe <jane@kernel.org>' ]
	done
	fails grep -q '^Signed-off-by: ' "$W/out/all/"v2-0000-*.patch
	# series/NAME/mail: a private report goes to its address, the
	# maintainers on Cc:, no list.
	for line in 'private security@kernel.org' '	private	security@kernel.org  '; do
		printf '# embargo\n%s\n' "$line" >"$SERIES/all/mail"
		KPU_SENDER='Jane Doe <jane@kernel.org>' KPU_OUT="$W/out" "$S/out.sh" 2>"$W/err"
		grep -q 'all is private: send it with git send-email --suppress-cc=all' "$W/err"
		for p in "$W/out/all/"v2-000[012]-*.patch; do
			grep -qx 'To: security@kernel.org' "$p"
			grep -qx 'Cc: Maint <m@example.org>, Rev <r@example.org>' "$p"
			fails grep -q 'list@example.org' "$p"
		done
	done
	# A posting not to be mailed is not written, and make out says why.
	printf ' skip\ta test driver\n' >"$SERIES/all/mail"
	KPU_SENDER='Jane Doe <jane@kernel.org>' KPU_OUT="$W/out" "$S/out.sh" 2>"$W/err"
	grep -q 'all: not written, not to be mailed: a test driver' "$W/err"
	grep -q 'nothing to mail (1 postings skipped)' "$W/err"
	[ -z "$(find "$W" -maxdepth 1 -name 'out.new.*')" ]
	# Anything else in it: refused before anything is written.
	: >"$W/out/keep"
	for bad in 'privat security@kernel.org' 'private' 'skip' 'private a b' \
			'private a,b@kernel.org' 'private security@kernel.org\nskip x'; do
		printf '%b\n' "$bad" >"$SERIES/all/mail"
		KPU_SENDER='Jane Doe <jane@kernel.org>' KPU_OUT="$W/out" fails "$S/out.sh" 2>"$W/err"
		grep -q 'all/mail: want one line, "skip REASON" or "private ADDRESS"' "$W/err"
		[ -f "$W/out/keep" ]
	done
	rm "$SERIES/all/mail"
	rm -f "$TREE/scripts/get_maintainer.pl" "$TREE/scripts/checkpatch.pl"
	rm -rf "$W/out"
}

# A series/ directory with fewer patches than series/POSTINGS gives its
# posting stops make tree before it applies anything.
tree_counts_patches() {
	mv "$SERIES/all/v2-0002-mm-add-e.patch" "$W/e.patch"
	rm -rf "$TREE"
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'series/all has 1 patches, series/POSTINGS says 2' "$W/err"
	mv "$W/e.patch" "$SERIES/all/v2-0002-mm-add-e.patch"
	rm -rf "$TREE"
	"$S/tree.sh"
	[ "$(git -C "$TREE" rev-list --count v9.9.9..HEAD)" -eq 2 ]
}

# A posting that needs less than it does, and a malformed list: a clear
# error, and series/ as it was.
postings_refused() {
	patch_digest "$SERIES" >"$W/d1"
	sed -i 's/^int d;$/int dd;/' "$TREE/mm/x.c"
	git -C "$TREE" -c user.name=Dev -c user.email=dev@localhost \
		commit -q -a -s -m "mm: rename d" -m "Because."
	printf 'fix 1 - 1 -\nfeat 1 rfc 3 -\nmore 1 - 1 feat\n' >"$SERIES/POSTINGS"
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'posting more does not apply on v9.9.9 + feat (series/POSTINGS says' "$W/err"
	printf 'all 3 rfc 2 -\nmore 1 - 1 -\n' >"$SERIES/POSTINGS"
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'gives its postings 4 patches, the tree has 3 commits' "$W/err"
	git -C "$TREE" reset -q --hard HEAD~1
	printf 'all x rfc 2 -\n' >"$SERIES/POSTINGS"
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'POSTINGS:1: all: PATCHES "x" is not a positive number' "$W/err"
	printf 'all 1 rfc 2 more\nmore 1 - 1 -\n' >"$SERIES/POSTINGS"
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'all: needs "more", which is not a posting listed before it' "$W/err"
	cp "$W/postings" "$SERIES/POSTINGS"
	patch_digest "$SERIES" >"$W/d2"
	cmp "$W/d1" "$W/d2"
}

# The edit-and-test loop: after a fixup commit, a suite runs through make
# on the tree as it is, without make export; the suite protocol is read
# from its last line.
suite_on_fixup_tree() {
	commit mm/x.c 'int fix;' 'fix it'
	cat >"$W/suites" <<-REG
	# name set needs command | what
	fake  check  tree  sh -c 'grep -q "int fix;" "\$KPU_TREE/mm/x.c" && echo "\$KPU_SUITE: 3 passed, 0 failed, 1 skipped"' | fake suite
	nocount check - sh -c 'echo no counts here' | prints no counts
	badrc check - sh -c 'echo "badrc: 2 passed, 0 failed"; exit 1' | fails without counting
	REG
	make -s -C "$TOP" -o deps KPU_SUITES="$W/suites" fake >"$W/out" 2>&1 || { cat "$W/out"; exit 1; }
	grep -q 'warning: tree has 1 commit not in series/' "$W/out"
	grep -q '^fake .* 3 passed, *0 failed, 1 skipped' "$W/out"
	tail -n 1 "$W/out" | grep -qx '3 passed, 0 failed'
	fails env KPU_SUITES="$W/suites" "$S/check.sh" fake nocount badrc >"$W/out" 2>&1
	tail -n 1 "$W/out" | grep -qx '5 passed, 2 failed'
	fails env KPU_SUITES="$W/suites" "$S/check.sh" nosuch 2>"$W/err"
	grep -q "unknown suite 'nosuch'" "$W/err"
	git -C "$TREE" reset -q --hard HEAD~1
}

# Two suites at a time, but one that needs another's output waits for it:
# "slow" leaves a file after a while, "uses" needs it, "quick" does not.
suite_needs() {
	cat >"$W/suites" <<-REG
	# name set needs command | what
	slow  check  -  sh -c 'sleep 3; : >"$W/slow.out"; echo "slow: 1 passed, 0 failed"' | slow
	uses  check  -:slow  sh -c 'test -e "$W/slow.out" && echo "uses: 1 passed, 0 failed"' | uses
	quick check  -  sh -c 'test ! -e "$W/slow.out" && echo "quick: 1 passed, 0 failed"' | quick
	REG
	rm -f "$W/slow.out"
	KPU_JOBS=2 KPU_SUITES="$W/suites" "$S/check.sh" slow uses quick >"$W/out" 2>&1
	tail -n 1 "$W/out" | grep -qx '3 passed, 0 failed'
	# Shown as they end: quick first, then slow, then uses.
	[ "$(grep '^=== [a-z]* (' "$W/out" | cut -d' ' -f2 | paste -s -d' ' -)" = "quick slow uses" ]
	fails env KPU_JOBS=0 KPU_SUITES="$W/suites" "$S/check.sh" slow 2>"$W/err"
	grep -q 'KPU_JOBS must be a positive number' "$W/err"
	# A need that the run does not have stands for its own needs: "far"
	# needs "mid", which is not run and needs "slow".
	cat >>"$W/suites" <<-REG
	mid   check  -:slow  sh -c 'echo "mid: 1 passed, 0 failed"' | mid
	far   check  -:mid  sh -c 'test -e "$W/slow.out" && echo "far: 1 passed, 0 failed"' | far
	REG
	rm -f "$W/slow.out"
	KPU_JOBS=2 KPU_SUITES="$W/suites" "$S/check.sh" far slow >"$W/out" 2>&1
	tail -n 1 "$W/out" | grep -qx '2 passed, 0 failed'
	# Two runs at once, of different suites (make e2e beside make
	# e2e-patterns): the second does not remove the first's files.
	rm -f "$W/slow.out"
	KPU_SUITES="$W/suites" "$S/check.sh" slow >"$W/out1" 2>&1 &
	sleep 1
	KPU_SUITES="$W/suites" "$S/check.sh" quick >"$W/out2" 2>&1
	wait $!
	tail -n 1 "$W/out1" | grep -qx '1 passed, 0 failed'
	tail -n 1 "$W/out2" | grep -qx '1 passed, 0 failed'
}

stale_patch_stops() {
	sed -i 's/^ int c;$/ int C;/' "$SERIES/all/v2-0002-mm-add-e.patch"
	sed -i 's/^+int e;$/+int e;\n+int g;/; s/^@@ -0,0 +1 @@/@@ -0,0 +1,2 @@/' \
		"$SERIES/all/v2-0002-mm-add-e.patch"
	sed -i 's/^ int c;$/ int C;/' "$SERIES/all/v2-0001-mm-add-d.patch"
	rm -rf "$TREE"
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'patch does not apply: series/all/v2-0001-mm-add-d.patch' "$W/err"
	[ -d "$TREE/.git/rebase-apply" ]
	fails "$S/tree.sh" 2>"$W/err"
	grep -q 'middle of git am' "$W/err"
	fails "$S/export.sh" 2>"$W/err"
	grep -q 'middle of git am' "$W/err"
	[ -f "$SERIES/all/v2-0002-mm-add-e.patch" ]
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
	KPU_APT_ETC=$W/apt sh -c '. "$(dirname "$0")/lib.sh"; debian_mirror' \
		"$S/harness-test.sh" >"$W/m"
	printf 'http://other.invalid/debian\nhttp://mirror.invalid/debian\n' | cmp - "$W/m"
}

# The guest runner with a fake qemu-system-x86_64 that records its
# arguments and prints a console log: FAKE_LOG, or with FAKE_LOG_DIR the
# log of the boot that the command line names (kpu.run=ID: ID.log there).
# FAKE_FIRST, when set, is what the first boot prints (a guest that died
# before its test).
fake_qemu() {
	mkdir -p "$W/bin"
	cat >"$W/bin/qemu-system-x86_64" <<-'EOQ'
	#!/bin/sh
	[ "$1" != --version ] || { echo "QEMU emulator version 0.0 (fake)"; exit 0; }
	echo "$*" >>"$FAKE_ARGS"
	if [ -n "${FAKE_FIRST:-}" ] && [ ! -e "$FAKE_ARGS.once" ]; then
		: >"$FAKE_ARGS.once"
		cat "$FAKE_FIRST"
		exit 0
	fi
	if [ -n "${FAKE_LOG_DIR:-}" ]; then
		id=$(echo "$*" | sed -n 's/.*kpu\.run=\([^ ]*\).*/\1/p')
		cat "$FAKE_LOG_DIR/$id.log" 2>/dev/null
		exit 0
	fi
	cat "$FAKE_LOG"
	EOQ
	chmod +x "$W/bin/qemu-system-x86_64"
	: >"$W/kernel"
	: >"$W/initrd"
	rm -f "$W/args" "$W/args.once" "$W/g.log" "$W/g.log.try1"
}

# run-guest.sh with the fake QEMU printing $1; prints its exit status.
guest() { # FIXTURE [FIRST_BOOT_FIXTURE]
	fake_qemu
	rc=0
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$1 FAKE_FIRST=${2:-} \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" 1 "$W/g.log" 2>"$W/err" || rc=$?
	echo "$rc"
}

# A console that reaches the test, and one that dies before it.
printf 'Linux version 9.9.9\nGUEST: kernel 9.9.9 x86_64\nTAP version 13\n1..0\n' >"$W/started.log"
printf 'Linux version 9.9.9\nKernel panic - not syncing: IO-APIC + timer does not work\n' \
	>"$W/early.log"

guest_clean() {
	[ "$(guest "$W/started.log")" = 0 ]
	# The QEMU command heads the log; the kernel is never booted quiet.
	head -n 1 "$W/g.log" | grep -q '^GUEST-QEMU: qemu-system-x86_64 -accel tcg,thread=single -cpu EPYC,+svm,+npt '
	head -n 1 "$W/g.log" | grep -q 'loglevel=5'
	fails grep -qw quiet "$W/args"
	[ ! -e "$W/g.log.try1" ]
	grep -q '^GUEST: kernel' "$W/g.log"
}

guest_retry() {
	[ "$(guest "$W/started.log" "$W/early.log")" = 0 ]
	[ "$(wc -l <"$W/args")" -eq 2 ]
	grep -q 'Kernel panic' "$W/g.log.try1"
	grep -q 'never reached the test; booting once more' "$W/err"
	# Once only.
	guest "$W/early.log" >/dev/null
	[ "$(wc -l <"$W/args")" -eq 2 ]
}

# An arm64 Image (its header's magic at 56) boots under qemu-system-aarch64
# at EL2, in the mode asked for; an x86 mode is refused.
guest_arm64() {
	fake_qemu
	cp "$W/bin/qemu-system-x86_64" "$W/bin/qemu-system-aarch64"
	chmod +x "$W/bin/qemu-system-aarch64"
	head -c 56 /dev/zero >"$W/kernel"
	printf 'ARMd' >>"$W/kernel"
	for m in vhe nvhe protected a57 mte mte-nvhe; do
		rm -f "$W/args"
		PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$W/started.log \
			"$S/run-guest.sh" "$W/kernel" "$W/initrd" "$m" "$W/g.log" 2>"$W/err"
		head -n 1 "$W/g.log" | grep -q '^GUEST-QEMU: qemu-system-aarch64 .*-M virt,virtualization=on,gic-version=3'
		grep -q 'console=ttyAMA0' "$W/args"
	done
	grep -q 'mte=on.*kvm-arm.mode=nvhe' "$W/args"
	rm -f "$W/args"
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$W/started.log \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" protected "$W/g.log" 2>"$W/err"
	grep -q 'kvm-arm.mode=protected' "$W/args"
	rm -f "$W/args"
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$W/started.log \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" a57 "$W/g.log" 2>"$W/err"
	grep -q -- '-cpu cortex-a57' "$W/args"
	fails env PATH="$W/bin:$PATH" "$S/run-guest.sh" "$W/kernel" "$W/initrd" 1 "$W/g.log" 2>"$W/err"
	grep -q "MODE must be vhe, nvhe, protected, a57, mte or mte-nvhe for an arm64 kernel, not '1'" "$W/err"
}

guest_refuses_quiet() {
	fake_qemu
	fails env PATH="$W/bin:$PATH" KPU_GUEST_APPEND=quiet \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" 1 "$W/g.log" 2>"$W/err"
	grep -q "'quiet' would hide" "$W/err"
	[ ! -e "$W/args" ]
}

# A guest suite end to end on a fake entry, kernels and QEMU: the plan,
# the initramfs with kselftest's runner (from the kernel tree that make
# check made), one boot per kernel and mode with kpu.run= naming it, and
# the verdict on the consoles that the fake QEMU prints, runner.sh's KTAP
# as the real one prints it: an expected failure passes, an unexpected
# pass fails, a splat fails a boot whose tests pass, a boot whose log is
# missing gives no result.
REAL=$TOP/build/linux
guest_suite_fixture() {
	gs=$W/gs
	rm -rf "$gs"
	mkdir -p "$gs/tree/tools/testing/selftests/kselftest" "$gs/logs"
	cp "$REAL/tools/testing/selftests/kselftest/runner.sh" \
		"$REAL/tools/testing/selftests/kselftest/ktap_helpers.sh" \
		"$gs/tree/tools/testing/selftests/kselftest/"
	for k in patched base; do
		mkdir -p "$gs/build/guest-$k/arch/x86/boot" "$gs/build/guest-$k/usr/include/linux"
		: >"$gs/build/guest-$k/arch/x86/boot/bzImage"
		: >"$gs/build/guest-$k/usr/include/linux/kvm.h"
	done
	cat >"$gs/suites" <<-'EOS'
	suite demo
	kernels patched base
	modes 1 0
	var OPS 3
	test upgrade ./upgrade -n ${OPS} ; base=fail
	test down ./down ; modes=1
	EOS
	ktap patched-1 ok:upgrade ok:down
	ktap patched-0 ok:upgrade
	ktap base-1 fail:upgrade ok:down
	ktap base-0 ok:upgrade
	fake_qemu
}

# ktap ID RESULT:NAME...: the console of boot ID, with runner.sh's KTAP.
ktap() {
	l=$1
	shift
	{
		echo 'Linux version 9.9.9'
		echo 'GUEST: kernel 9.9.9 x86_64 kvm_amd.npt=1 hugepages=64'
		echo 'TAP version 13'
		echo "1..$#"
		n=0
		for r; do
			n=$((n + 1))
			echo "# selftests: demo: ${r#*:}"
			echo "# some output of ${r#*:}"
			case ${r%%:*} in
			ok) echo "ok $n selftests: demo: ${r#*:}" ;;
			*) echo "not ok $n selftests: demo: ${r#*:} # exit=1" ;;
			esac
		done
		echo "# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0"
	} >"$gs/logs/$l.log"
}

guest_suite_run() {
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG_DIR=$gs/logs KPU_GUEST_SUITES=$gs/suites \
		KPU_TREE=$gs/tree KPU_BUILD=$gs/build KPU_PREBUILT=1 KPU_RESULTS=none \
		KPU_KUNIT=$REAL/tools/testing/kunit "$S/guest-suite.sh" demo >"$W/out" 2>"$W/err"
}

guest_suite_verdict() {
	guest_suite_fixture
	fails guest_suite_run
	cat "$W/out"
	# One boot per kernel and mode, each named on its command line.
	[ "$(wc -l <"$W/args")" -eq 4 ]
	for id in patched-1 patched-0 base-1 base-0; do grep -q "kpu.run=$id\\b" "$W/args"; done
	grep -q '^ok  *patched, npt=1: upgrade: pass$' "$W/out"
	grep -q '^ok  *base, npt=1: upgrade: fail (expected fail)$' "$W/out"
	grep -q '^FAILED  *base, npt=0: upgrade: pass (expected fail)$' "$W/out"
	grep -q '^ok  *base, npt=1: console without kernel splats$' "$W/out"
	grep -q '^demo: 9 passed, 1 failed$' "$W/out"
	grep -q '^demo: OPS=3 ' "$W/out"
	# The wrapper has the variable's value; the initramfs has the runner.
	grep -q '^\./upgrade -n 3 </dev/null$' "$gs/build/demo/payload/demo/upgrade"
	gunzip -c "$gs/build/demo/initramfs.cpio.gz" | cpio -t 2>/dev/null |
		grep -qx 'suite/kselftest/runner.sh'
}

guest_suite_splat_and_missing() {
	guest_suite_fixture
	ktap base-0 fail:upgrade
	sed -i 's/^# some output of upgrade$/WARNING: CPU: 0 PID: 1 at mm\/x.c:1 f+0x0\/0x10/' \
		"$gs/logs/patched-1.log"
	rm "$gs/logs/patched-0.log"
	fails guest_suite_run
	cat "$W/out"
	grep -q '^FAILED  *patched, npt=1: console without kernel splats (1, first: .*patched-1.log:[0-9]*: warn: WARNING: ' "$W/out"
	grep -q '^FAILED  *patched, npt=0: upgrade: no result$' "$W/out"
	grep -q '^demo: 8 passed, 2 failed$' "$W/out"
}

# Bad input to a guest suite is refused before anything is built or booted.
guest_suite_refused() {
	guest_suite_fixture
	for bad in KPU_TESTS=nope KPU_KERNELS=prior KPU_MODES=2 KPU_OPS="1;reboot"; do
		rm -f "$W/args"
		fails env "$bad" PATH="$W/bin:$PATH" FAKE_ARGS="$W/args" KPU_GUEST_SUITES="$gs/suites" \
			KPU_TREE="$gs/tree" KPU_BUILD="$gs/build" KPU_PREBUILT=1 \
			"$S/guest-suite.sh" demo >"$W/out" 2>"$W/err"
		grep -q 'harness.py plan: error: ' "$W/err"
		[ ! -e "$W/args" ]
	done
	fails env PATH="$W/bin:$PATH" KPU_GUEST_SUITES="$gs/suites" KPU_TREE="$gs/tree" \
		KPU_BUILD="$gs/build" "$S/guest-suite.sh" nope >"$W/out" 2>"$W/err"
	grep -q "no suite 'nope'" "$W/err"
	# A timing suite's prebuilt kernel that has KVM_PROVE_MMU: its times
	# would compare a debug check against its absence.
	sed -i 's/^kernels patched base$/kernels patched base\nconfig timing/' "$gs/suites"
	for k in patched base; do
		cp -a "$gs/build/guest-$k" "$gs/build/guest-$k-timing"
		echo '# CONFIG_KVM_PROVE_MMU is not set' >"$gs/build/guest-$k-timing/.config"
	done
	echo 'CONFIG_KVM_PROVE_MMU=y' >"$gs/build/guest-base-timing/.config"
	rm -f "$W/args"
	fails env PATH="$W/bin:$PATH" FAKE_ARGS="$W/args" KPU_GUEST_SUITES="$gs/suites" \
		KPU_TREE="$gs/tree" KPU_BUILD="$gs/build" KPU_PREBUILT=1 \
		"$S/guest-suite.sh" demo >"$W/out" 2>"$W/err"
	grep -q 'guest-base-timing has KVM_PROVE_MMU, not the timing config' "$W/err"
	[ ! -e "$W/args" ]
}

# Every KPU_* variable that the harness reads has a "#:" line, which is
# what make help prints.
knobs_documented() {
	make -s -C "$TOP" help >"$W/help"
	for k in $(for f in "$TOP"/scripts/*.sh "$TOP/scripts/suites" "$TOP/Makefile" \
			"$TOP"/scripts/tool/*.py; do
			case $f in *_test.py) ;; *) cat "$f" ;; esac
		done | grep -o 'KPU_[A-Z0-9_]*[A-Z0-9]' | sort -u); do
		grep -q "^  $k " "$W/help" || { echo "undocumented knob $k"; return 1; }
	done
}

# make mutants: an unknown name, or a mutant without a Catch: line that it
# understands, is refused before anything is built or applied.
mutants_refused() {
	mkdir -p "$W/mutants"
	printf 'Wrong: no catch\nCatch: kvm-selftest 2 perm_upgrade_test\n' >"$W/mutants/bad.diff"
	printf 'Wrong: no catch\nCatch: guest 1 x86/perm_upgrade_test\n' >"$W/mutants/old.diff"
	fails env KPU_MUTANTS_DIR="$W/mutants" "$S/mutants.sh" nope 2>"$W/err"
	grep -q "no mutant 'nope'" "$W/err"
	fails env KPU_MUTANTS_DIR="$W/mutants" "$S/mutants.sh" bad 2>"$W/err"
	grep -q "bad.diff: 'Catch: kvm-selftest 2 perm_upgrade_test': .*no mode 2" "$W/err"
	fails env KPU_MUTANTS_DIR="$W/mutants" "$S/mutants.sh" old 2>"$W/err"
	grep -q "old.diff: 'Catch: guest 1 x86/perm_upgrade_test': .*no suite 'guest'" "$W/err"
	[ ! -e "$KPU_BUILD/mutant" ]
}

# make check's mutants-apply: a mutant that applies to the tree counts as
# passed, one left behind by a change to the tree as failed; nothing is
# applied to the tree or built.
mutants_apply() {
	mkdir -p "$W/mutants-a"
	printf 'Wrong: one\nCatch: kvm-selftest 1 perm_upgrade_test\n\n' >"$W/mutants-a/good.diff"
	sed 's/^int b;$/int b2;/' "$TREE/mm/x.c" >"$W/x.c"
	cp "$W/x.c" "$TREE/mm/x.c"
	git -C "$TREE" diff >>"$W/mutants-a/good.diff"
	git -C "$TREE" checkout -q -- mm/x.c
	printf 'Wrong: two\nCatch: kvm-selftest 1 perm_upgrade_test\n\n' >"$W/mutants-a/stale.diff"
	sed 's/^-int b;$/-int gone;/' "$W/mutants-a/good.diff" |
		sed -n '/^diff --git/,$p' >>"$W/mutants-a/stale.diff"
	fails env KPU_MUTANTS_DIR="$W/mutants-a" "$S/mutants.sh" --apply-only \
		>"$W/out" 2>&1
	grep -q "^ok .*good: applies to the tree's HEAD" "$W/out"
	grep -q "^FAILED .*stale: applies to the tree's HEAD" "$W/out"
	grep -q "^mutants-apply: 1 passed, 1 failed" "$W/out"
	git -C "$TREE" diff --quiet
	[ ! -e "$KPU_BUILD/mutant" ]
}

# e2e/run's trace_report, run as the outer guest runs it (busybox sh and
# awk): a synthetic trace of one snapshot.  The userfault's page is the
# one written before QEMU saved it; KVM's faults are split by segment
# and by page (at it, other pages from 16 MiB up, below 16 MiB), and
# QEMU's UFFDIO_WRITEPROTECT calls are timed by task, a thread name with
# a space included.
e2e_trace_report() {
	mkdir -p "$W/tr/per_cpu/cpu0"
	echo 'overrun: 0' >"$W/tr/per_cpu/cpu0/stats"
	cat >"$W/tr/trace" <<-'EOL'
	# tracer: nop
	 qemu-system-x86-100 [000] ..... 10.000000: tracing_mark_write: E2E mark=before
	 qemu-system-x86-100 [000] ..... 11.000000: tracing_mark_write: E2E mark=check
	 live_migration-120 [001] ..... 11.100000: uffdio: (userfaultfd_ioctl+0x0/0x100) cmd=0xc018aa06 len=0x8000000 mode=0x1
	 CPU 0/KVM-130 [001] ..... 11.200000: uffdio: (userfaultfd_ioctl+0x0/0x100) cmd=0xc018aa06 len=0x80000000 mode=0x0
	 live_migration-120 [001] ..... 11.300000: uffdio_ret: (do_vfs_ioctl+0x10/0x20 <- userfaultfd_ioctl) ret=0x0
	 CPU 0/KVM-130 [001] ..... 11.200300: uffdio_ret: (do_vfs_ioctl+0x10/0x20 <- userfaultfd_ioctl) ret=0x0
	 CPU 0/KVM-130 [001] ..... 11.400000: kvm_page_fault: vcpu 0 rip 0x100384 address 0x0000000001005000 error_code 0x6
	 CPU 0/KVM-130 [001] ..... 11.400100: uffd: (handle_userfault+0x0/0x6b0) addr=0x7f0001005000
	 CPU 0/KVM-130 [001] ..... 11.400200: kvm_page_fault: vcpu 0 rip 0x100384 address 0x0000000001005000 error_code 0x6
	 qemu-system-x86-100 [000] ..... 12.000000: tracing_mark_write: E2E mark=protect
	 CPU 0/KVM-130 [001] ..... 12.400000: kvm_page_fault: vcpu 0 rip 0x100384 address 0x0000000002005000 error_code 0x6
	 CPU 0/KVM-130 [001] ..... 12.500000: kvm_page_fault: vcpu 0 rip 0x100384 address 0x0000000000005000 error_code 0x6
	 qemu-system-x86-100 [000] ..... 13.000000: tracing_mark_write: E2E mark=resolve
	 CPU 0/KVM-130 [001] ..... 13.400000: kvm_page_fault: vcpu 0 rip 0x100384 address 0x0000000003005000 error_code 0x6
	 qemu-system-x86-100 [000] ..... 14.000000: tracing_mark_write: E2E mark=after
	EOL
	{
		echo "T=$W/tr"
		echo 'say() { echo "$*"; }'
		sed -n '/^HEX_AWK=/,/^}'"'"'$/p' "$TOP/e2e/run"
		sed -n '/^trace_report() {$/,/^}$/p' "$TOP/e2e/run"
		echo 'ram_base=0x7f0000000000 uffd_probe=0'
		echo 'trace_report anon-4k+write64 128 && echo "rc=0"'
		echo 'uffd_probe=3'
		echo "cp $W/tr/trace.in $W/tr/trace"
		echo 'trace_report anon-4k+write64 128'
	} >"$W/tr/t.sh"
	cp "$W/tr/trace" "$W/tr/trace.in"
	busybox sh "$W/tr/t.sh" >"$W/tr/out" 2>/dev/null || :
	cat "$W/tr/out"
	grep -qx 'rc=0' "$W/tr/out"
	# Without the kprobes (uffd_probe=0), no E2E-UFFD line.
	[ "$(grep -c '^E2E-UFFD ' "$W/tr/out")" = 3 ]
	grep -qx 'E2E-UFFD backing=anon-4k+write64 seg=protect pgsz=4096 events=1 pages=1 pages_hi=1 outside=0 faults=2 faults_uffd_pages=2 faults_other=0 other_pages=0 faults_low=0' "$W/tr/out"
	grep -qx 'E2E-UFFD backing=anon-4k+write64 seg=resolve pgsz=4096 events=1 pages=1 pages_hi=1 outside=0 faults=2 faults_uffd_pages=0 faults_other=1 other_pages=1 faults_low=1' "$W/tr/out"
	grep -qx 'E2E-UFFD backing=anon-4k+write64 seg=snapshot pgsz=4096 events=1 pages=1 pages_hi=1 outside=0 faults=4 faults_uffd_pages=2 faults_other=1 other_pages=1 faults_low=1' "$W/tr/out"
	grep -qx 'E2E-UFFDIO backing=anon-4k+write64 protect_calls=1 protect_us=200000 protect_max_us=200000 protect_bytes=134217728 resolve_calls=1 resolve_us=300 resolve_max_us=300 resolve_bytes=2147483648' "$W/tr/out"
	grep -qx 'E2E-TRACE backing=anon-4k+write64 seg=after faults=1 full=0 small=0 small_before_full=0 faults_after_full=0' "$W/tr/out"
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

t "help: every KPU_ knob documented" knobs_documented
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
t "tree: unexported commits kept; KPU_FORCE=1 backs up" tree_keeps_unexported
t "tree: a changed patch is named once, state line" tree_changed_patch
t "export: postings, prerequisites, a posting on the base alone" export_postings
t "export: a posting that needs more, a malformed list" postings_refused
t "out: from and signed off by a person (none refused), To:/Cc: per patch, all on its cover, checkpatch on it; series/NAME/mail: private, skip, bad refused" out_postings
t "tree: a posting short of patches stops it" tree_counts_patches
t "check: a suite runs on a fixup tree, protocol summed" suite_on_fixup_tree
t "check: two at a time, a suite waits for those it needs" suite_needs
t "tree: stale patch named, git am state left" stale_patch_stops
t "apt: mirror read from the machine's sources" mirror_from_apt_sources
t "run-guest: QEMU line in the log, never quiet" guest_clean
t "run-guest: a boot that never reached the test, once more" guest_retry
t "run-guest: quiet refused" guest_refuses_quiet
t "run-guest: arm64 modes" guest_arm64
t "guest-suite: plan, initramfs, a boot each, the verdict's expectations" guest_suite_verdict
t "guest-suite: a splat and a missing log fail" guest_suite_splat_and_missing
t "guest-suite: bad input refused, nothing booted" guest_suite_refused
t "sparse: moved message not new, repeated one is" sparse_compare
t "mutants: unknown name and bad Catch: line refused, nothing built" mutants_refused
t "mutants-apply: a stale mutant fails, nothing applied or built" mutants_apply
t "e2e: the trace report splits faults by segment and userfaulted page" e2e_trace_report

report harness-test "$pass" "$fail"
[ "$fail" -eq 0 ]
