#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh [--busybox BUSYBOX] OUT.cpio.gz TEST_BINARY [ARGS...]
# mkinitramfs.sh [--busybox BUSYBOX] OUT.cpio.gz SUITE_DIR [ARGS...]
# Minimal initramfs: static busybox, the (static) test binary and an /init
# that prepares hugetlb/THP, runs the test once and powers off.  With a
# directory instead of a binary, the directory is copied to /suite (every
# ELF file in it must be static) and /init runs its executable "run" script
# (busybox sh) from /suite instead.  The busybox is the host's (x86_64
# guests), or BUSYBOX (arm64 guests: lib.sh's arm64_busybox).
. "$(dirname "$0")/lib.sh"
bb=
if [ "${1:-}" = --busybox ]; then
	bb=${2:?--busybox needs a path}
	shift 2
fi
[ $# -ge 2 ] || { echo "usage: $0 [--busybox BUSYBOX] OUT.cpio.gz TEST_BINARY|SUITE_DIR [ARGS...]" >&2; exit 1; }
out=$1 bin=$2
shift 2
[ -x "$bin" ] || { echo "usage: $0 [--busybox BUSYBOX] OUT.cpio.gz TEST_BINARY|SUITE_DIR [ARGS...]" >&2; exit 1; }
[ -n "$bb" ] || bb=$(command -v busybox)
file -L "$bb" | grep -q 'statically linked' || { echo "$bb is not static (apt-get install busybox-static)" >&2; exit 1; }
if [ -d "$bin" ]; then
	[ -x "$bin/run" ] || { echo "$bin/run is missing or not executable" >&2; exit 1; }
	for f in "$bin"/*; do
		! file -L "$f" | grep -q ' ELF ' ||
			file -L "$f" | grep -q 'statically linked' ||
			{ echo "$f is not static" >&2; exit 1; }
	done
else
	file -L "$bin" | grep -q 'statically linked' || { echo "$bin is not static" >&2; exit 1; }
fi

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$bb" "$root/bin/busybox"
name=$(basename "$bin")
if [ -d "$bin" ]; then
	cp -R "$bin" "$root/suite"
	cmd="cd /suite && ./run"
else
	cp "$bin" "$root/bin/test"
	cmd=/bin/test
fi
cat > "$root/init" <<EOI
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /dev/hugepages && mount -t hugetlbfs hugetlbfs /dev/hugepages
echo 64 > /proc/sys/vm/nr_hugepages
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
if [ -e /sys/module/kvm_amd/parameters/npt ]; then
	mode="kvm_amd.npt=\$(cat /sys/module/kvm_amd/parameters/npt)"
else
	mode="\$(dmesg | sed -n 's/.*kvm \\[[0-9]*\\]: \\(.*mode.*\\)/\\1/p' | tail -n 1)"
fi
echo "GUEST: kernel \$(uname -r) \$(uname -m) \$mode hugepages=\$(cat /proc/sys/vm/nr_hugepages)"
start=\$(cut -d' ' -f1 /proc/uptime)
$cmd $*
rc=\$?
echo "GUEST: $name took \$start..\$(cut -d' ' -f1 /proc/uptime)s of uptime"
if [ \$rc = 0 ]; then echo "GUEST-RESULT: PASS"; else echo "GUEST-RESULT: FAIL (exit \$rc)"; fi
poweroff -f
EOI
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
ls -l "$out"
