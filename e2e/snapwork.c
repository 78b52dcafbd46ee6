// SPDX-License-Identifier: GPL-2.0
/*
 * snapwork: the nested guest of the end-to-end test (scripts/e2e.sh).  A
 * multiboot image that QEMU's -kernel loads and starts in 32-bit protected
 * mode with paging off, so that every access goes straight to guest
 * physical memory through KVM's SPTEs and nothing else.
 *
 * It writes one word in every 4 KiB page from 16 MiB to the top of memory
 * (pass 0), then reads that region in an endless loop, one word per page.
 * Each access is timed with rdtsc; after each pass it prints on COM1:
 *
 *   SNAPWORK pass=N tsc=T slow=S max=M hist=H0,H1,...,H22
 *
 * T: TSC cycles of the pass; S: accesses that took 2^14 cycles or more;
 * M: the slowest access in cycles; Hi: accesses of 2^(i+10) to
 * 2^(i+11)-1 cycles (H0 includes everything faster, H22 everything
 * slower).  All numbers are hexadecimal (no 64-bit division in 32-bit
 * freestanding code).  The first line is "SNAPWORK start lo=L hi=H pages=P".
 */
typedef unsigned int u32;
typedef unsigned long long u64;

#define MB_MAGIC	0x1badb002
#define MB_FLAGS	0x00000002	/* memory info */
#define COM1		0x3f8
#define REGION_START	(16u << 20)
#define PAGE		4096u
#define HIST_SHIFT	10
#define HIST_BUCKETS	23
#define SLOW_CYCLES	(1u << 14)

__attribute__((section(".multiboot"), used, aligned(4)))
static const u32 mb_header[3] = {
	MB_MAGIC, MB_FLAGS, -(MB_MAGIC + MB_FLAGS)
};

struct mb_info {
	u32 flags, mem_lower, mem_upper;
};

unsigned char snapwork_stack[16384] __attribute__((aligned(16)));

void snapwork_main(u32 magic, struct mb_info *mbi);

__asm__(".globl _start\n"
	"_start:\n"
	"	mov $snapwork_stack + 16384, %esp\n"
	"	push %ebx\n"
	"	push %eax\n"
	"	call snapwork_main\n"
	"1:	hlt\n"
	"	jmp 1b\n");

static inline void outb(unsigned short port, unsigned char v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

static void puts(const char *s)
{
	while (*s)
		outb(COM1, *s++);
}

static void puthex(u64 v)
{
	static const char digits[] = "0123456789abcdef";
	char buf[17];
	int i = 16;

	buf[i] = 0;
	do {
		buf[--i] = digits[v & 15];
		v >>= 4;
	} while (v);
	puts(&buf[i]);
}

static u32 hist[HIST_BUCKETS];

static unsigned int bucket(u64 d)
{
	unsigned int b;

	if (d >> 32)
		return HIST_BUCKETS - 1;
	if ((u32)d < (1u << HIST_SHIFT))
		return 0;
	b = 31 - __builtin_clz((u32)d) - HIST_SHIFT;
	return b < HIST_BUCKETS ? b : HIST_BUCKETS - 1;
}

void snapwork_main(u32 magic, struct mb_info *mbi)
{
	volatile u32 *p;
	u32 lo = REGION_START, hi, pass, slow, i;
	u64 t0, t1, start, max, sum = 0;

	if (magic != 0x2badb002 || !(mbi->flags & 1)) {
		puts("SNAPWORK error=no-multiboot-memory-info\n");
		return;
	}
	hi = (1u << 20) + mbi->mem_upper * 1024u;
	hi &= ~(PAGE - 1);
	puts("SNAPWORK start lo=");
	puthex(lo);
	puts(" hi=");
	puthex(hi);
	puts(" pages=");
	puthex((hi - lo) / PAGE);
	puts("\n");

	for (pass = 0; ; pass++) {
		slow = 0;
		max = 0;
		for (i = 0; i < HIST_BUCKETS; i++)
			hist[i] = 0;
		start = rdtsc();
		for (p = (u32 *)lo; (u32)p < hi; p += PAGE / sizeof(u32)) {
			t0 = rdtsc();
			if (!pass)
				*p = (u32)p;
			else
				sum += *p;
			t1 = rdtsc();
			t1 -= t0;
			hist[bucket(t1)]++;
			if (t1 >= SLOW_CYCLES)
				slow++;
			if (t1 > max)
				max = t1;
		}
		t1 = rdtsc();
		puts("SNAPWORK pass=");
		puthex(pass);
		puts(" tsc=");
		puthex(t1 - start);
		puts(" slow=");
		puthex(slow);
		puts(" max=");
		puthex(max);
		puts(" hist=");
		for (i = 0; i < HIST_BUCKETS; i++) {
			puthex(hist[i]);
			puts(i + 1 < HIST_BUCKETS ? "," : "\n");
		}
	}
	/* Not reached: keeps the sum alive. */
	puthex(sum);
}
