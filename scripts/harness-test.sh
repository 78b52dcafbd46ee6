#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own tests, on a tiny fake base so that they take seconds:
# tarball verification, tree creation, the series <-> tree round trip,
# testing a tree that differs from series/, refusing bad input without
# losing anything, the suite runner and its protocol, and the guest
# runner (run-guest.sh) on captured console logs replayed by a fake
# qemu-system-x86_64.

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

export RFC_BASE_CONF="$W/base.conf" RFC_CACHE="$W/cache" RFC_SHARED="$W/noshared" \
	RFC_TREE="$W/tree" RFC_SERIES="$W/series" \
	RFC_BUILD="$W/build" RFC_LINUX_TARBALL="$W/linux_9.9.9.orig.tar.xz"
TREE=$RFC_TREE SERIES=$RFC_SERIES LINUX_TARBALL=$RFC_LINUX_TARBALL
unset RFC_FORCE RFC_SUITE RFC_SUITES

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
	fails env RFC_LINUX_TARBALL="$W/bad.tar.xz" RFC_CACHE="$W/cache2" "$S/fetch-base.sh" 2>"$W/err"
	grep -q 'sha256 mismatch' "$W/err"
	[ "$(sha256_of "$W/bad.tar.xz")" = "$before" ]	# the user's file is kept
	[ ! -e "$W/cache2/dl/linux_9.9.9.orig.tar.xz" ]	# and not cached
}

missing_tarball() {
	fails env RFC_LINUX_TARBALL="$W/nope.tar.xz" "$S/fetch-base.sh" 2>"$W/err"
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
	a=$(git -C "$RFC_CACHE/linux-9.9.9.git" rev-parse "v9.9.9^{commit}")
	RFC_CACHE="$W/cache3" "$S/base.sh" >/dev/null
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
	fails env RFC_FORCE=1 "$S/tree.sh" 2>"$W/err"
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
	RFC_FORCE=1 "$S/tree.sh" 2>"$W/err"
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
	RFC_FORCE=1 "$S/tree.sh" 2>"$W/err"
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
	case " $* " in *" --m "*) echo "Maint <m@example.org>" ;; *) echo "list@example.org" ;; esac
	STUB
	chmod +x "$TREE/scripts/get_maintainer.pl"
	RFC_OUT="$W/out" "$S/out.sh" 2>"$W/err"
	grep -q 'mail-ready postings in .* (2 patches in 1 postings)' "$W/err"
	for p in "$W/out/all/"v2-000[012]-*.patch; do
		grep -qx 'To: Maint <m@example.org>' "$p"
		grep -qx 'Cc: list@example.org' "$p"
	done
	rm -f "$TREE/scripts/get_maintainer.pl"
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
	fake  check  tree  sh -c 'grep -q "int fix;" "\$RFC_TREE/mm/x.c" && echo "\$RFC_SUITE: 3 passed, 0 failed, 1 skipped"' | fake suite
	nocount check - sh -c 'echo no counts here' | prints no counts
	badrc check - sh -c 'echo "badrc: 2 passed, 0 failed"; exit 1' | fails without counting
	REG
	make -s -C "$TOP" -o deps RFC_SUITES="$W/suites" fake >"$W/out" 2>&1 || { cat "$W/out"; exit 1; }
	grep -q 'warning: tree has 1 commit not in series/' "$W/out"
	grep -q '^fake .* 3 passed, *0 failed, 1 skipped' "$W/out"
	tail -n 1 "$W/out" | grep -qx '3 passed, 0 failed'
	fails env RFC_SUITES="$W/suites" "$S/check.sh" fake nocount badrc >"$W/out" 2>&1
	tail -n 1 "$W/out" | grep -qx '5 passed, 2 failed'
	fails env RFC_SUITES="$W/suites" "$S/check.sh" nosuch 2>"$W/err"
	grep -q "unknown suite 'nosuch'" "$W/err"
	git -C "$TREE" reset -q --hard HEAD~1
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
	RFC_APT_ETC=$W/apt sh -c '. "$(dirname "$0")/lib.sh"; debian_mirror' \
		"$S/harness-test.sh" >"$W/m"
	printf 'http://other.invalid/debian\nhttp://mirror.invalid/debian\n' | cmp - "$W/m"
}

# The guest runner on console logs captured from real guests
# (scripts/rfctool/test_data/), replayed by a fake qemu-system-x86_64 that
# also records its arguments.  FAKE_FIRST, when set, is what the first
# boot prints (a guest that died before its test).
fake_qemu() {
	mkdir -p "$W/bin"
	cat >"$W/bin/qemu-system-x86_64" <<-'EOQ'
	#!/bin/sh
	echo "$*" >>"$FAKE_ARGS"
	if [ -n "${FAKE_SILENT:-}" ]; then
		head -n "$FAKE_SILENT" "$FAKE_LOG"
		exec sleep 120
	fi
	if [ -n "${FAKE_FIRST:-}" ] && [ ! -e "$FAKE_ARGS.once" ]; then
		: >"$FAKE_ARGS.once"
		cat "$FAKE_FIRST"
		exit 0
	fi
	cat "$FAKE_LOG"
	EOQ
	chmod +x "$W/bin/qemu-system-x86_64"
	: >"$W/kernel"
	: >"$W/initrd"
	rm -f "$W/args" "$W/args.once" "$W/g.log" "$W/g.log.try1"
}

# run-guest.sh with the fake QEMU replaying $1; prints its exit status.
guest() { # FIXTURE [FIRST_BOOT_FIXTURE]
	fake_qemu
	rc=0
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$D/$1 FAKE_FIRST=${2:+$D/$2} \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" 1 "$W/g.log" 2>"$W/err" || rc=$?
	echo "$rc"
}

D=$TOP/scripts/rfctool/test_data

guest_clean() {
	[ "$(guest guest-pass.log)" = 0 ]
	# The QEMU command heads the log; the kernel is never booted quiet.
	head -n 1 "$W/g.log" | grep -q '^GUEST-QEMU: qemu-system-x86_64 -accel tcg,thread=single -cpu EPYC,+svm,+npt '
	head -n 1 "$W/g.log" | grep -q 'loglevel=5'
	fails grep -qw quiet "$W/args"
	[ ! -e "$W/g.log.try1" ]
	[ "$(guest guest-fail.log)" = 1 ]
}

guest_splat() {
	[ "$(guest guest-warn.log)" = 3 ]
	grep -q 'SPLAT' "$W/err"
	grep -q 'warn: .*WARNING: .*kvm_mmu_notifier_invalidate_range_start' "$W/err"
}

guest_retry() {
	[ "$(guest guest-pass.log guest-early-panic.log)" = 0 ]
	[ "$(wc -l <"$W/args")" -eq 2 ]
	grep -q 'Kernel panic' "$W/g.log.try1"
	grep -q 'never reached the test; booting once more' "$W/err"
	# Once only: a guest that never starts is no result.
	[ "$(guest guest-early-panic.log)" = 3 ]
	[ "$(wc -l <"$W/args")" -eq 2 ]
}

# A guest that falls silent: the watchdog writes what it could find out
# (here no monitor answers: the fake QEMU has none) and kills QEMU.
guest_silent() {
	fake_qemu
	n=$(grep -n '^GUEST: kernel' "$D/guest-pass.log" | cut -d: -f1)
	t0=$(date +%s)
	rc=0
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$D/guest-pass.log FAKE_SILENT=$n \
		RFC_GUEST_SILENCE=5 "$S/run-guest.sh" "$W/kernel" "$W/initrd" 1 "$W/g.log" \
		2>"$W/err" || rc=$?
	[ "$rc" = 2 ]
	[ $(($(date +%s) - t0)) -lt 60 ]
	grep -q '^GUEST-WATCHDOG: no console output for [0-9]*s' "$W/g.log"
	grep -q '^GUEST-WATCHDOG: monitor .*g.log.mon' "$W/g.log"
	grep -q '^GUEST-WATCHDOG: killed QEMU' "$W/g.log"
	grep -q -- '-monitor unix:.*g.log.mon,server=on,wait=off' "$W/args"
	[ ! -e "$W/g.log.mon" ]
}

# An arm64 Image (its header's magic at 56) boots under qemu-system-aarch64
# at EL2, in the mode asked for; an x86 mode is refused.
guest_arm64() {
	fake_qemu
	cp "$W/bin/qemu-system-x86_64" "$W/bin/qemu-system-aarch64"
	chmod +x "$W/bin/qemu-system-aarch64"
	head -c 56 /dev/zero >"$W/kernel"
	printf 'ARMd' >>"$W/kernel"
	for m in vhe nvhe protected a57 mte; do
		rm -f "$W/args"
		PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$D/guest-pass.log \
			"$S/run-guest.sh" "$W/kernel" "$W/initrd" "$m" "$W/g.log" 2>"$W/err"
		head -n 1 "$W/g.log" | grep -q '^GUEST-QEMU: qemu-system-aarch64 .*-M virt,virtualization=on,gic-version=3'
		grep -q 'console=ttyAMA0' "$W/args"
	done
	grep -q 'mte=on' "$W/args"
	rm -f "$W/args"
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$D/guest-pass.log \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" protected "$W/g.log" 2>"$W/err"
	grep -q 'kvm-arm.mode=protected' "$W/args"
	rm -f "$W/args"
	PATH=$W/bin:$PATH FAKE_ARGS=$W/args FAKE_LOG=$D/guest-pass.log \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" a57 "$W/g.log" 2>"$W/err"
	grep -q -- '-cpu cortex-a57' "$W/args"
	fails env PATH="$W/bin:$PATH" "$S/run-guest.sh" "$W/kernel" "$W/initrd" 1 "$W/g.log" 2>"$W/err"
	grep -q "MODE must be vhe, nvhe, protected, a57 or mte for an arm64 kernel, not '1'" "$W/err"
}

guest_refuses_quiet() {
	fake_qemu
	fails env PATH="$W/bin:$PATH" RFC_GUEST_APPEND=quiet \
		"$S/run-guest.sh" "$W/kernel" "$W/initrd" 1 "$W/g.log" 2>"$W/err"
	grep -q "'quiet' would hide" "$W/err"
	[ ! -e "$W/args" ]
}

# Every RFC_* variable that the harness reads has a "#:" line, which is
# what make help prints.
knobs_documented() {
	make -s -C "$TOP" help >"$W/help"
	for k in $(cat "$TOP"/scripts/*.sh "$TOP/scripts/suites" "$TOP/Makefile" |
			grep -o 'RFC_[A-Z0-9_]*[A-Z0-9]' | sort -u); do
		grep -q "^  $k " "$W/help" || { echo "undocumented knob $k"; return 1; }
	done
}

# RFC_PRIOR_KERNEL (bench, e2e): unset or empty, no prior kernel; a file,
# its absolute path; a missing file, an error that names it.
prior_kernel_knob() {
	unset RFC_PRIOR_KERNEL
	prior_kernel
	[ -z "$prior" ]
	RFC_PRIOR_KERNEL=
	prior_kernel
	[ -z "$prior" ]
	: >"$W/bzImage-prior"
	(cd "$W" && RFC_PRIOR_KERNEL=bzImage-prior && prior_kernel && [ "$prior" = "$W/bzImage-prior" ])
	RFC_PRIOR_KERNEL=$W/nope/bzImage
	if (prior_kernel) 2>"$W/err"; then
		return 1
	fi
	grep -q "RFC_PRIOR_KERNEL: no such file: $W/nope/bzImage" "$W/err"
}

# make mutants: an unknown name, or a mutant without a Catch: line that it
# understands, is refused before anything is built or applied.
mutants_refused() {
	mkdir -p "$W/mutants"
	printf 'Wrong: no catch\nCatch: guest 2 x86/none\n' >"$W/mutants/bad.diff"
	fails env RFC_MUTANTS_DIR="$W/mutants" "$S/mutants.sh" nope 2>"$W/err"
	grep -q "no mutant 'nope'" "$W/err"
	fails env RFC_MUTANTS_DIR="$W/mutants" "$S/mutants.sh" bad 2>"$W/err"
	grep -q "bad.diff: no 'Catch: guest NPT TEST'" "$W/err"
	[ ! -e "$RFC_BUILD/mutant" ]
}

# make check's mutants-apply: a mutant that applies to the tree counts as
# passed, one left behind by a change to the tree as failed; nothing is
# applied to the tree or built.
mutants_apply() {
	mkdir -p "$W/mutants-a"
	printf 'Wrong: one\nCatch: guest 1 x86/none\n\n' >"$W/mutants-a/good.diff"
	sed 's/^int b;$/int b2;/' "$TREE/mm/x.c" >"$W/x.c"
	cp "$W/x.c" "$TREE/mm/x.c"
	git -C "$TREE" diff >>"$W/mutants-a/good.diff"
	git -C "$TREE" checkout -q -- mm/x.c
	printf 'Wrong: two\nCatch: guest 1 x86/none\n\n' >"$W/mutants-a/stale.diff"
	sed 's/^-int b;$/-int gone;/' "$W/mutants-a/good.diff" |
		sed -n '/^diff --git/,$p' >>"$W/mutants-a/stale.diff"
	fails env RFC_MUTANTS_DIR="$W/mutants-a" "$S/mutants.sh" --apply-only \
		>"$W/out" 2>&1
	grep -q "^ok .*good: applies to the tree's HEAD" "$W/out"
	grep -q "^FAILED .*stale: applies to the tree's HEAD" "$W/out"
	grep -q "^mutants-apply: 1 passed, 1 failed" "$W/out"
	git -C "$TREE" diff --quiet
	[ ! -e "$RFC_BUILD/mutant" ]
}

# make e2e: an unknown backing, or +write on one, is refused before any
# kernel is built or any guest boots.
e2e_refuses_backing() {
	fails env RFC_E2E_BACKINGS="thp nope+write" RFC_E2E_DIR="$W/e2e" "$S/e2e.sh" 2>"$W/err"
	grep -q "RFC_E2E_BACKINGS: unknown backing 'nope+write'" "$W/err"
	[ ! -e "$W/e2e" ]
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

t "help: every RFC_ knob documented" knobs_documented
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
t "tree: unexported commits kept; RFC_FORCE=1 backs up" tree_keeps_unexported
t "tree: a changed patch is named once, state line" tree_changed_patch
t "export: postings, prerequisites, a posting on the base alone" export_postings
t "export: a posting that needs more, a malformed list" postings_refused
t "out: To:/Cc: per patch of each posting, all on its cover" out_postings
t "tree: a posting short of patches stops it" tree_counts_patches
t "check: a suite runs on a fixup tree, protocol summed" suite_on_fixup_tree
t "tree: stale patch named, git am state left" stale_patch_stops
t "apt: mirror read from the machine's sources" mirror_from_apt_sources
t "run-guest: QEMU line in the log, never quiet, result" guest_clean
t "run-guest: a WARN fails a passing test" guest_splat
t "run-guest: a boot that never reached the test, once more" guest_retry
t "run-guest: quiet refused" guest_refuses_quiet
t "run-guest: arm64 modes" guest_arm64
t "run-guest: a silent guest, evidence, killed" guest_silent
t "sparse: moved message not new, repeated one is" sparse_compare
t "bench, e2e: RFC_PRIOR_KERNEL unset, relative, missing" prior_kernel_knob
t "mutants: unknown name and bad Catch: line refused, nothing built" mutants_refused
t "mutants-apply: a stale mutant fails, nothing applied or built" mutants_apply
t "e2e: an unknown backing refused, nothing built" e2e_refuses_backing
t "e2e: the trace report splits faults by segment and userfaulted page" e2e_trace_report

report harness-test "$pass" "$fail"
[ "$fail" -eq 0 ]
