#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Install what the harness needs from Debian packages (as root; otherwise
# print the command), then build sparse from Debian unstable's source
# package into $CACHE/tools: Debian 12's sparse 0.6.4 cannot parse the v7.2
# headers, and the kernel then silently skips checking.
#   deps.sh          install what is missing
#   deps.sh --check  exit 1 if anything is missing, install nothing

. "$(dirname "$0")/lib.sh"

PACKAGES="build-essential git make gcc flex bison bc libelf-dev libssl-dev
cpio xz-utils rsync kmod python3 python3-ply python3-git perl qemu-system-x86 qemu-system-arm qemu-system-data
coccinelle gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-s390x-linux-gnu ccache dpkg-dev
debian-archive-keyring util-linux busybox-static file
python3-matplotlib shellcheck mypy liburcu-dev
libibverbs-dev rdma-core python3-pyverbs libcap-dev libnuma-dev"

SPARSE=$CACHE/tools/bin/sparse

missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' ||
		missing="$missing $p"
done

# Built from the pinned Debian version, and able to parse what v7.2's
# scripts/checker-valid.sh feeds it (__typeof_unqual__).
sparse_ok() {
	[ -x "$SPARSE" ] &&
	[ "$(cat "$CACHE/tools/sparse.debversion" 2>/dev/null)" = "$SPARSE_DEBIAN_VERSION" ] &&
	printf 'static inline int u(const int *q)\n{\n\t__typeof_unqual__(*q) v = *q;\n\treturn v;\n}\n' |
		"$SPARSE" - 2>&1 | awk '/error/ { e = 1 } END { exit e }'
}

if [ "${1:-}" = --check ]; then
	[ -z "$missing" ] && sparse_ok && exit 0
	[ -z "$missing" ] || info "missing packages:$missing"
	sparse_ok || info "missing sparse $SPARSE_DEBIAN_VERSION in $CACHE/tools"
	exit 1
fi

if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages; run as root:
  apt-get update && apt-get install -y --no-install-recommends$missing"
	fi
	info "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q update >&2
	# shellcheck disable=SC2086 # package names are words
	apt-get -q install -y --no-install-recommends $missing >&2
fi

if ! sparse_ok; then
	papt_setup
	src=$CACHE/tmp.sparse.$$
	rm -rf "$src"
	mkdir -p "$src"
	trap 'rm -rf "$src"' EXIT INT TERM
	info "building sparse $SPARSE_DEBIAN_VERSION from Debian source"
	(cd "$src" && papt source --download-only "sparse=$SPARSE_DEBIAN_VERSION" >&2 &&
		dpkg-source -q -x ./*.dsc sparse >&2) ||
		die "could not fetch the sparse $SPARSE_DEBIAN_VERSION source package"
	make -C "$src/sparse" -s -j"$(nproc)" CC=gcc PREFIX="$CACHE/tools" \
		HAVE_LIBXML=no HAVE_GTK=no HAVE_LLVM=no install >&2 ||
		die "building sparse failed"
	echo "$SPARSE_DEBIAN_VERSION" >"$CACHE/tools/sparse.debversion"
	sparse_ok || die "$SPARSE does not report version $SPARSE_DEBIAN_VERSION"
fi
info "dependencies present (sparse $(cat "$CACHE/tools/sparse.debversion"))"
