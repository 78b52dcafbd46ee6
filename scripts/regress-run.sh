#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# regress-run.sh [GROUP...]
# The /suite/run of the regress initramfs (see regress.sh): runs under the
# guest's busybox sh, from /suite, with every test binary next to it.  Each
# test runs once under busybox timeout (SIGKILL at its limit, so a hung
# test does not block the rest) and is framed by
#   REGRESS-BEGIN NAME: COMMAND
#   REGRESS-END NAME rc=RC secs=SECONDS limit=LIMIT
# rc 4 is kselftest's skip, 137 a test killed at its limit.  GROUPs (mm,
# kvm, pkey; default all) come from the arguments or from "regress=A,B" on
# the kernel command line.  Sizes are small: everything runs under TCG and
# the KVM tests nested inside it.

groups=$*
for w in $(cat /proc/cmdline); do
	case $w in regress=*) groups=$(echo "${w#regress=}" | tr , ' ') ;; esac
done
[ -n "$groups" ] || groups="mm kvm pkey"

# uffd-unit-tests, uffd-stress and cow want more hugetlb pages than /init's.
echo 128 > /proc/sys/vm/nr_hugepages
# protection_keys opens /etc/passwd.
mkdir -p /etc
[ -e /etc/passwd ] || echo 'root:x:0:0:root:/:/bin/sh' > /etc/passwd
pku=no
grep -qw pku /proc/cpuinfo && pku=yes
echo "REGRESS-INFO kernel=$(uname -r) npt=$(cat /sys/module/kvm_amd/parameters/npt 2>/dev/null) pku=$pku hugepages=$(cat /proc/sys/vm/nr_hugepages) cpus=$(nproc) groups=$(echo "$groups" | tr ' ' ,)"

up() { cut -d' ' -f1 /proc/uptime; }

want() {
	for g in $groups; do [ "$g" = "$1" ] && return 0; done
	return 1
}

# t GROUP NAME LIMIT_SECONDS COMMAND...
t() {
	g=$1 name=$2 limit=$3
	shift 3
	want "$g" || return 0
	echo "REGRESS-BEGIN $name: $*"
	s=$(up)
	timeout -s KILL "$limit" "$@" </dev/null 2>&1
	rc=$?
	e=$(up)
	echo "REGRESS-END $name rc=$rc secs=$(awk "BEGIN { print $e - $s }") limit=$limit"
}

# skipped GROUP NAME REASON
skipped() {
	want "$1" || return 0
	echo "REGRESS-BEGIN $2: (not run: $3)"
	echo "REGRESS-END $2 rc=4 secs=0 limit=0 reason=$3"
}

# mm: change_protection() and userfaultfd write-protect users.
t mm uffd-unit-tests 900 ./uffd-unit-tests
t mm uffd-wp-mremap 300 ./uffd-wp-mremap
t mm uffd-stress-anon 300 ./uffd-stress anon 16 4
t mm uffd-stress-shmem 300 ./uffd-stress shmem 16 4
t mm mkdirty 300 ./mkdirty
t mm cow 1200 ./cow
t mm pagemap_ioctl 300 ./pagemap_ioctl
t mm soft-dirty 300 ./soft-dirty
t mm mdwe_test 300 ./mdwe_test
t mm mseal_test 300 ./mseal_test
t mm merge 300 ./merge
t mm guard-regions 600 ./guard-regions
# hmm-tests: lib/test_hmm.c (the dmirror device), which the series makes a
# second consumer of the range marks; the guest kernel has it built in.  Its
# upstream cases only: the series' own (prot_*) run in kvm-selftest, where
# they are expected to fail on the base kernel.
if want mm; then
	hmm_skip=$(./hmm-tests -l 2>&1 | awk '$NF ~ /^prot_/ { printf "-T %s ", $NF }')
	# shellcheck disable=SC2086 # one word per option
	t mm hmm-tests 900 ./hmm-tests $hmm_skip
fi

# pkey: pkey_mprotect() changes protections through change_protection().
if [ "$pku" = yes ]; then
	t pkey protection_keys_64 600 ./protection_keys_64
	t pkey pkey_sighandler_tests_64 300 ./pkey_sighandler_tests_64
else
	skipped pkey protection_keys_64 no-pku-in-cpuinfo
	skipped pkey pkey_sighandler_tests_64 no-pku-in-cpuinfo
fi

# kvm: the series' test, then upstream tests of KVM's MMU notifier users.
t kvm perm_upgrade_test 300 ./perm_upgrade_test
t kvm demand_paging_test 300 ./demand_paging_test -b 64M
t kvm demand_paging_test-uffd-missing 300 ./demand_paging_test -u MISSING -b 64M
t kvm demand_paging_test-uffd-minor 300 ./demand_paging_test -u MINOR -s shmem -b 64M
t kvm dirty_log_test 600 ./dirty_log_test -i 4
# Other invalidations that go through the changed range builders and dispatch
# in kvm_main.c: memslot changes and guest_memfd.
t kvm set_memory_region_test 300 ./set_memory_region_test
t kvm memslot_modification_stress_test 300 ./memslot_modification_stress_test -b 64M -i 100
t kvm guest_memfd_test 300 ./guest_memfd_test
# Its smallest guest is 1 GiB: with 4 KiB pages the nested vCPU had not
# written it once after 150 s under TCG (five passes are needed), so back it
# with 2 MiB hugetlb pages (-H); mprotect() RO/RW then goes through
# hugetlb's change_protection, which the series also changes.
if want kvm; then
	echo 640 > /proc/sys/vm/nr_hugepages
	t kvm mmu_stress_test-hugetlb 900 ./mmu_stress_test -c 1 -m 1 -s 1 -H
	echo 128 > /proc/sys/vm/nr_hugepages
fi

# Kernel splats are read from the console log on the host (regress.sh,
# rfc_regress: the "kernel-log" test of each boot).

echo "REGRESS-DONE"
