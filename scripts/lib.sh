# SPDX-License-Identifier: GPL-2.0
# Common definitions for the harness scripts.  Sourced, never run.
# shellcheck disable=SC2034 # its variables are for the scripts that source it

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
BASE_CONF=${KPU_BASE_CONF:-$TOP/base.conf}
# shellcheck source=../base.conf
. "$BASE_CONF"

# The harness's knobs: environment variables, or make's command line
# ("make stress KPU_SEED=1").  All start with KPU_, so that nothing in a
# developer's shell is taken up by mistake; "make help" lists them from the
# "#:" lines here and in the scripts.
#: KPU_CACHE          cache directory (default ${XDG_CACHE_HOME:-~/.cache}/kvm-perm-upgrade)
#: KPU_TREE           the kernel tree (default build/linux)
#: KPU_BUILD          build outputs (default build/)
#: KPU_SERIES         the exported series: POSTINGS and a directory per posting (default series/)
#: KPU_BASE_CONF      the pinned base (default base.conf)
#: KPU_SHARED         where linux/linux_VERSION.orig.tar.xz may be (default ../shared)
#: KPU_LINUX_TARBALL  the base tarball to use (its sha256 is still checked)
#: KPU_DEBIAN_MIRROR  Debian mirror for source packages (default: from apt's sources)
#: KPU_APT_ETC        apt's configuration directory read for the mirror (default /etc/apt)
#: KPU_SUITE          set by check.sh: the name a suite reports its counts under
#: KPU_GUEST_SUITES   the guest suites' entries (default guest/suites)
PROG=${0##*/}
CACHE=${KPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvm-perm-upgrade}
SHARED_DIR=${KPU_SHARED:-$TOP/../shared}
TREE=${KPU_TREE:-$TOP/build/linux}
BUILD=${KPU_BUILD:-$TOP/build}
SERIES=${KPU_SERIES:-$TOP/series}
GUEST_SUITES=${KPU_GUEST_SUITES:-$TOP/guest/suites}
APT_ETC=${KPU_APT_ETC:-/etc/apt}
BASE_TAG=v$BASE_VERSION
BASE_GIT=$CACHE/linux-$BASE_VERSION.git
BRANCH=series
HARNESS_PY=$TOP/scripts/tool/harness.py

die() { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }
info() { printf '%s: %s\n' "$PROG" "$*" >&2; }

need() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "'$t' is missing: run 'make deps' (as root, or see what it prints)"
	done
}

# The first Debian archive URI the machine's apt is configured with, read
# from its one-line and deb822 sources.  Security and third-party archives
# are skipped; KPU_DEBIAN_MIRROR overrides.
debian_mirror() {
	if [ -n "${KPU_DEBIAN_MIRROR:-}" ]; then
		echo "$KPU_DEBIAN_MIRROR"
		return
	fi
	for f in "$APT_ETC/sources.list" "$APT_ETC"/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 ~ /^deb(-src)?$/ {
			i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++
			if ($i ~ /^\[/) i++
			if ($i ~ /\/debian\/?$/ && $(i + 1) !~ /-security/) print $i
		}' "$f"
	done
	for f in "$APT_ETC"/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() {
			if (uri ~ /\/debian\/?$/ && suites !~ /-security/ && en != "no")
				print uri
			uri = suites = en = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^#/ { next }
		tolower($1) == "uris:" { uri = $2 }
		tolower($1) == "suites:" { suites = $0 }
		tolower($1) == "enabled:" { en = tolower($2) }
		END { flush() }' "$f"
	done
}

# apt-get with a private state and sources directory under the cache, so
# that the system's apt setup is left untouched: deb-src of unstable from
# the machine's own Debian mirror.
papt_setup() {
	need apt-get
	mirror=$(debian_mirror | head -n 1)
	[ -n "$mirror" ] ||
		die "no Debian archive found in the apt sources; set KPU_DEBIAN_MIRROR"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring is missing: install debian-archive-keyring"
	PAPT=$CACHE/apt
	mkdir -p "$PAPT/lists/partial" "$PAPT/cache/archives/partial" "$PAPT/etc"
	echo "deb-src [signed-by=$keyring] $mirror unstable main" \
		>"$PAPT/etc/sources.list"
	papt update >&2 || die "apt-get update of unstable deb-src from $mirror failed"
}

papt() {
	apt-get -q \
		-o Dir::Etc::SourceList="$PAPT/etc/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$PAPT/lists" \
		-o Dir::State::status=/dev/null \
		-o Dir::Cache="$PAPT/cache" \
		-o APT::Sandbox::User=root \
		"$@"
}

sha256_of() {
	sha256sum "$1" | cut -d' ' -f1
}

# True when the tree is in the middle of git am or a rebase.
tree_mid_operation() {
	gitdir=$(git -C "$TREE" rev-parse --absolute-git-dir)
	[ -d "$gitdir/rebase-apply" ] || [ -d "$gitdir/rebase-merge" ]
}

# Refuse to read or rewrite a tree that is mid-operation or dirty.
tree_must_be_clean() {
	[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
	! tree_mid_operation ||
		die "$TREE is in the middle of git am or rebase: finish or abort it first"
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		die "$TREE has uncommitted changes: commit them (git commit -s, or --fixup and rebase) first"
}

# Names and hashes of the *.patch files in a series directory, its
# postings' subdirectories included (none if absent).
patch_digest() {
	[ -d "$1" ] || return 0
	(cd "$1" && find . -name '*.patch' | LC_ALL=C sort |
		xargs -r sha256sum | sed 's|  \./|  |')
}

# The postings of series/POSTINGS, one line each in the order the stack
# applies them: "NAME PATCHES RFC VERSION NEEDS...", comments and blank
# lines dropped.  NAME is the posting's directory in series/; PATCHES the
# number of the tree's commits it takes, after the previous postings';
# RFC "rfc" or "-" (the subject prefix is "RFC PATCH" or "PATCH");
# VERSION its reroll count; NEEDS the postings it applies on ("-": none,
# the base), each listed before it.  Dies on a malformed list.
postings() {
	[ -f "$SERIES/POSTINGS" ] || die "no $SERIES/POSTINGS (the list of postings)"
	awk -v f="$SERIES/POSTINGS" '
		{ sub(/#.*/, ""); e = "" }
		NF == 0 { next }
		NF < 5 { e = "want NAME PATCHES RFC VERSION NEEDS..." }
		!e && $1 !~ /^[A-Za-z0-9][A-Za-z0-9._-]*$/ { e = "bad posting name \"" $1 "\"" }
		!e && $1 in seen { e = "posting " $1 " listed twice" }
		!e && $2 !~ /^[1-9][0-9]*$/ { e = $1 ": PATCHES \"" $2 "\" is not a positive number" }
		!e && $3 != "rfc" && $3 != "-" { e = $1 ": RFC \"" $3 "\" is not rfc or -" }
		!e && $4 !~ /^[1-9][0-9]*$/ { e = $1 ": VERSION \"" $4 "\" is not a positive number" }
		!e {
			for (i = 5; i <= NF; i++)
				if (!($i in seen) && !($i == "-" && NF == 5))
					e = $1 ": needs \"" $i "\", which is not a posting listed before it"
		}
		e { printf "%s:%d: %s\n", f, FNR, e >"/dev/stderr"; err = 1; next }
		{ seen[$1] = 1; $1 = $1; print }
		END { exit err }' "$SERIES/POSTINGS" || die "$SERIES/POSTINGS is malformed"
}

# The postings that posting NAME needs, directly or through the postings
# it needs, in the order of series/POSTINGS, one per line.
posting_needs() { # NAME
	postings | awk -v p="$1" '
		{ line[NR] = $0; name[NR] = $1 }
		END {
			need[p] = 1
			for (i = NR; i >= 1; i--) {
				if (!(name[i] in need))
					continue
				n = split(line[i], w, " ")
				for (j = 5; j <= n; j++)
					if (w[j] != "-")
						need[w[j]] = 1
			}
			for (i = 1; i <= NR; i++)
				if (name[i] in need && name[i] != p)
					print name[i]
		}'
}

# The patches of posting NAME in a series directory, in order.
posting_patches() { # DIR NAME
	[ ! -d "$1/$2" ] ||
		find "$1/$2" -maxdepth 1 -name '*.patch' ! -name '*0000-cover-letter.patch' |
		LC_ALL=C sort
}

# The patches of a series directory in the order the stack applies them:
# posting by posting, as series/POSTINGS lists them; no cover letters.
series_patches() { # DIR
	postings | while read -r name _; do
		posting_patches "$1" "$name"
	done
}

# Compile through ccache in the cache dir, keyed on paths relative to the
# repo, so that a fresh clone elsewhere still hits.
use_ccache() {
	export CCACHE_DIR="${CCACHE_DIR:-$CACHE/ccache}"
	export CCACHE_BASEDIR="$TOP" CCACHE_NOHASHDIR=1
	export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-8G}"
}

# timing_build DIR: whether the kernel build DIR is of the timing config
# (guest/timing.config: KVM_PROVE_MMU off), as guest-kernel.sh builds a
# KIND-timing kernel and a timing suite's report says of every kernel.
timing_build() {
	! grep -q '^CONFIG_KVM_PROVE_MMU=y' "$1/.config"
}

# A worktree of the tree at the base tag, for base-vs-patched comparisons
# (guest kernels, sparse).  Prints its path.
base_worktree() {
	bw=$BUILD/linux-base
	[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
	# make check runs two suites at once: the first creates it, the other
	# waits rather than use a half checked-out tree.
	mkdir -p "$BUILD"
	(
		flock 9
		[ -d "$bw" ] || git -C "$TREE" worktree add -q --detach "$bw" "$BASE_TAG" >&2
	) 9>"$BUILD/linux-base.lock"
	[ "$(git -C "$bw" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ] ||
		die "$bw is not at $BASE_TAG"
	echo "$bw"
}

# The kernel directories the series builds and checks for an arch.
arch_dirs() {
	case $1 in
	x86_64) echo "mm/ virt/kvm/ arch/x86/kvm/ lib/test_hmm.o drivers/infiniband/" ;;
	*) echo "mm/ virt/kvm/ arch/$1/kvm/" ;;
	esac
}

# ARCH and CROSS_COMPILE for make, per arch.
karch_of() { case $1 in x86_64) echo x86 ;; *) echo "$1" ;; esac; }
cross_of() {
	case $1 in
	arm64) echo aarch64-linux-gnu- ;;
	s390) echo s390x-linux-gnu- ;;
	esac
}

# sparse's messages as "file: warning|error: message", the source
# directory prefix and line:col dropped, sorted: comm -13 of two such lists
# gives the new messages, counting repeats.
# SRCDIR is stripped as given and as its physical path, which is what the
# compiler prints when the build directory is reached through a symlink.
sparse_normalise() { # SRCDIR < sparse output
	phys=$(cd "$1" 2>/dev/null && pwd -P) || phys=$1
	sed -n -e "s|^$1/||" -e "s|^$phys/||" \
		-e 's#^\([^: ]*\):[0-9]*:[0-9]*: \(warning\|error\): #\1: \2: #p' |
		LC_ALL=C sort
}

# report_header FILE [KEY=VALUE...]: the header of a guest suite's report:
# when, QEMU, host, tree, base, harness, kernels (a prior one too), then
# the suite's own KEY=VALUE lines.
report_header() {
	f=$1
	shift
	{
		echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
		echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
		echo "host_cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1) x $(nproc)"
		echo "tree_head=$(git -C "$TREE" describe --always --tags HEAD 2>/dev/null || echo unknown)"
		echo "base_tag=$BASE_TAG $(git -C "$TREE" rev-parse --short "$BASE_TAG^{commit}" 2>/dev/null)"
		echo "harness=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo unknown)"
		echo "kernels=$([ "${KPU_PREBUILT:-0}" = 1 ] && echo prebuilt || echo rebuilt)"
		[ -z "${KPU_PRIOR_KERNEL:-}" ] || echo "prior_kernel=$KPU_PRIOR_KERNEL"
		for kv; do echo "$kv"; done
	} >"$f"
}

# selftests_make TREE COLLECTION ARCH BUILD OUT [TARGET...]: the selftests
# of tools/testing/selftests/COLLECTION (kvm, mm, rdma) of TREE, for ARCH
# (x86_64, arm64), by their own Makefile, against the uapi headers of the
# kernel build BUILD (made there if missing), into OUT: the TARGETs (paths
# under OUT), static, for a guest; or, without TARGETs, all of them, as
# the Makefile lists them (bisect-check).
selftests_make() {
	st_tree=$1 st_coll=$2 st_arch=$3 st_build=$4 st_out=$5
	shift 5
	st_karch=$(karch_of "$st_arch") st_cross=$(cross_of "$st_arch")
	use_ccache
	[ -f "$st_build/usr/include/linux/kvm.h" ] ||
		make -s -C "$st_tree" O="$st_build" ARCH="$st_karch" CROSS_COMPILE="$st_cross" \
			headers >&2 || return 1
	set -- ARCH="$st_karch" CROSS_COMPILE="$st_cross" CC="ccache ${st_cross}gcc" \
		OUTPUT="$st_out" KHDR_INCLUDES="-isystem $st_build/usr/include" "$@"
	if [ $# -gt 5 ]; then
		case $st_coll in
		kvm | mm) set -- EXTRA_CFLAGS=-static "$@" ;;
		# rxe_odp_test links libibverbs with its rxe provider in.
		rdma) set -- LDFLAGS=-static LDLIBS="-Wl,--whole-archive -lrxe-rdmav34 \
-Wl,--no-whole-archive -libverbs -lnl-route-3 -lnl-3 -lpthread" "$@" ;;
		esac
	fi
	mkdir -p "$st_out"
	make -s -C "$st_tree/tools/testing/selftests/$st_coll" -j"$(nproc)" "$@" >&2
}

# arm64_busybox: prints the path of a static arm64 busybox for arm64 guests'
# initramfs, from Debian's busybox-static for arm64 (the release of this
# host, from its mirror), fetched once into the cache.
arm64_busybox() {
	abb=$CACHE/arm64/busybox
	if [ ! -x "$abb" ]; then
		need apt-get dpkg-deb
		mirror=$(debian_mirror | head -n 1)
		[ -n "$mirror" ] ||
			die "no Debian archive found in the apt sources; set KPU_DEBIAN_MIRROR"
		# shellcheck disable=SC1091 # the host's
		codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
		[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
		a=$CACHE/arm64/apt
		rm -rf "$a"
		mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/deb"
		echo "deb [arch=arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename main" \
			>"$a/sources.list"
		set -- -q -o Dir::Etc::SourceList="$a/sources.list" \
			-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$a/lists" \
			-o Dir::State::status=/dev/null -o Dir::Cache="$a/cache" \
			-o APT::Sandbox::User=root -o APT::Architecture=arm64 \
			-o APT::Architectures=arm64
		apt-get "$@" update >&2 || die "apt-get update of arm64 $codename from $mirror failed"
		(cd "$a/deb" && apt-get "$@" download busybox-static >&2) ||
			die "could not fetch busybox-static for arm64"
		dpkg-deb -x "$a"/deb/busybox-static_*.deb "$a/x"
		file -L "$a/x/bin/busybox" | grep -q 'ARM aarch64.*statically linked' ||
			die "$a/x/bin/busybox is not a static arm64 busybox"
		mv "$a/x/bin/busybox" "$abb"
		rm -rf "$a"
	fi
	echo "$abb"
}

# The suite protocol (scripts/suites, check.sh): a suite's output ends with
# "NAME: N passed, N failed[, N skipped]", NAME being the name it was run
# under (KPU_SUITE, set by check.sh) or its own.
report() { # DEFAULT_NAME PASSED FAILED [SKIPPED]
	line="${KPU_SUITE:-$1}: $2 passed, $3 failed"
	[ "${4:-0}" -eq 0 ] || line="$line, $4 skipped"
	echo "$line"
}

# One check of a suite with several: "ok" or "FAILED" and WHAT, counted in
# the caller's pass and fail (which it sets to 0 first) for report().
count() { # ok|no WHAT
	if [ "$1" = ok ]; then
		pass=$((pass + 1))
		echo "ok       $2"
	else
		fail=$((fail + 1))
		echo "FAILED   $2"
	fi
}

# harness.py (the Python half: it reads and decides) with the first python3;
# it reads KTAP with the tree's kunit_parser.
#: KPU_KUNIT          where harness.py finds kunit_parser.py (default the tree's
#:                    tools/testing/kunit)
harness() {
	KPU_TREE=$TREE KPU_KUNIT=${KPU_KUNIT:-$TREE/tools/testing/kunit} python3 "$HARNESS_PY" "$@"
}

# checkpatch.pl --strict on one patch file, run the same way by the
# checkpatch and bisect-check suites: the tree's checkpatch (TREE_DIR),
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") replaced by the
# question itself: get_maintainer.pl must name a maintainer for every file
# the patch creates.  UNKNOWN_COMMIT_ID is ignored: the tree comes from a
# release tarball without history, so the upstream commit that a Fixes: tag
# names cannot be looked up; the tag's format is still checked.
# checkpatch runs scripts/spdxcheck.py with the first python3 on PATH; it
# needs Debian's, which has python3-ply and python3-git.
# harness.py changelog then refuses what an editor or git left in the
# changelog (a rebase's comment block, a '#' line that git commit strips),
# which checkpatch does not look for, a Signed-off-by: series/ has
# none, as only the sender signs off (make out), and the base release
# (v$BASE_VERSION), which only base-commit: names; and, anywhere after
# the headers, signed or not, the name or address of the identity that
# TREE_DIR's HEAD is committed under when it is no one's (the series'
# placeholder).  With "signed" (make out's output), a Signed-off-by is
# allowed, and checkpatch requires it.
checkpatch_patch() { # TREE_DIR PATCH [signed]
	(
	cd "$1" || exit 1
	rc=0 ignore=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID signed=''
	if [ "${3:-}" = signed ]; then
		signed=--signed
	else
		ignore=$ignore,MISSING_SIGN_OFF
	fi
	env PATH="/usr/bin:$PATH" ./scripts/checkpatch.pl --strict --quiet --showfile \
		--ignore "$ignore" "$2" 2>&1 || rc=1
	# shellcheck disable=SC2086 # --signed, or nothing
	harness changelog $signed --base "$BASE_VERSION" \
		--placeholder "$(git log -1 --format='%an <%ae>' 2>/dev/null)" "$2" || rc=1
	# By path, as a one-file patch: the file may be gone from the tree's
	# HEAD (moved by a later commit), which get_maintainer.pl -f refuses.
	for f in $(awk '/^diff --git / { f = $4 } /^new file mode/ { print substr(f, 3) }' "$2"); do
		if ! printf -- '--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+\n' "$f" |
				./scripts/get_maintainer.pl --no-git --no-git-fallback --nol --nor \
				2>/dev/null | grep -q '(maintainer:'; then
			echo "$f: new file without a maintainer in MAINTAINERS"
			rc=1
		fi
	done
	exit "$rc"
	)
}

# One key per patch of a series directory (cover letters aside), sorted:
# the posting it is in and a hash of the patch's text with its mail
# headers unfolded and the "[RFC PATCH v3 N/M]" or "[PATCH]" of its
# subject dropped, so that adding a commit (which renumbers, and may
# refold, every subject) does not change the others' keys, and moving one
# to another posting does.
patch_keys() { # DIR
	find "$1" -name '*.patch' ! -name '*0000-cover-letter.patch' |
	while read -r p; do
		d=${p%/*}
		printf '%s ' "${d##*/}"
		awk 'body { print; next }
		     /^$/ { print h; print; body = 1; next }
		     /^[ \t]/ { h = h $0; next }
		     { if (NR > 1) print h; h = $0 }' "$p" |
			sed '1,/^$/ s/^Subject: \[[^]]*\] /Subject: /' | sha256sum | cut -d' ' -f1
	done | LC_ALL=C sort
}

# series_stamp: what make tree applied, for tree_state's fast path: the
# digest of series/ (its POSTINGS, covers, notes and patches) and the
# tree's HEAD just after git am.
series_stamp() {
	(cd "$SERIES" && find . -type f | LC_ALL=C sort | xargs -r sha256sum) |
		sha256sum | cut -c1-64
}
stamp_file() { echo "$(git -C "$TREE" rev-parse --git-dir)/kpu-applied"; }

# How the tree stands against series/, in one line: "tree matches
# series/", or what differs and what to run.  Exit status 0 when it
# matches.  A clean tree whose HEAD is the one make tree made from the
# same series/ (stamp_file) matches at once; otherwise the tree's export
# (HEAD) is compared with series/ patch by patch.
tree_state() {
	ts_stamp=$(stamp_file)
	if [ -f "$ts_stamp" ] &&
		[ "$(cat "$ts_stamp")" = "$(git -C "$TREE" rev-parse HEAD) $(series_stamp)" ] &&
		[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ]; then
		echo "tree matches series/"
		return 0
	fi
	[ -e "$TREE/.git" ] || { echo "no kernel tree at $TREE (run make tree)"; return 1; }
	if tree_mid_operation; then
		echo "tree is in the middle of git am or rebase (finish it, then make export)"
		return 1
	fi
	ts_tmp=$(mktemp -d)
	"$TOP/scripts/export.sh" --allow-dirty "$ts_tmp/tree" >/dev/null 2>"$ts_tmp/err" || {
		echo "tree cannot be exported: $(sed -n 's/^export.sh: error: //p' "$ts_tmp/err" | head -n 1)"
		rm -rf "$ts_tmp"
		return 1
	}
	patch_keys "$SERIES" >"$ts_tmp/s"
	patch_keys "$ts_tmp/tree" >"$ts_tmp/t"
	new=$(comm -13 "$ts_tmp/s" "$ts_tmp/t" | wc -l)
	old=$(comm -23 "$ts_tmp/s" "$ts_tmp/t" | wc -l)
	rm -rf "$ts_tmp"
	dirty=
	[ -z "$(git -C "$TREE" status --porcelain --untracked-files=no)" ] ||
		dirty="uncommitted changes"
	if [ "$new" -eq 0 ] && [ "$old" -eq 0 ]; then
		[ -n "$dirty" ] || { echo "tree matches series/"; return 0; }
		echo "tree matches series/ but has $dirty (commit them, then make export)"
		return 1
	fi
	msg=
	[ "$new" -eq 0 ] || msg="tree has $new commit$([ "$new" -eq 1 ] || echo s) not in series/"
	[ "$old" -eq 0 ] || msg="${msg:+$msg, }series/ has $old patch$([ "$old" -eq 1 ] || echo es) not in the tree"
	[ -z "$dirty" ] || msg="$msg, and $dirty"
	echo "$msg (run make export; make tree KPU_FORCE=1 rebuilds the tree from series/)"
	return 1
}
