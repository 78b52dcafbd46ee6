// SPDX-License-Identifier: GPL-2.0-only
/*
 * perm_upgrade_bench: what a pure permission upgrade of guest memory costs
 * a KVM guest.  A harness program built against the KVM selftest library
 * of the kernel tree (see bench/kvm.mk), not part of the series: the same
 * static binary runs on the base and on the patched kernel.
 *
 * Backings: anonymous 4KiB (anon-4k), THP (thp), private hugetlb (hugetlb)
 * and shared hugetlb (hugetlb-shared: a MFD_HUGETLB memfd mapped
 * MAP_SHARED, as QEMU's hugetlbfs guest RAM).
 *
 * Parked mode (default): the vCPU is parked in userspace while the host
 * changes protections, so that every count is exact.  For each backing the
 * guest writes its region (writable SPTEs), the host narrows access, the
 * guest reads the region (read-only SPTEs), the host widens access again
 * and the guest re-reads the region (all but zap).  Scenarios:
 *
 *   mprotect  mprotect() RW -> R, guest read, R -> RW, guest re-read
 *   uffd-wp   UFFDIO_WRITEPROTECT of the region, guest read, one resolve
 *             (mode 0) of the whole region, guest re-read
 *   snapshot  like QEMU's background snapshot: write-protect the region,
 *             guest read, then resolve it one host page at a time (4KiB for
 *             anonymous and THP memory, as QEMU does, 2MiB for hugetlb); the
 *             guest reads the whole region after each batch of resolves
 *   zap       no protection change (parked mode only): plain
 *             invalidations, the baseline the series must not make dearer.
 *             -z rounds per repetition of:
 *             the host zaps the whole region (one call, timed), then the
 *             guest writes the whole region, faulting it back in with new
 *             pages.  The ops (each its own runs, a fresh VM each):
 *               madv_dontneed  madvise(MADV_DONTNEED), every backing: how
 *                              QEMU discards private RAM
 *                              (ram_block_discard_range(): balloon, free
 *                              page reporting, virtio-mem)
 *               punch_hole     fallocate(PUNCH_HOLE | KEEP_SIZE) of the
 *                              memfd, hugetlb-shared only: how QEMU
 *                              discards fd-backed RAM; MADV_DONTNEED of a
 *                              shared mapping only zaps this process's
 *                              PTEs and the pages stay in the file, the
 *                              punch unmaps the range from every mapping
 *                              of the file (hugetlb_vmdelete_list() ->
 *                              unmap_hugepage_range(), MMU_NOTIFY_CLEAR)
 *                              and frees the pages
 *               munmap         munmap() of the region, then mmap(MAP_FIXED)
 *                              of the same backing at the same address
 *                              (as vm_mem_add() maps it: the memslot keeps
 *                              its hva and gets new pages; shared hugetlb
 *                              maps the memfd again, whose pages stay)
 *             MADV_DONTNEED and the punch send MMU_NOTIFY_CLEAR, munmap
 *             MMU_NOTIFY_UNMAP (unmap_vmas()); KVM handles all three in
 *             kvm_mmu_notifier_invalidate_range_start() ->
 *             kvm_unmap_gfn_range(), as no permission upgrade.  The guest
 *             writes rather than reads: after a zap a read fault maps the
 *             shared zero page (anon-4k) or the huge zero page (thp), so
 *             later rounds would zap zero-page mappings and the thp row
 *             would hold no THP; a write allocates, as a guest reusing
 *             memory it gave back does.  The call's time includes freeing
 *             the pages (mm's work, the same on both kernels).
 *
 * Measured around the upgrade call(s) (mprotect / UFFDIO_WRITEPROTECT):
 * host time (CLOCK_MONOTONIC), leaf SPTEs dropped (pages_4k + pages_2m VM
 * stats), remote_tlb_flush and remote_tlb_flush_requests; around the guest
 * re-read pass(es): host time of KVM_RUN, pf_taken and pf_fixed.  Since no
 * vCPU runs during the upgrade, remote_tlb_flush (flushes that had to kick
 * a running vCPU) is 0 there by construction.
 *
 * Measured around the narrowing call (mprotect(R) / UFFDIO_WRITEPROTECT of
 * the whole region, one call) the same way: host time, leaf SPTEs dropped
 * and remote_tlb_flush_requests; then pf_taken of the guest's read pass
 * right after it.  Where KVM zaps on the narrowing, the region's leaf
 * SPTEs drop and the read faults them back in (read-only); where it
 * write-protects them in place, they stay and the read needs no fault for
 * them.  pages_4k and pages_2m do not change when an SPTE is
 * write-protected in place, so these counts tell a zap from an in-place
 * narrowing, not how many SPTEs an in-place narrowing changed.
 *
 * Live mode (-L): several vCPUs (-v, default 2) keep running while host
 * threads change protections.  Each vCPU sweeps the region page by page
 * from its own starting point, forever; in the snapshot scenario it writes
 * one page in -w (those whose index is a multiple of -w, the same pages in
 * every sweep: a write working set) and reads the others, in the mprotect
 * scenario it only reads.  Every -p accesses, each vCPU probes: it reads
 * one pseudo-random page of the region between two RDTSCs and adds the
 * difference to a log-linear histogram in guest memory (16 linear buckets
 * per power of two), which the host reads once the vCPUs have stopped and
 * converts with KVM_GET_TSC_KHZ of the vCPU.  A live run, in a fresh VM:
 *
 *   baseline  -T ms with the vCPUs running and the host quiet
 *   scenario  snapshot: QEMU's background snapshot.  UFFDIO_WRITEPROTECT
 *             of the whole region, then a save thread resolves it unit by
 *             unit (4KiB on anon-4k and THP, as QEMU does, 2MiB on
 *             hugetlb), each unit copied to a buffer ("saved") and then
 *             unprotected, paced to spread the units evenly over -T ms (a
 *             bandwidth-limited save; it runs longer when it can't keep
 *             up).  A handler thread reads the userfaultfd's write faults
 *             and saves and unprotects the faulting unit at once, as QEMU
 *             does; the guest's writes to protected pages wait in
 *             handle_userfault() until then.
 *             mprotect: mprotect(R), -m ms, mprotect(RW), -m ms, repeated
 *             until -T ms have passed (at least once).
 *             The guest only reads in this scenario (a guest write during
 *             R would make KVM_RUN fail with EFAULT), which also keeps the
 *             read-only SPTEs of the R phase in place on the patched
 *             kernel, as a guest that writes rarely would.
 *
 * A sampler thread reads, every -i ms of both phases, pf_taken and pf_fixed
 * summed over the vCPUs and the VM stats remote_tlb_flush,
 * remote_tlb_flush_requests, pages_4k and pages_2m; the samples are kept
 * in memory and printed after the run, so that console output does not
 * disturb it.  remote_tlb_flush now counts the flushes that kicked a vCPU.
 *
 * Per protection call (a resolve or an mprotect(RW), the "calls"; the
 * narrowing calls are counted apart): the stats are read right before and
 * right after the call (one pread() of the VM's stats, one of each vCPU's,
 * the vCPU reads around the VM read) and summed: the rise of the flush
 * counts, the faults the vCPUs fixed meanwhile (pf_fixed) and the drop of
 * pages_4k + pages_2m.  The calls are serialized (the save thread and the
 * handler take one lock), so no call's window overlaps another's, but the
 * vCPUs keep faulting pages in meanwhile, and each fault that adds an SPTE
 * inside a window hides one zap from the drop.  So the zapped SPTEs of the
 * calls are given as bounds: at least the drop (each stat's drop clamped at
 * 0), at most the drop + the faults fixed in the window (with the TDP MMU a
 * fixed fault adds at most one leaf SPTE; the shadow MMU may prefetch a few
 * more, so there the upper bound is approximate).  Both are exact when no
 * fault completes inside a window, as with parked vCPUs.  The flush counts
 * are exact as far as vCPU faults request no flush themselves (possible
 * with shadow paging).
 *
 * Memory: for every run, before the measurement (after the region was
 * populated) and after it, the process's AnonHugePages, Private_Hugetlb
 * and Shared_Hugetlb (/proc/self/smaps_rollup; a shared hugetlb page mapped
 * by one process only counts as private there), thp_split_pmd and
 * thp_collapse_alloc (/proc/vmstat), HugePages_Total and HugePages_Free
 * (/proc/meminfo) and the VM's pages_4k and pages_2m (they also count the
 * few SPTEs of the program's own memslot).  khugepaged can collapse split
 * THPs back while a slow run goes on; make bench makes it sleep an
 * hour between scans in the guest, and the INFO lines say how it was set.
 *
 * Output, parked mode, for each scenario but zap, backing and repetition (a
 * fresh VM each), two lines, phase=downgrade (the narrowing) and phase=upgrade
 * (the widening):
 *   BENCH scenario=S backing=B paging=tdp|shadow ... rep=N phase=P key=value ...
 *   phase=downgrade: down_ns (host time of the narrowing call), down_zapped
 *       (leaf SPTEs dropped across it), down_tlb_flush_req
 *       (remote_tlb_flush_requests across it), ro_pf (pf_taken of the read
 *       pass after it), warm_ns and warm_pf (KVM_RUN time and pf_taken of
 *       the read pass before it, over writable SPTEs)
 *   phase=upgrade: unit_kb, calls, passes, upgrade_ns, zapped, zapped_4k,
 *       zapped_2m, tlb_flush, tlb_flush_req (across the upgrade call(s)),
 *       pf_taken, pf_fixed, pass_ns (the re-read pass(es))
 * Zap scenario, per op, backing and repetition (a fresh VM each), one line:
 *   BENCH scenario=zap backing=B paging=P op=O size_mb=N pages=N rep=N
 *       rounds=R call_ns_p50=N call_ns_min=N call_ns_max=N remap_ns_p50=N
 *       zapped=N zapped_4k=N zapped_2m=N zapped_min=N zapped_max=N
 *       tlb_flush=N tlb_flush_req=N pf_taken=N pf_fixed=N pf_taken_min=N
 *       pf_taken_max=N pass_ns_p50=N
 *   call_ns_*: host time of the zap call (madvise, fallocate or munmap) of
 *   the R rounds, p50 the ceil(R / 2)-th smallest; remap_ns_p50: munmap
 *   only, the mmap (and madvise) that maps the backing back (0 otherwise);
 *   the counts are totals over the R rounds: zapped* (the drop of
 *   pages_4k + pages_2m) and tlb_flush* across the zap call, with the remap
 *   (which maps nothing), pf_* across the guest's write pass after it;
 *   zapped_min/max, pf_taken_min/max: the least and most of one round;
 *   pass_ns_p50: KVM_RUN time of that pass, median of the rounds.  On any
 *   kernel each round should zap every SPTE of the region (pages, or
 *   pages / 512 with 2MiB SPTEs) and fault each back once.
 * "BENCH-SKIP scenario=S backing=B paging=P [op=O] reason=R" for what can't
 * run (op: a zap op that does not apply to the backing),
 * "BENCH-INFO ..." first and "BENCH-DONE" last.  Live mode: "BENCH-LIVE-INFO
 * ..." first, then per run, each line with scenario=S backing=B paging=P:
 *   BENCH-LIVE-SAMPLE ... t_ms=T phase=baseline|scenario pf_taken=N pf_fixed=N
 *       tlb_flush=N tlb_flush_req=N pages_4k=N pages_2m=N calls=N
 *       (as read, cumulative; t_ms from the start of the baseline)
 *   BENCH-LIVE-HIST ... phase=P tsc_khz=K hist=LO-HI:COUNT,...
 *       (probe cycles in [LO, HI), the non-empty buckets, all vCPUs)
 *   BENCH-LIVE ... phase=P size_mb=N pages=N vcpus=N ms=M pf_taken=N pf_fixed=N
 *       tlb_flush=N tlb_flush_req=N probes=N mean_ns=N p50_ns=N p99_ns=N
 *       p999_ns=N p9999_ns=N [scenario: unit_kb=N calls=N call_ns=N
 *       call_cpu_ns=N call_zapped=N call_zapped_max=N call_fixed=N call_flush=N
 *       call_flush_req=N narrow_calls=N narrow_zapped=N narrow_flush_req=N
 *       by_fault=N uffd_faults=N]
 *       (deltas over the phase; a percentile is the upper bound of the
 *       bucket that holds the ceil(q * probes)-th probe, in ns; by_fault:
 *       units the handler resolved, uffd_faults: messages it read;
 *       call_ns: the calls' host time, call_cpu_ns: the calling thread's
 *       CPU time, read just outside each window, as the kernel that runs
 *       it counts it: without the time the thread waited in its run
 *       queue, with any time that a hypervisor ran something else on the
 *       CPU, e.g. TCG's one thread another vCPU)
 * and "BENCH-LIVE-DONE" last.  Both modes print, per run,
 *   BENCH-MEM mode=parked|live scenario=S backing=B paging=P [op=O] rep=N when=before|after KEY=VALUE...
 * (op=O: the zap scenario's).
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <linux/sizes.h>
#include <linux/userfaultfd.h>

#include "kvm_util.h"
#include "processor.h"
#include "test_util.h"
#include "ucall_common.h"

#define BENCH_SLOT	1
#define BENCH_GPA	((u64)SZ_1G)
#define BENCH_GVA	BENCH_GPA
#define MAX_VCPUS	4
#define KHUGEPAGED_SLEEP "/sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs"

/* Log-linear histogram: 16 linear buckets per power of two, 64-bit range. */
#define HIST_SUB_BITS	4
#define HIST_SUB	(1 << HIST_SUB_BITS)
#define NR_BUCKETS	((64 - HIST_SUB_BITS + 1) * HIST_SUB)

enum { OP_READ, OP_WRITE, OP_LIVE };
enum { LIVE_BASELINE, LIVE_SCENARIO, NR_LIVE_PHASES, LIVE_STOP = NR_LIVE_PHASES };

/* Written by the host before KVM_RUN; live_phase also while vCPUs run. */
static u64 guest_op;
static u64 guest_nr_pages;
static u64 guest_nr_vcpus;
static u64 guest_write_every;
static u64 guest_probe_every;
static u64 live_phase;
/* Written by the guest, read by the host once the vCPUs have stopped. */
static u64 live_hist[NR_LIVE_PHASES][MAX_VCPUS][NR_BUCKETS];
static u64 live_sum[NR_LIVE_PHASES][MAX_VCPUS];

static u64 hist_bucket(u64 v)
{
	int msb;

	if (v < HIST_SUB)
		return v;
	msb = 63 - __builtin_clzll(v);
	return (msb - HIST_SUB_BITS + 1) * HIST_SUB +
	       ((v >> (msb - HIST_SUB_BITS)) & (HIST_SUB - 1));
}

/* The live loop of vCPU @id, until the host sets LIVE_STOP. */
static void guest_live(u64 id)
{
	u64 nr = READ_ONCE(guest_nr_pages);
	u64 wr = READ_ONCE(guest_write_every);
	u64 every = READ_ONCE(guest_probe_every);
	u64 i = id * nr / READ_ONCE(guest_nr_vcpus), n = 0;
	u64 x = 0x9e3779b97f4a7c15ULL * (id + 1);
	u64 phase, t0, t1;
	u64 *p;

	while ((phase = READ_ONCE(live_phase)) != LIVE_STOP) {
		p = (u64 *)(BENCH_GVA + i * PAGE_SIZE);
		if (wr && !(i % wr))
			WRITE_ONCE(*p, n);
		else
			(void)READ_ONCE(*p);
		if (++i == nr)
			i = 0;
		if (++n % every)
			continue;
		/* xorshift64 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p = (u64 *)(BENCH_GVA + (x % nr) * PAGE_SIZE + sizeof(u64));
		t0 = rdtsc();
		(void)READ_ONCE(*p);
		t1 = rdtsc();
		live_hist[phase][id][hist_bucket(t1 - t0)]++;
		live_sum[phase][id] += t1 - t0;
	}
}

static void guest_code(u64 id)
{
	u64 i, op;

	for (;;) {
		op = READ_ONCE(guest_op);
		if (op == OP_LIVE)
			guest_live(id);
		else if (op == OP_READ)
			for (i = 0; i < guest_nr_pages; i++)
				(void)READ_ONCE(*(u64 *)(BENCH_GVA + i * PAGE_SIZE));
		else
			for (i = 0; i < guest_nr_pages; i++)
				WRITE_ONCE(*(u64 *)(BENCH_GVA + i * PAGE_SIZE), i);
		GUEST_SYNC(op);
	}
}

enum scenario { SC_MPROTECT, SC_UFFD_WP, SC_SNAPSHOT, SC_ZAP, NR_SCENARIOS };

static const char * const scenario_names[] = {
	[SC_MPROTECT] = "mprotect",
	[SC_UFFD_WP] = "uffd-wp",
	[SC_SNAPSHOT] = "snapshot",
	[SC_ZAP] = "zap",
};

/* The zap scenario's host calls; see the header. */
enum zap_op { ZAP_DONTNEED, ZAP_PUNCH_HOLE, ZAP_MUNMAP, NR_ZAP_OPS };

static const char * const zap_op_names[] = {
	[ZAP_DONTNEED] = "madv_dontneed",
	[ZAP_PUNCH_HOLE] = "punch_hole",
	[ZAP_MUNMAP] = "munmap",
};

static const struct {
	const char *name;
	enum vm_mem_backing_src_type src;
} backings[] = {
	{ "anon-4k", VM_MEM_SRC_ANONYMOUS },
	{ "thp", VM_MEM_SRC_ANONYMOUS_THP },
	{ "hugetlb", VM_MEM_SRC_ANONYMOUS_HUGETLB },
	{ "hugetlb-shared", VM_MEM_SRC_SHARED_HUGETLB },
};

/* The stats this program reads from a binary stats fd, with one pread(). */
#define MAX_MAPPED_STATS 4
struct stat_map {
	int fd;
	u64 start;	/* file offset of the first of them */
	size_t len;	/* bytes from there to the end of the last */
	int nr;
	u64 at[MAX_MAPPED_STATS];	/* u64 index of each, from start */
};

enum { VS_PAGES_4K, VS_PAGES_2M, VS_FLUSH, VS_FLUSH_REQ, NR_VM_STATS };
static const char * const vm_stat_names[NR_VM_STATS] = {
	"pages_4k", "pages_2m", "remote_tlb_flush", "remote_tlb_flush_requests",
};

enum { CS_PF_TAKEN, CS_PF_FIXED, NR_VCPU_STATS };
static const char * const vcpu_stat_names[NR_VCPU_STATS] = {
	"pf_taken", "pf_fixed",
};

struct bench {
	enum scenario sc;
	int op;		/* enum zap_op in the zap scenario, else -1 */
	bool live;
	const char *backing;
	enum vm_mem_backing_src_type src;
	bool huge;
	int nr_vcpus;

	struct kvm_vm *vm;
	struct kvm_vcpu *vcpus[MAX_VCPUS];
	struct kvm_vcpu *vcpu;	/* vcpus[0], the parked mode's only one */
	struct stat_map vm_stats, vcpu_stats[MAX_VCPUS];
	u8 *hva;
	int fd;		/* the region's memfd (shared backings), else -1 */
	u64 fd_offset;	/* of hva in it */
	u64 size;
	u64 nr_pages;	/* 4KiB guest pages */
	u64 unit;	/* bytes per resolve in the snapshot scenario */
	int uffd;
};

struct stats {
	u64 pf_taken, pf_fixed, p4k, p2m, flush, flush_req;
};

static const char *paging;
static int nr_batches = 8;
static int nr_rounds = 8;	/* zap scenario */
/* Live mode options. */
static int nr_vcpus = 2;
static u64 live_ms = 2000;
static u64 sample_ms = 250;
static u64 mprotect_ms = 1000;
static u64 probe_every = 64;
static u64 write_every = 16;

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until(u64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / 1000000000ULL,
		.tv_nsec = ns % 1000000000ULL,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void stat_map_init(struct stat_map *m, struct kvm_binary_stats *st,
			  const char * const *names, int nr)
{
	struct kvm_stats_desc *d = NULL;
	u64 off[MAX_MAPPED_STATS], lo = ~0ULL, hi = 0, dummy;
	int i, j;

	TEST_ASSERT(nr <= MAX_MAPPED_STATS, "Too many stats");
	/* Loads the fd's header and descriptors, once. */
	kvm_get_stat(st, names[0], &dummy, 1);
	for (j = 0; j < nr; j++) {
		for (i = 0; i < st->header.num_desc; i++) {
			d = get_stats_descriptor(st->desc, i, &st->header);
			if (!strcmp(d->name, names[j]))
				break;
		}
		TEST_ASSERT(i < st->header.num_desc, "No stat '%s'", names[j]);
		off[j] = d->offset;
		lo = min(lo, off[j]);
		hi = max(hi, off[j] + sizeof(u64));
	}
	m->fd = st->fd;
	m->start = st->header.data_offset + lo;
	m->len = hi - lo;
	m->nr = nr;
	for (j = 0; j < nr; j++)
		m->at[j] = (off[j] - lo) / sizeof(u64);
	TEST_ASSERT(m->len <= SZ_4K, "Stats %lu bytes apart", m->len);
}

/* Safe from any thread: the buffer is on the stack. */
static void stat_map_read(const struct stat_map *m, u64 *vals)
{
	u64 buf[SZ_4K / sizeof(u64)];
	ssize_t r;
	int j;

	r = pread(m->fd, buf, m->len, m->start);
	TEST_ASSERT(r == m->len, "pread(stats) = %ld, errno %d", r, errno);
	for (j = 0; j < m->nr; j++)
		vals[j] = buf[m->at[j]];
}

static void get_vm_stats(struct bench *b, struct stats *s)
{
	u64 v[NR_VM_STATS];

	stat_map_read(&b->vm_stats, v);
	s->p4k = v[VS_PAGES_4K];
	s->p2m = v[VS_PAGES_2M];
	s->flush = v[VS_FLUSH];
	s->flush_req = v[VS_FLUSH_REQ];
}

/* The vCPU stats, summed over the vCPUs. */
static void get_vcpu_stats(struct bench *b, struct stats *s)
{
	u64 v[NR_VCPU_STATS];
	int i;

	s->pf_taken = 0;
	s->pf_fixed = 0;
	for (i = 0; i < b->nr_vcpus; i++) {
		stat_map_read(&b->vcpu_stats[i], v);
		s->pf_taken += v[CS_PF_TAKEN];
		s->pf_fixed += v[CS_PF_FIXED];
	}
}

static void get_stats(struct bench *b, struct stats *s)
{
	get_vm_stats(b, s);
	get_vcpu_stats(b, s);
}

static u64 drop(u64 before, u64 after)
{
	return after < before ? before - after : 0;
}

/* Leaf SPTEs that went away between two snapshots of the stats. */
static u64 dropped(const struct stats *before, const struct stats *after)
{
	return drop(before->p4k, after->p4k) + drop(before->p2m, after->p2m);
}

/* Run one vCPU until the guest syncs @op; returns the host time of KVM_RUN. */
static u64 run_vcpu(struct kvm_vcpu *vcpu, u64 op)
{
	struct ucall uc;
	u64 t0, t1;

	t0 = now_ns();
	vcpu_run(vcpu);
	t1 = now_ns();

	switch (get_ucall(vcpu, &uc)) {
	case UCALL_SYNC:
		TEST_ASSERT(uc.args[1] == op, "Guest synced op %lu, expected %lu",
			    uc.args[1], op);
		break;
	case UCALL_ABORT:
		REPORT_GUEST_ASSERT(uc);
		break;
	default:
		TEST_FAIL("Unexpected exit: %s",
			  exit_reason_str(vcpu->run->exit_reason));
	}
	return t1 - t0;
}

/* One guest pass of vCPU 0 over the region; returns the host time of KVM_RUN. */
static u64 guest_pass(struct bench *b, u64 op)
{
	guest_op = op;
	sync_global_to_guest(b->vm, guest_op);
	return run_vcpu(b->vcpu, op);
}

static void uffd_wp(struct bench *b, u64 start, u64 len, u64 mode)
{
	struct uffdio_writeprotect wp = {
		.range.start = start,
		.range.len = len,
		.mode = mode,
	};

	TEST_ASSERT(!ioctl(b->uffd, UFFDIO_WRITEPROTECT, &wp),
		    "UFFDIO_WRITEPROTECT(0x%lx+0x%lx, mode 0x%lx) failed",
		    start, len, mode);
}

static const char *uffd_setup(struct bench *b)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range.start = (u64)b->hva,
		.range.len = b->size,
		.mode = UFFDIO_REGISTER_MODE_WP,
	};

	b->uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (b->uffd < 0)
		return "no-userfaultfd";
	TEST_ASSERT(!ioctl(b->uffd, UFFDIO_API, &api), "UFFDIO_API failed");
	if (ioctl(b->uffd, UFFDIO_REGISTER, &reg) ||
	    !(reg.ioctls & (1ULL << _UFFDIO_WRITEPROTECT)))
		return "no-uffd-wp";
	return NULL;
}

static void do_mprotect(struct bench *b, int prot)
{
	TEST_ASSERT(!mprotect(b->hva, b->size, prot),
		    "mprotect(0x%x) failed, errno %d", prot, errno);
}

static void narrow(struct bench *b)
{
	if (b->sc == SC_MPROTECT)
		do_mprotect(b, PROT_READ);
	else
		uffd_wp(b, (u64)b->hva, b->size, UFFDIO_WRITEPROTECT_MODE_WP);
}

static void widen(struct bench *b)
{
	if (b->sc == SC_MPROTECT)
		do_mprotect(b, PROT_READ | PROT_WRITE);
	else
		uffd_wp(b, (u64)b->hva, b->size, 0);
}

/* "TAG scenario=S backing=B paging=P [op=O] " */
static void print_head(const char *tag, struct bench *b)
{
	printf("%s scenario=%s backing=%s paging=%s ", tag,
	       scenario_names[b->sc], b->backing, paging);
	if (b->op >= 0)
		printf("op=%s ", zap_op_names[b->op]);
}

static void print_tail(const char *fmt, va_list ap)
{
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

static void print_result(struct bench *b, int rep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void print_result(struct bench *b, int rep, const char *fmt, ...)
{
	va_list ap;

	print_head("BENCH", b);
	printf("size_mb=%lu pages=%lu rep=%d ", b->size >> 20, b->nr_pages, rep);
	va_start(ap, fmt);
	print_tail(fmt, ap);
	va_end(ap);
}

static void print_live(struct bench *b, const char *tag, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void print_live(struct bench *b, const char *tag, const char *fmt, ...)
{
	va_list ap;

	print_head(tag, b);
	va_start(ap, fmt);
	print_tail(fmt, ap);
	va_end(ap);
}

static void skip(struct bench *b, const char *reason)
{
	print_head("BENCH-SKIP", b);
	printf("reason=%s\n", reason);
	fflush(stdout);
}

/* The number after "KEY:" or "KEY " at the start of a line of @path; 0 if none. */
static u64 proc_value(const char *path, const char *key)
{
	size_t n = strlen(key);
	char line[256];
	u64 v = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && (line[n] == ':' || line[n] == ' ')) {
			v = strtoull(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The number in a sysfs file, or -1 if there is none. */
static long sysfs_value(const char *path)
{
	long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void print_mem(struct bench *b, int rep, const char *when)
{
	const char *smaps = "/proc/self/smaps_rollup";
	struct stats s;

	get_vm_stats(b, &s);
	printf("BENCH-MEM mode=%s scenario=%s backing=%s paging=%s ",
	       b->live ? "live" : "parked", scenario_names[b->sc], b->backing,
	       paging);
	if (b->op >= 0)
		printf("op=%s ", zap_op_names[b->op]);
	printf("rep=%d when=%s anon_huge_kb=%lu private_hugetlb_kb=%lu shared_hugetlb_kb=%lu thp_split_pmd=%lu thp_collapse_alloc=%lu hugepages_total=%lu hugepages_free=%lu pages_4k=%lu pages_2m=%lu\n",
	       rep, when,
	       proc_value(smaps, "AnonHugePages"),
	       proc_value(smaps, "Private_Hugetlb"),
	       proc_value(smaps, "Shared_Hugetlb"),
	       proc_value("/proc/vmstat", "thp_split_pmd"),
	       proc_value("/proc/vmstat", "thp_collapse_alloc"),
	       proc_value("/proc/meminfo", "HugePages_Total"),
	       proc_value("/proc/meminfo", "HugePages_Free"),
	       s.p4k, s.p2m);
	fflush(stdout);
}

/* One measurement: the region starts mapped writable in KVM. */
static void run_rep(struct bench *b, int rep)
{
	struct stats s0, s1, s2, s3;
	u64 warm_ns, down_ns, ro_pf, t0, t1;
	u64 up_ns = 0, pass_ns = 0, zapped = 0, z4k = 0, z2m = 0;
	u64 flush = 0, flush_req = 0, calls = 0, passes = 0;
	u64 pf_taken = 0, pf_fixed = 0, warm_pf;
	u64 nr_units, per_batch, u, done;

	get_stats(b, &s0);
	warm_ns = guest_pass(b, OP_READ);
	get_stats(b, &s1);
	warm_pf = s1.pf_taken - s0.pf_taken;

	/*
	 * Downgrade: zaps the region's SPTEs, or write-protects them in place
	 * on a kernel that narrows in place.
	 */
	t0 = now_ns();
	narrow(b);
	down_ns = now_ns() - t0;
	get_stats(b, &s2);
	/* The guest keeps reading: read-only SPTEs, refaulted if zapped. */
	guest_pass(b, OP_READ);
	get_stats(b, &s3);
	ro_pf = s3.pf_taken - s2.pf_taken;
	print_result(b, rep, "phase=downgrade down_ns=%lu down_zapped=%lu down_tlb_flush_req=%lu ro_pf=%lu warm_ns=%lu warm_pf=%lu",
		     down_ns, dropped(&s1, &s2), s2.flush_req - s1.flush_req,
		     ro_pf, warm_ns, warm_pf);

	if (b->sc != SC_SNAPSHOT) {
		get_stats(b, &s0);
		t0 = now_ns();
		widen(b);
		t1 = now_ns();
		get_stats(b, &s1);
		pass_ns = guest_pass(b, OP_READ);
		get_stats(b, &s2);

		calls = 1;
		passes = 1;
		up_ns = t1 - t0;
		z4k = drop(s0.p4k, s1.p4k);
		z2m = drop(s0.p2m, s1.p2m);
		flush = s1.flush - s0.flush;
		flush_req = s1.flush_req - s0.flush_req;
		pf_taken = s2.pf_taken - s1.pf_taken;
		pf_fixed = s2.pf_fixed - s1.pf_fixed;
	} else {
		nr_units = b->size / b->unit;
		per_batch = (nr_units + nr_batches - 1) / nr_batches;
		for (done = 0; done < nr_units; done += per_batch) {
			get_stats(b, &s0);
			for (u = done; u < done + per_batch && u < nr_units; u++) {
				t0 = now_ns();
				uffd_wp(b, (u64)b->hva + u * b->unit, b->unit, 0);
				up_ns += now_ns() - t0;
				calls++;
			}
			get_stats(b, &s1);
			pass_ns += guest_pass(b, OP_READ);
			get_stats(b, &s2);
			passes++;

			z4k += drop(s0.p4k, s1.p4k);
			z2m += drop(s0.p2m, s1.p2m);
			flush += s1.flush - s0.flush;
			flush_req += s1.flush_req - s0.flush_req;
			pf_taken += s2.pf_taken - s1.pf_taken;
			pf_fixed += s2.pf_fixed - s1.pf_fixed;
		}
	}
	zapped = z4k + z2m;

	print_result(b, rep, "phase=upgrade unit_kb=%lu calls=%lu passes=%lu upgrade_ns=%lu zapped=%lu zapped_4k=%lu zapped_2m=%lu tlb_flush=%lu tlb_flush_req=%lu pf_taken=%lu pf_fixed=%lu pass_ns=%lu",
		     b->sc == SC_SNAPSHOT ? b->unit >> 10 : b->size >> 10,
		     calls, passes, up_ns, zapped, z4k, z2m, flush, flush_req,
		     pf_taken, pf_fixed, pass_ns);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The ceil(@n / 2)-th smallest of @v[0..@n), which it sorts. */
static u64 median(u64 *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n - 1) / 2];
}

/* The zap scenario's host call: invalidates the whole region. */
static void zap(struct bench *b)
{
	switch (b->op) {
	case ZAP_DONTNEED:
		TEST_ASSERT(!madvise(b->hva, b->size, MADV_DONTNEED),
			    "madvise(MADV_DONTNEED) failed, errno %d", errno);
		break;
	case ZAP_PUNCH_HOLE:
		TEST_ASSERT(!fallocate(b->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				       b->fd_offset, b->size),
			    "fallocate(PUNCH_HOLE) failed, errno %d", errno);
		break;
	case ZAP_MUNMAP:
		TEST_ASSERT(!munmap(b->hva, b->size), "munmap failed, errno %d",
			    errno);
		break;
	}
}

/*
 * After the munmap: the backing mapped again at the same address, as
 * vm_mem_add() maps it (flags, memfd and offset, THP advice), so that the
 * memslot's hva is valid again.
 */
static void remap(struct bench *b)
{
	void *p;

	p = mmap(b->hva, b->size, PROT_READ | PROT_WRITE,
		 vm_mem_backing_src_alias(b->src)->flag | MAP_FIXED, b->fd,
		 b->fd < 0 ? 0 : b->fd_offset);
	TEST_ASSERT(p == b->hva, "mmap(MAP_FIXED) = %p, not %p, errno %d",
		    p, b->hva, errno);
	if ((b->src == VM_MEM_SRC_ANONYMOUS ||
	     b->src == VM_MEM_SRC_ANONYMOUS_THP) && thp_configured())
		TEST_ASSERT(!madvise(b->hva, b->size,
				     b->src == VM_MEM_SRC_ANONYMOUS ?
				     MADV_NOHUGEPAGE : MADV_HUGEPAGE),
			    "madvise(THP) failed, errno %d", errno);
}

/*
 * The zap scenario's measurement: the region starts mapped writable in
 * KVM; each round zaps it and the guest writes it back in.
 */
static void run_zap(struct bench *b, int rep)
{
	u64 z4k = 0, z2m = 0, z_min = ~0ULL, z_max = 0, flush = 0, flush_req = 0;
	u64 pf_taken = 0, pf_fixed = 0, pf_min = ~0ULL, pf_max = 0, z, pf, t0;
	u64 *call_ns, *remap_ns, *pass_ns, call_p50;
	struct stats s0, s1, s2;
	int r;

	call_ns = calloc(3 * nr_rounds, sizeof(u64));
	TEST_ASSERT(call_ns, "Out of memory");
	remap_ns = call_ns + nr_rounds;
	pass_ns = remap_ns + nr_rounds;

	for (r = 0; r < nr_rounds; r++) {
		get_stats(b, &s0);
		t0 = now_ns();
		zap(b);
		call_ns[r] = now_ns() - t0;
		if (b->op == ZAP_MUNMAP) {
			t0 = now_ns();
			remap(b);
			remap_ns[r] = now_ns() - t0;
		}
		get_stats(b, &s1);
		/* Writes: new pages, not the zero page (see the header). */
		pass_ns[r] = guest_pass(b, OP_WRITE);
		get_stats(b, &s2);

		z = dropped(&s0, &s1);
		z4k += drop(s0.p4k, s1.p4k);
		z2m += drop(s0.p2m, s1.p2m);
		z_min = min(z_min, z);
		z_max = max(z_max, z);
		flush += s1.flush - s0.flush;
		flush_req += s1.flush_req - s0.flush_req;
		pf = s2.pf_taken - s1.pf_taken;
		pf_taken += pf;
		pf_fixed += s2.pf_fixed - s1.pf_fixed;
		pf_min = min(pf_min, pf);
		pf_max = max(pf_max, pf);
	}

	/* Sorts call_ns[], before its ends are read. */
	call_p50 = median(call_ns, nr_rounds);
	print_result(b, rep, "rounds=%d call_ns_p50=%lu call_ns_min=%lu call_ns_max=%lu remap_ns_p50=%lu zapped=%lu zapped_4k=%lu zapped_2m=%lu zapped_min=%lu zapped_max=%lu tlb_flush=%lu tlb_flush_req=%lu pf_taken=%lu pf_fixed=%lu pf_taken_min=%lu pf_taken_max=%lu pass_ns_p50=%lu",
		     nr_rounds, call_p50, call_ns[0],
		     call_ns[nr_rounds - 1], median(remap_ns, nr_rounds),
		     z4k + z2m, z4k, z2m, z_min, z_max, flush, flush_req,
		     pf_taken, pf_fixed, pf_min, pf_max,
		     median(pass_ns, nr_rounds));
	free(call_ns);
}

/*
 * A fresh VM with @b->nr_vcpus vCPUs and the region, its uffd registered
 * where the scenario needs one, faulted in writable by vCPU 0.  Returns
 * why the measurement can't run, or NULL.
 */
static const char *setup_vm(struct bench *b, u64 size)
{
	struct userspace_mem_region *region;
	struct stats s0, s1;
	const char *why;
	u64 nr_sptes;
	int i;

	b->size = size;
	b->nr_pages = size / PAGE_SIZE;
	b->uffd = -1;
	/* QEMU resolves host pages: 4KiB even on THP, 2MiB on hugetlb. */
	b->unit = b->src == VM_MEM_SRC_ANONYMOUS_HUGETLB ||
		  b->src == VM_MEM_SRC_SHARED_HUGETLB ? PG_SIZE_2M : PAGE_SIZE;
	nr_sptes = b->huge ? size / PG_SIZE_2M : b->nr_pages;

	b->vm = __vm_create_with_vcpus(VM_SHAPE_DEFAULT, b->nr_vcpus,
				       b->nr_pages / 512 + 16, guest_code,
				       b->vcpus);
	b->vcpu = b->vcpus[0];
	stat_map_init(&b->vm_stats, &b->vm->stats, vm_stat_names, NR_VM_STATS);
	for (i = 0; i < b->nr_vcpus; i++) {
		vcpu_args_set(b->vcpus[i], 1, i);
		stat_map_init(&b->vcpu_stats[i], &b->vcpus[i]->stats,
			      vcpu_stat_names, NR_VCPU_STATS);
	}
	vm_userspace_mem_region_add(b->vm, b->src, BENCH_GPA, BENCH_SLOT,
				    b->nr_pages, 0);
	if (b->huge)
		virt_map_level(b->vm, BENCH_GVA, BENCH_GPA, size, PG_LEVEL_2M);
	else
		virt_map(b->vm, BENCH_GVA, BENCH_GPA, b->nr_pages);
	b->hva = addr_gpa2hva(b->vm, BENCH_GPA);
	region = memslot2region(b->vm, BENCH_SLOT);
	b->fd = region->fd;
	b->fd_offset = b->hva - (u8 *)region->mmap_start;

	if (b->sc == SC_UFFD_WP || b->sc == SC_SNAPSHOT) {
		why = uffd_setup(b);
		if (why)
			return why;
	}

	/* Fault in code, stack and data first, then the region, writable. */
	guest_nr_pages = 0;
	sync_global_to_guest(b->vm, guest_nr_pages);
	guest_op = OP_READ;
	sync_global_to_guest(b->vm, guest_op);
	for (i = 0; i < b->nr_vcpus; i++)
		run_vcpu(b->vcpus[i], OP_READ);
	guest_op = OP_WRITE;
	sync_global_to_guest(b->vm, guest_op);
	for (i = 0; i < b->nr_vcpus; i++)
		run_vcpu(b->vcpus[i], OP_WRITE);
	guest_nr_pages = b->nr_pages;
	sync_global_to_guest(b->vm, guest_nr_pages);

	get_stats(b, &s0);
	guest_pass(b, OP_WRITE);
	get_stats(b, &s1);
	if (b->huge && s1.p2m - s0.p2m != nr_sptes)
		return "no-2M-sptes";
	return NULL;
}

static void free_vm(struct bench *b)
{
	if (b->uffd >= 0)
		close(b->uffd);
	kvm_vm_free(b->vm);
}

/*
 * A fresh VM for each repetition: resolving 4KiB of a THP splits it, so a
 * second round in the same VM would no longer measure THP.
 */
static void run_bench(struct bench *b, u64 size, int rep)
{
	const char *why;

	why = setup_vm(b, size);
	if (why) {
		skip(b, why);
	} else {
		print_mem(b, rep, "before");
		if (b->sc == SC_ZAP)
			run_zap(b, rep);
		else
			run_rep(b, rep);
		print_mem(b, rep, "after");
	}
	free_vm(b);
}

/* The zap scenario of a backing: each op that applies, @reps VMs each. */
static void run_zap_ops(struct bench *b, u64 size, int reps)
{
	int rep;

	for (b->op = 0; b->op < NR_ZAP_OPS; b->op++) {
		if (b->op == ZAP_PUNCH_HOLE && b->src != VM_MEM_SRC_SHARED_HUGETLB) {
			skip(b, "no-memfd");
			continue;
		}
		for (rep = 0; rep < reps; rep++)
			run_bench(b, size, rep);
	}
	b->op = -1;
}

/*
 * Host calls that change protections, with the stats right around each:
 * the vCPU stats around the VM stats, so that a fault that adds an SPTE
 * between the two VM reads has (all but always) counted in pf_fixed.
 */
struct acct {
	u64 calls, ns, cpu_ns, zapped, zapped_max, fixed, flush, flush_req;
};

static u64 thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The calling thread's CPU time when its call started (acct_begin()). */
static __thread u64 acct_cpu0;

static void acct_begin(struct bench *b, struct stats *s0, u64 *t0)
{
	get_vcpu_stats(b, s0);
	get_vm_stats(b, s0);
	acct_cpu0 = thread_cpu_ns();
	*t0 = now_ns();
}

static void acct_end(struct bench *b, struct acct *a, const struct stats *s0,
		     u64 t0)
{
	struct stats s1;
	s64 net;
	u64 lo;

	a->ns += now_ns() - t0;
	a->cpu_ns += thread_cpu_ns() - acct_cpu0;
	get_vm_stats(b, &s1);
	get_vcpu_stats(b, &s1);
	a->calls++;
	/*
	 * Zapped = drop of the leaf SPTEs + those the vCPUs added meanwhile:
	 * at least the drop, at most the drop + the faults fixed in the
	 * window (with the TDP MMU a fixed fault adds at most one leaf; the
	 * shadow MMU may prefetch more).
	 */
	lo = dropped(s0, &s1);
	net = (s64)(s0->p4k + s0->p2m) - (s64)(s1.p4k + s1.p2m) +
	      (s64)(s1.pf_fixed - s0->pf_fixed);
	a->zapped += lo;
	a->zapped_max += max_t(s64, lo, net);
	a->fixed += s1.pf_fixed - s0->pf_fixed;
	a->flush += s1.flush - s0->flush;
	a->flush_req += s1.flush_req - s0->flush_req;
}

struct sample {
	u64 ns;
	int phase;
	u64 calls;
	struct stats s;
};

struct live {
	struct bench *b;
	u64 *phase_hva;		/* the guest's live_phase */
	u64 start_ns;		/* start of the baseline */
	int phase;
	bool stop_sampler, stop_handler;

	struct sample *samples;
	int nr_samples, max_samples;

	/* Serializes resolves; protects saved[] and the accounts. */
	pthread_mutex_t lock;
	u8 *saved;		/* snapshot: units saved and unprotected */
	u8 *save_buf;		/* where a unit is "saved" */
	u64 by_fault, uffd_faults;
	struct acct up, down;	/* widening calls (resolves), narrowing calls */
};

static void *sampler_thread(void *arg)
{
	struct live *l = arg;
	u64 next = l->start_ns;
	struct sample *s;

	while (!READ_ONCE(l->stop_sampler)) {
		next += sample_ms * 1000000ULL;
		sleep_until(next);
		if (l->nr_samples == l->max_samples) {
			l->max_samples = l->max_samples * 2 + 64;
			l->samples = realloc(l->samples,
					     l->max_samples * sizeof(*s));
			TEST_ASSERT(l->samples, "Out of memory");
		}
		s = &l->samples[l->nr_samples++];
		s->ns = now_ns() - l->start_ns;
		s->phase = READ_ONCE(l->phase);
		s->calls = READ_ONCE(l->up.calls);
		get_stats(l->b, &s->s);
	}
	return NULL;
}

static void *live_vcpu_thread(void *arg)
{
	run_vcpu(arg, OP_LIVE);
	return NULL;
}

/* Save unit @u and unprotect it, unless that was done already. */
static void snap_resolve(struct live *l, u64 u, bool by_fault)
{
	struct bench *b = l->b;
	u64 start = (u64)b->hva + u * b->unit, t0;
	struct uffdio_range range = { .start = start, .len = b->unit };
	struct stats s0;

	pthread_mutex_lock(&l->lock);
	if (l->saved[u]) {
		/* The resolve woke it up; a wake more costs nothing. */
		if (by_fault)
			TEST_ASSERT(!ioctl(b->uffd, UFFDIO_WAKE, &range),
				    "UFFDIO_WAKE failed, errno %d", errno);
	} else {
		memcpy(l->save_buf, b->hva + u * b->unit, b->unit);
		acct_begin(b, &s0, &t0);
		uffd_wp(b, start, b->unit, 0);
		acct_end(b, &l->up, &s0, t0);
		l->saved[u] = 1;
		l->by_fault += by_fault;
	}
	pthread_mutex_unlock(&l->lock);
}

/* QEMU's uffd fault handling: save and unprotect the faulting unit first. */
static void *snap_handler_thread(void *arg)
{
	struct live *l = arg;
	struct bench *b = l->b;
	struct pollfd pfd = { .fd = b->uffd, .events = POLLIN };
	struct uffd_msg msg;
	u64 addr;
	int r;

	while (!READ_ONCE(l->stop_handler)) {
		r = poll(&pfd, 1, 10);
		TEST_ASSERT(r >= 0 || errno == EINTR, "poll(uffd) failed, errno %d",
			    errno);
		while (read(b->uffd, &msg, sizeof(msg)) == sizeof(msg)) {
			addr = msg.arg.pagefault.address;
			TEST_ASSERT(msg.event == UFFD_EVENT_PAGEFAULT &&
				    (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP) &&
				    addr >= (u64)b->hva && addr < (u64)b->hva + b->size,
				    "Unexpected uffd event 0x%x flags 0x%llx address 0x%lx",
				    msg.event, msg.arg.pagefault.flags, addr);
			l->uffd_faults++;
			snap_resolve(l, (addr - (u64)b->hva) / b->unit, true);
		}
		TEST_ASSERT(errno == EAGAIN, "read(uffd) failed, errno %d", errno);
	}
	return NULL;
}

static void live_snapshot(struct live *l)
{
	struct bench *b = l->b;
	u64 nr_units = b->size / b->unit, u, start, t0;
	pthread_t handler;
	struct stats s0;

	l->saved = calloc(nr_units, 1);
	l->save_buf = malloc(b->unit);
	TEST_ASSERT(l->saved && l->save_buf, "Out of memory");

	acct_begin(b, &s0, &t0);
	narrow(b);
	acct_end(b, &l->down, &s0, t0);

	pthread_create(&handler, NULL, snap_handler_thread, l);
	start = now_ns();
	for (u = 0; u < nr_units; u++) {
		/* Paced: unit u is due at start + (u + 1) * live_ms / nr_units. */
		sleep_until(start + (u + 1) * live_ms * 1000000ULL / nr_units);
		snap_resolve(l, u, false);
	}
	WRITE_ONCE(l->stop_handler, true);
	pthread_join(handler, NULL);
	free(l->saved);
	free(l->save_buf);
}

static void live_mprotect(struct live *l)
{
	struct bench *b = l->b;
	u64 end = now_ns() + live_ms * 1000000ULL, t0;
	struct stats s0;

	while (now_ns() < end) {
		acct_begin(b, &s0, &t0);
		do_mprotect(b, PROT_READ);
		acct_end(b, &l->down, &s0, t0);
		sleep_until(now_ns() + mprotect_ms * 1000000ULL);

		acct_begin(b, &s0, &t0);
		do_mprotect(b, PROT_READ | PROT_WRITE);
		acct_end(b, &l->up, &s0, t0);
		sleep_until(now_ns() + mprotect_ms * 1000000ULL);
	}
}

static u64 hist_lo(int i)
{
	if (i < HIST_SUB)
		return i;
	return (u64)(HIST_SUB + i % HIST_SUB) << (i / HIST_SUB - 1);
}

static u64 hist_hi(int i)
{
	if (i < HIST_SUB)
		return i + 1;
	return hist_lo(i) + (1ULL << (i / HIST_SUB - 1));
}

/* Upper bound (cycles) of the bucket holding the ceil(q / 10000 * n)-th probe. */
static u64 hist_quantile(const u64 *h, u64 n, u64 q)
{
	u64 rank = (q * n + 9999) / 10000, sum = 0;
	int i;

	if (!n)
		return 0;
	for (i = 0; i < NR_BUCKETS; i++) {
		sum += h[i];
		if (sum >= rank)
			return hist_hi(i);
	}
	return hist_hi(NR_BUCKETS - 1);
}

static void print_samples(struct live *l)
{
	static const char * const phase_names[] = { "baseline", "scenario" };
	struct sample *s;
	int i;

	for (i = 0; i < l->nr_samples; i++) {
		s = &l->samples[i];
		print_live(l->b, "BENCH-LIVE-SAMPLE", "t_ms=%.1f phase=%s pf_taken=%lu pf_fixed=%lu tlb_flush=%lu tlb_flush_req=%lu pages_4k=%lu pages_2m=%lu calls=%lu",
			   s->ns / 1e6, phase_names[s->phase], s->s.pf_taken,
			   s->s.pf_fixed, s->s.flush, s->s.flush_req, s->s.p4k,
			   s->s.p2m, s->calls);
	}
}

/*
 * One phase's result line and histogram: @s0 and @s1 are the stats at its
 * start and end; @extra the scenario's own keys.
 */
static void print_phase(struct live *l, int phase, u64 ns, const struct stats *s0,
			const struct stats *s1, u64 tsc_khz, const char *extra)
{
	static const char * const phase_names[] = { "baseline", "scenario" };
	static u64 h[NR_BUCKETS];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	u64 n = 0, sum = 0;
	int i, v;

	memset(h, 0, sizeof(h));
	for (v = 0; v < l->b->nr_vcpus; v++) {
		for (i = 0; i < NR_BUCKETS; i++)
			h[i] += live_hist[phase][v][i];
		sum += live_sum[phase][v];
	}
	f = open_memstream(&buf, &len);
	TEST_ASSERT(f, "open_memstream failed");
	for (i = 0; i < NR_BUCKETS; i++) {
		if (!h[i])
			continue;
		fprintf(f, "%s%lu-%lu:%lu", n ? "," : "", hist_lo(i), hist_hi(i), h[i]);
		n += h[i];
	}
	fclose(f);
	print_live(l->b, "BENCH-LIVE-HIST", "phase=%s tsc_khz=%lu hist=%s",
		   phase_names[phase], tsc_khz, buf);
	free(buf);

	print_live(l->b, "BENCH-LIVE", "phase=%s size_mb=%lu pages=%lu vcpus=%d ms=%.1f pf_taken=%lu pf_fixed=%lu tlb_flush=%lu tlb_flush_req=%lu probes=%lu mean_ns=%lu p50_ns=%lu p99_ns=%lu p999_ns=%lu p9999_ns=%lu%s",
		   phase_names[phase], l->b->size >> 20, l->b->nr_pages,
		   l->b->nr_vcpus, ns / 1e6, s1->pf_taken - s0->pf_taken,
		   s1->pf_fixed - s0->pf_fixed, s1->flush - s0->flush,
		   s1->flush_req - s0->flush_req, n,
		   n ? sum * 1000000 / tsc_khz / n : 0,
		   hist_quantile(h, n, 5000) * 1000000 / tsc_khz,
		   hist_quantile(h, n, 9900) * 1000000 / tsc_khz,
		   hist_quantile(h, n, 9990) * 1000000 / tsc_khz,
		   hist_quantile(h, n, 9999) * 1000000 / tsc_khz, extra);
}

static void run_live(struct bench *b, u64 size)
{
	struct live l = { .b = b, .lock = PTHREAD_MUTEX_INITIALIZER };
	pthread_t vcpu_threads[MAX_VCPUS], sampler;
	struct stats s[3];
	u64 t[3], tsc_khz;
	const char *why;
	char extra[512];
	int i;

	why = setup_vm(b, size);
	if (why) {
		skip(b, why);
		goto out;
	}
	print_mem(b, 0, "before");

	tsc_khz = __vcpu_ioctl(b->vcpu, KVM_GET_TSC_KHZ, NULL);
	TEST_ASSERT((long)tsc_khz > 0, "KVM_GET_TSC_KHZ failed, errno %d", errno);
	guest_nr_vcpus = b->nr_vcpus;
	guest_write_every = b->sc == SC_SNAPSHOT ? write_every : 0;
	guest_probe_every = probe_every;
	live_phase = LIVE_BASELINE;
	guest_op = OP_LIVE;
	sync_global_to_guest(b->vm, guest_nr_vcpus);
	sync_global_to_guest(b->vm, guest_write_every);
	sync_global_to_guest(b->vm, guest_probe_every);
	sync_global_to_guest(b->vm, live_phase);
	sync_global_to_guest(b->vm, guest_op);
	l.phase_hva = addr_gva2hva(b->vm, (gva_t)&live_phase);

	/* Baseline: the vCPUs run, the host does nothing. */
	get_stats(b, &s[0]);
	l.start_ns = now_ns();
	t[0] = l.start_ns;
	for (i = 0; i < b->nr_vcpus; i++)
		pthread_create(&vcpu_threads[i], NULL, live_vcpu_thread, b->vcpus[i]);
	pthread_create(&sampler, NULL, sampler_thread, &l);
	sleep_until(t[0] + live_ms * 1000000ULL);

	WRITE_ONCE(*l.phase_hva, LIVE_SCENARIO);
	WRITE_ONCE(l.phase, LIVE_SCENARIO);
	t[1] = now_ns();
	get_stats(b, &s[1]);
	if (b->sc == SC_SNAPSHOT)
		live_snapshot(&l);
	else
		live_mprotect(&l);
	t[2] = now_ns();
	get_stats(b, &s[2]);

	WRITE_ONCE(*l.phase_hva, LIVE_STOP);
	for (i = 0; i < b->nr_vcpus; i++)
		pthread_join(vcpu_threads[i], NULL);
	WRITE_ONCE(l.stop_sampler, true);
	pthread_join(sampler, NULL);
	sync_global_from_guest(b->vm, live_hist);
	sync_global_from_guest(b->vm, live_sum);

	print_samples(&l);
	print_phase(&l, LIVE_BASELINE, t[1] - t[0], &s[0], &s[1], tsc_khz, "");
	snprintf(extra, sizeof(extra),
		 " unit_kb=%lu calls=%lu call_ns=%lu call_cpu_ns=%lu call_zapped=%lu call_zapped_max=%lu call_fixed=%lu call_flush=%lu call_flush_req=%lu narrow_calls=%lu narrow_zapped=%lu narrow_flush_req=%lu by_fault=%lu uffd_faults=%lu",
		 (b->sc == SC_SNAPSHOT ? b->unit : b->size) >> 10, l.up.calls,
		 l.up.ns, l.up.cpu_ns, l.up.zapped, l.up.zapped_max, l.up.fixed, l.up.flush,
		 l.up.flush_req, l.down.calls, l.down.zapped,
		 l.down.flush_req, l.by_fault, l.uffd_faults);
	print_phase(&l, LIVE_SCENARIO, t[2] - t[1], &s[1], &s[2], tsc_khz, extra);
	print_mem(b, 0, "after");
	free(l.samples);
out:
	free_vm(b);
}

static bool hugetlb_available(u64 size, int flags)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       flags | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	if (p == MAP_FAILED)
		return false;
	munmap(p, size);
	return get_def_hugetlb_pagesz() == PG_SIZE_2M;
}

static void help(const char *name)
{
	printf("usage: %s [-L] [-s size_mb] [-S scenario] [-B backing]\n"
	       "       [-r reps] [-b batches] [-z rounds]          (parked mode)\n"
	       "       [-v vcpus] [-T ms] [-i ms] [-m ms] [-p n] [-w n]  (live mode)\n", name);
	printf(" -L: live mode: vCPUs run while the host changes protections\n");
	printf(" -s: guest region in MiB, a multiple of 2 (default 32)\n");
	printf(" -S: run only this scenario (mprotect, uffd-wp, snapshot, zap;\n"
	       "     live: mprotect, snapshot)\n");
	printf(" -B: run only this backing (anon-4k, thp, hugetlb, hugetlb-shared)\n");
	printf(" -r: repetitions of each measurement (default 3)\n");
	printf(" -b: snapshot scenario: guest passes over the resolves (default 8)\n");
	printf(" -z: zap scenario: zap and refault rounds per repetition (default 8)\n");
	printf(" -v: live: vCPUs (default 2, at most %d)\n", MAX_VCPUS);
	printf(" -T: live: ms of the baseline, of the mprotect scenario, and over which\n"
	       "     the snapshot's resolves are paced (default 2000)\n");
	printf(" -i: live: sampling interval in ms (default 250)\n");
	printf(" -m: live: ms of each R and RW phase of the mprotect scenario, cycles\n"
	       "     until -T ms have passed, at least one (default 1000)\n");
	printf(" -p: live: each vCPU probes one read every n accesses (default 64)\n");
	printf(" -w: live: snapshot: the guest writes one page in n (default 16, 0: none)\n");
	exit(KSFT_SKIP);
}

int main(int argc, char *argv[])
{
	const char *only = NULL, *only_backing = NULL;
	u64 size = 32ULL << 20;
	struct utsname un;
	int reps = 3, i, sc, rep, opt;
	bool live = false;
	long khugepaged_ms;

	while ((opt = getopt(argc, argv, "hLs:r:b:z:S:B:v:T:i:m:p:w:")) != -1) {
		switch (opt) {
		case 'L':
			live = true;
			break;
		case 's':
			size = (u64)atoi_positive("Region size", optarg) << 20;
			break;
		case 'r':
			reps = atoi_positive("Repetitions", optarg);
			break;
		case 'b':
			nr_batches = atoi_positive("Batches", optarg);
			break;
		case 'z':
			nr_rounds = atoi_positive("Zap rounds", optarg);
			break;
		case 'S':
			only = optarg;
			break;
		case 'B':
			only_backing = optarg;
			break;
		case 'v':
			nr_vcpus = atoi_positive("vCPUs", optarg);
			break;
		case 'T':
			live_ms = atoi_positive("Phase length", optarg);
			break;
		case 'i':
			sample_ms = atoi_positive("Sampling interval", optarg);
			break;
		case 'm':
			mprotect_ms = atoi_positive("mprotect phase", optarg);
			break;
		case 'p':
			probe_every = atoi_positive("Probe period", optarg);
			break;
		case 'w':
			write_every = atoi_non_negative("Write period", optarg);
			break;
		default:
			help(argv[0]);
		}
	}
	TEST_ASSERT(!(size % PG_SIZE_2M), "Size must be a multiple of 2MiB");
	TEST_ASSERT(nr_vcpus <= MAX_VCPUS, "At most %d vCPUs", MAX_VCPUS);

	uname(&un);
	paging = kvm_is_tdp_enabled() ? "tdp" : "shadow";
	khugepaged_ms = sysfs_value(KHUGEPAGED_SLEEP);
	if (live)
		printf("BENCH-LIVE-INFO kernel=%s paging=%s size_mb=%lu vcpus=%d ms=%lu interval_ms=%lu mprotect_ms=%lu probe_every=%lu write_every=%lu online_cpus=%ld khugepaged_sleep_ms=%ld\n",
		       un.release, paging, size >> 20, nr_vcpus, live_ms,
		       sample_ms, mprotect_ms, probe_every, write_every,
		       sysconf(_SC_NPROCESSORS_ONLN), khugepaged_ms);
	else
		printf("BENCH-INFO kernel=%s paging=%s size_mb=%lu reps=%d batches=%d zap_rounds=%d khugepaged_sleep_ms=%ld\n",
		       un.release, paging, size >> 20, reps, nr_batches,
		       nr_rounds, khugepaged_ms);

	for (sc = 0; sc < NR_SCENARIOS; sc++) {
		if (only && strcmp(only, scenario_names[sc]))
			continue;
		/* Live: a snapshot-like resolve and an mprotect cycle. */
		if (live && (sc == SC_UFFD_WP || sc == SC_ZAP))
			continue;
		for (i = 0; i < ARRAY_SIZE(backings); i++) {
			struct bench b = {
				.sc = sc,
				.op = -1,
				.live = live,
				.backing = backings[i].name,
				.src = backings[i].src,
				.huge = backings[i].src != VM_MEM_SRC_ANONYMOUS,
				.nr_vcpus = live ? nr_vcpus : 1,
			};

			if (only_backing && strcmp(only_backing, b.backing))
				continue;
			if (b.src == VM_MEM_SRC_ANONYMOUS_THP &&
			    !(thp_configured() && get_trans_hugepagesz() == PG_SIZE_2M))
				skip(&b, "no-thp");
			else if (b.src == VM_MEM_SRC_ANONYMOUS_HUGETLB &&
				 !hugetlb_available(size, MAP_PRIVATE))
				skip(&b, "no-hugetlb");
			else if (b.src == VM_MEM_SRC_SHARED_HUGETLB &&
				 !hugetlb_available(size, MAP_SHARED))
				skip(&b, "no-hugetlb");
			else if (live)
				run_live(&b, size);
			else if (sc == SC_ZAP)
				run_zap_ops(&b, size, reps);
			else
				for (rep = 0; rep < reps; rep++)
					run_bench(&b, size, rep);
		}
	}
	printf(live ? "BENCH-LIVE-DONE\n" : "BENCH-DONE\n");
	return 0;
}
