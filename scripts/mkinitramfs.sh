#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh [--busybox BUSYBOX] OUT.cpio.gz SUITE_DIR
# Minimal initramfs: static busybox, SUITE_DIR as /suite (every ELF file
# at its top must be static) and an /init that prepares hugetlb and THP,
# prints "GUEST: kernel ..." (the line that tells a boot that reached its
# tests), runs /suite/run once and powers off.  The busybox is the host's
# (x86_64 guests) or BUSYBOX (arm64 guests: lib.sh's arm64_busybox).
. "$(dirname "$0")/lib.sh"
bb=
if [ "${1:-}" = --busybox ]; then
	bb=${2:?--busybox needs a path}
	shift 2
fi
[ $# -eq 2 ] && [ -d "$2" ] || die "usage: mkinitramfs.sh [--busybox BUSYBOX] OUT.cpio.gz SUITE_DIR"
out=$1 dir=$2
[ -n "$bb" ] || bb=$(command -v busybox)
file -L "$bb" | grep -q 'statically linked' || die "$bb is not static (apt-get install busybox-static)"
[ -x "$dir/run" ] || die "$dir/run is missing or not executable"
for f in "$dir"/*; do
	! file -L "$f" | grep -q ' ELF ' || file -L "$f" | grep -q 'statically linked' ||
		die "$f is not static"
done

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$bb" "$root/bin/busybox"
cp -R "$dir" "$root/suite"
cat > "$root/init" <<EOI
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# What udev would add: kselftest's runner writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /dev/hugepages && mount -t hugetlbfs hugetlbfs /dev/hugepages
# 64 2M pages unless the command line reserved some (hugepages=N first).
[ "\$(cat /proc/sys/vm/nr_hugepages)" != 0 ] || echo 64 > /proc/sys/vm/nr_hugepages
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
if [ -e /sys/module/kvm_amd/parameters/npt ]; then
	mode="kvm_amd.npt=\$(cat /sys/module/kvm_amd/parameters/npt)"
else
	mode="\$(dmesg | sed -n 's/.*kvm \\[[0-9]*\\]: \\(.*mode.*\\)/\\1/p' | tail -n 1)"
fi
echo "GUEST: kernel \$(uname -r) \$(uname -m) \$mode hugepages=\$(cat /proc/sys/vm/nr_hugepages)"
start=\$(cut -d' ' -f1 /proc/uptime)
(cd /suite && ./run)
echo "GUEST: the tests took \$start..\$(cut -d' ' -f1 /proc/uptime)s of uptime"
poweroff -f
EOI
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
ls -l "$out"
