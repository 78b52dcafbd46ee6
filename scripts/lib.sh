# SPDX-License-Identifier: GPL-2.0
# Common definitions for the harness scripts.  Sourced, never run.
# shellcheck disable=SC2034 # its variables are for the scripts that source it

set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
BASE_CONF=${RFC_BASE_CONF:-$TOP/base.conf}
# shellcheck source=../base.conf
. "$BASE_CONF"

# The harness's knobs: environment variables, or make's command line
# ("make stress RFC_SEED=1").  All start with RFC_, so that nothing in a
# developer's shell is taken up by mistake; "make help" lists them from the
# "#:" lines here and in the scripts.
#: RFC_CACHE          cache directory (default ${XDG_CACHE_HOME:-~/.cache}/kvm-perm-upgrade)
#: RFC_TREE           the kernel tree (default build/linux)
#: RFC_BUILD          build outputs (default build/)
#: RFC_SERIES         the exported series: POSTINGS and a directory per posting (default series/)
#: RFC_BASE_CONF      the pinned base (default base.conf)
#: RFC_SHARED         where linux/linux_VERSION.orig.tar.xz may be (default ../shared)
#: RFC_LINUX_TARBALL  the base tarball to use (its sha256 is still checked)
#: RFC_DEBIAN_MIRROR  Debian mirror for source packages (default: from apt's sources)
#: RFC_APT_ETC        apt's configuration directory read for the mirror (default /etc/apt)
#: RFC_SUITE          set by check.sh: the name a suite reports its counts under
PROG=${0##*/}
CACHE=${RFC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvm-perm-upgrade}
SHARED_DIR=${RFC_SHARED:-$TOP/../shared}
TREE=${RFC_TREE:-$TOP/build/linux}
BUILD=${RFC_BUILD:-$TOP/build}
SERIES=${RFC_SERIES:-$TOP/series}
APT_ETC=${RFC_APT_ETC:-/etc/apt}
BASE_TAG=v$BASE_VERSION
BASE_GIT=$CACHE/linux-$BASE_VERSION.git
BRANCH=rfc-v2
RFCTOOL=$TOP/scripts/rfctool/rfctool.py

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
# are skipped; RFC_DEBIAN_MIRROR overrides.
debian_mirror() {
	if [ -n "${RFC_DEBIAN_MIRROR:-}" ]; then
		echo "$RFC_DEBIAN_MIRROR"
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
		die "no Debian archive found in the apt sources; set RFC_DEBIAN_MIRROR"
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

# A worktree of the tree at the base tag, for base-vs-patched comparisons
# (guest kernels, sparse).  Prints its path.
base_worktree() {
	bw=$BUILD/linux-base
	[ -e "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree'"
	[ -d "$bw" ] || git -C "$TREE" worktree add -q --detach "$bw" "$BASE_TAG" >&2
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

# guest_kernels [SUFFIX [KINDS]]: the patched and base guest kernels
# (SUFFIX -soak: the soak kernels; KINDS: the ones needed of "patched
# base", others in the list are ignored, default both), built (or brought
# up to date) by guest-kernel.sh, or with RFC_PREBUILT=1 the bzImages
# already in build/guest-{patched,base}SUFFIX.  Sets $patched and $base
# (empty for a kernel not needed).
# shellcheck disable=SC2120 # the arguments are optional
guest_kernels() {
	sfx=${1:-}
	patched='' base=''
	for kind in ${2:-patched base}; do
		case $kind in patched | base) ;; *) continue ;; esac
		if [ "${RFC_PREBUILT:-0}" = 1 ]; then
			img=$BUILD/guest-$kind$sfx/arch/x86/boot/bzImage
			[ -f "$img" ] ||
				die "prebuilt kernels asked for, but no $img"
		else
			img=$("$TOP/scripts/guest-kernel.sh" "$kind$sfx")
		fi
		eval "$kind=\$img"
	done
}

# prior_kernel: sets $prior to RFC_PRIOR_KERNEL as an absolute path, or to
# nothing when it is unset or empty; dies when it names no file.  bench and
# e2e boot it as a third kernel, labelled prior, between base and patched.
#: RFC_PRIOR_KERNEL   bench, e2e: a prebuilt guest bzImage of the series without
#:                    its newest patches, also booted, labelled prior, between
#:                    base and patched (default none; e2e-soak ignores it)
prior_kernel() {
	prior=${RFC_PRIOR_KERNEL:-}
	[ -n "$prior" ] || return 0
	[ -f "$prior" ] || die "RFC_PRIOR_KERNEL: no such file: $prior"
	prior=$(cd "$(dirname "$prior")" && pwd)/$(basename "$prior")
}

# report_header FILE [KEY=VALUE...]: the header of a guest suite's report
# (bench, e2e, regress): when, QEMU, host, tree, base, harness, kernels,
# then the suite's own KEY=VALUE lines.
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
		echo "kernels=$([ "${RFC_PREBUILT:-0}" = 1 ] && echo prebuilt || echo rebuilt)"
		for kv; do echo "$kv"; done
	} >"$f"
}

# plot_python: a python3 that has matplotlib (Debian: python3-matplotlib)
# for the reports' plots, which a python3 earlier in PATH (pyenv, venv)
# may lack; python3 when none has it (the report then has no plot).
plot_python() {
	if ! python3 -c 'import matplotlib' 2>/dev/null &&
		/usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
		echo /usr/bin/python3
	else
		echo python3
	fi
}

# Static KVM selftests built against the uapi headers of a guest kernel
# build: kvm_selftests GUEST_BUILD OUTDIR TEST... (TEST as in the selftests
# Makefile, e.g. x86/perm_upgrade_test; binaries land in OUTDIR/TEST).
kvm_selftests() {
	gb=$1 ko=$2
	shift 2
	use_ccache
	# For the guest kernel's arch: arm64 guests get arm64 binaries, cross
	# compiled, against that kernel's uapi.
	sarch=x86 scross=
	! grep -q '^CONFIG_ARM64=y' "$gb/.config" 2>/dev/null ||
		sarch=arm64 scross=aarch64-linux-gnu-
	make -s -C "$TREE" O="$gb" ARCH="$sarch" CROSS_COMPILE="$scross" headers >&2
	# shellcheck disable=SC2046
	make -s -C "$TREE/tools/testing/selftests/kvm" -j"$(nproc)" \
		ARCH="$sarch" CROSS_COMPILE="$scross" CC="ccache ${scross}gcc" \
		EXTRA_CFLAGS=-static KHDR_INCLUDES="-isystem $gb/usr/include" \
		OUTPUT="$ko" $(for t; do printf '%s/%s ' "$ko" "$t"; done) >&2
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
			die "no Debian archive found in the apt sources; set RFC_DEBIAN_MIRROR"
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

# rxe_odp_test BUILD_DIR OUT: the tree's tools/testing/selftests/rdma/
# rxe_odp_test.c, static against Debian's libibverbs-dev with its rxe
# provider linked in, and BUILD_DIR's uapi headers (rdma-odp, bisect-check).
rxe_odp_test() {
	[ -f "$1/usr/include/linux/kvm.h" ] || make -s -C "$TREE" O="$1" headers >&2
	gcc -O2 -Wall -static -I"$1/usr/include" -o "$2" \
		"$TREE/tools/testing/selftests/rdma/rxe_odp_test.c" \
		-Wl,--whole-archive -lrxe-rdmav34 -Wl,--no-whole-archive \
		-libverbs -lnl-route-3 -lnl-3 -lpthread
}

mm_selftests() {
	mb=$1 mo=$2
	shift 2
	use_ccache
	hdr=$mb/usr/include
	[ -f "$hdr/linux/kvm.h" ] || make -s -C "$TREE" O="$mb" headers >&2
	mm=$TREE/tools/testing/selftests/mm
	mkdir -p "$mo"
	(cd "$mo" && CC=gcc CFLAGS="-I$TREE/tools/testing/selftests" sh "$mm/check_config.sh")
	mmcflags="-Wall -O2 -I $TREE -static -isystem $hdr -isystem $TREE/tools/include/uapi
		-Wunreachable-code -U_FORTIFY_SOURCE -D_GNU_SOURCE= -I$TREE/tools/testing/selftests
		-I$mo -no-pie"
	for mt; do
		out=$mo/$mt extra='' cflags=''
		case $mt in uffd-*) extra=uffd-common.c ;; esac
		case $mt in cow) extra=$(sed -n 's/^IOURING_EXTRA_LIBS = *//p' "$mo/local_config.mk") ;; esac
		case $mt in protection_keys | pkey_sighandler_tests)
			out=${out}_64 extra=pkey_util.c cflags="-m64 -mxsave" ;;
		esac
		# shellcheck disable=SC2086 # flags are words
		(cd "$mm" && ccache gcc $mmcflags $cflags "$mt.c" vm_util.c hugepage_settings.c \
			$extra -lrt -lpthread -lm -o "$out") || die "building $out failed"
	done
}

# The suite protocol (scripts/suites, check.sh): a suite's output ends with
# "NAME: N passed, N failed[, N skipped]", NAME being the name it was run
# under (RFC_SUITE, set by check.sh) or its own.
report() { # DEFAULT_NAME PASSED FAILED [SKIPPED]
	line="${RFC_SUITE:-$1}: $2 passed, $3 failed"
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

# One check of a guest suite: the exit status of TEST that its run script
# printed ("GUEST-TEST: TEST exit N", the last one in LOG) is 0, or, on the
# base kernel, 1 for perm_upgrade_test, which fails there by design (the
# refaults), and non-zero for pfnmap_block_test, whose escape v7.2.8 has
# (a TEST_ASSERT, exit 254).
count_exit() { # KERNEL LABEL LOG TEST
	want=0
	case $1:$4 in
	base:perm_upgrade_test) want=1 ;;
	base:pfnmap_block_test) want=non-zero ;;
	esac
	got=$(sed -n "s/^GUEST-TEST: $4 exit \([0-9]*\).*/\1/p" "$3" | tail -n 1)
	r=no
	case $want in
	non-zero) case $got in [1-9]*) r=ok ;; esac ;;
	*) [ "$got" != "$want" ] || r=ok ;;
	esac
	count "$r" "$2: $4 exit ${got:-none} (expected $want)"
}

# rfctool.py (the Python half: parsing and reports) with the first python3.
rfctool() { python3 "$RFCTOOL" "$@"; }

# checkpatch.pl --strict on one patch file, run the same way by the
# checkpatch and bisect-check suites: the tree's checkpatch (TREE_DIR),
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") replaced by the
# question itself: get_maintainer.pl must name a maintainer for every file
# the patch creates.  UNKNOWN_COMMIT_ID is ignored: the tree comes from a
# release tarball without history, so the upstream commit that a Fixes: tag
# names cannot be looked up; the tag's format is still checked.
# checkpatch runs scripts/spdxcheck.py with the first python3 on PATH; it
# needs Debian's, which has python3-ply and python3-git.
# rfctool changelog then refuses what an editor or git left in the
# changelog (a rebase's comment block, a '#' line that git commit strips),
# which checkpatch does not look for.
checkpatch_patch() { # TREE_DIR PATCH
	(
	cd "$1" || exit 1
	rc=0
	env PATH="/usr/bin:$PATH" ./scripts/checkpatch.pl --strict --quiet --showfile \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID "$2" 2>&1 || rc=1
	rfctool changelog "$2" || rc=1
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

# How the tree stands against series/, in one line: "tree matches
# series/", or what differs and what to run.  Exit status 0 when it
# matches.  Compares the tree's export (HEAD) with series/ patch by patch.
tree_state() {
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
	echo "$msg (run make export; make tree RFC_FORCE=1 rebuilds the tree from series/)"
	return 1
}

# Boot a guest with run-guest.sh and print what matters of its log: the
# guest's and the test's own result lines, then the runner's verdict with
# any splat.  Sets guest_rc (run-guest.sh's exit status) and guest_result
# (PASS, FAIL, KERNEL SPLAT or NO RESULT).
guest_run() { # KERNEL INITRAMFS MODE LOG
	guest_rc=0
	"$TOP/scripts/run-guest.sh" "$@" 2>"$4.verdict" || guest_rc=$?
	grep -aE '^GUEST[:-]|^# |^ok |^not ok ' "$4" | grep -av '^GUEST-QEMU' |
		sed 's/^/    /'
	sed 's/^/    /' "$4.verdict"
	case $guest_rc in
	0) guest_result=PASS ;;
	1) guest_result=FAIL ;;
	3) guest_result="KERNEL SPLAT" ;;
	*) guest_result="NO RESULT" ;;
	esac
}
