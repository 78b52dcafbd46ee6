#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkinitramfs.sh OUT.cpio.gz TEST_BINARY [ARGS...]
# Minimal initramfs: static busybox, the (static) test binary and an /init
# that prepares hugetlb/THP, runs the test once and powers off.
. "$(dirname "$0")/lib.sh"
out=$1 bin=$2
shift 2
[ -x "$bin" ] || { echo "usage: $0 OUT.cpio.gz TEST_BINARY [ARGS...]" >&2; exit 1; }
bb=$(command -v busybox)
file -L "$bb" | grep -q 'statically linked' || { echo "$bb is not static (apt-get install busybox-static)" >&2; exit 1; }
file -L "$bin" | grep -q 'statically linked' || { echo "$bin is not static" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp "$bb" "$root/bin/busybox"
cp "$bin" "$root/bin/test"
name=$(basename "$bin")
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
echo "GUEST: kernel \$(uname -r) kvm_amd.npt=\$(cat /sys/module/kvm_amd/parameters/npt) hugepages=\$(cat /proc/sys/vm/nr_hugepages)"
start=\$(cut -d' ' -f1 /proc/uptime)
/bin/test $*
rc=\$?
echo "GUEST: $name took \$start..\$(cut -d' ' -f1 /proc/uptime)s of uptime"
if [ \$rc = 0 ]; then echo "GUEST-RESULT: PASS"; else echo "GUEST-RESULT: FAIL (exit \$rc)"; fi
poweroff -f
EOI
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out"
ls -l "$out"
