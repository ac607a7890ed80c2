/* See hugemem.h. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernels/hugemem.h"

/* Linux's values; glibc's headers name them from 2.35 and 2.37 on. */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HUGE_FALLBACK (UINT64_C(2) << 20)

uint64_t tsr__huge_page_bytes(void)
{
    static _Atomic uint64_t known;
    uint64_t v = atomic_load_explicit(&known, memory_order_relaxed);
    if (v)
        return v;
    v = HUGE_FALLBACK;
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "re");
    if (f) {
        unsigned long long n = 0;
        /* A power of two from 64 KiB to 1 GiB, or the fallback. */
        if (fscanf(f, "%llu", &n) == 1 && n >= (1u << 16) && n <= (1u << 30) && !(n & (n - 1)))
            v = n;
        fclose(f);
    }
    atomic_store_explicit(&known, v, memory_order_relaxed);
    return v;
}

void *tsr__mmap_shared(int fd, uint64_t offset, uint64_t bytes, int prot, int extra_flags)
{
    uint64_t huge = tsr__huge_page_bytes();
    if (bytes < huge || bytes > SIZE_MAX - huge)
        return mmap(NULL, (size_t)bytes, prot, MAP_SHARED | extra_flags, fd, (off_t)offset);
    /* Reserve a huge page more than needed, put the mapping where its
     * file offset lines up, and give back the ends. */
    size_t span = (size_t)(bytes + huge);
    unsigned char *r =
        mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return mmap(NULL, (size_t)bytes, prot, MAP_SHARED | extra_flags, fd, (off_t)offset);
    uintptr_t want = (uintptr_t)(offset % huge);
    uintptr_t at = ((uintptr_t)r + huge - 1 - want) / huge * huge + want;
    unsigned char *p = (unsigned char *)at;
    void *m = mmap(p, (size_t)bytes, prot, MAP_SHARED | MAP_FIXED | extra_flags, fd, (off_t)offset);
    if (m == MAP_FAILED) {
        int e = errno;
        munmap(r, span);
        errno = e;
        return MAP_FAILED;
    }
    /* The mapping ends at a page boundary, whatever `bytes`: the tail
     * given back starts there (a munmap from inside a page fails, and
     * would leave the rest of the reservation behind). */
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    unsigned char *end = p + (bytes + page - 1) / page * page;
    if (p > r)
        munmap(r, (size_t)(p - r));
    if (end < r + span)
        munmap(end, (size_t)(r + span - end));
    return m;
}

uint64_t tsr__huge_collapse(void *base, uint64_t bytes)
{
    uint64_t huge = tsr__huge_page_bytes();
    uintptr_t lo = ((uintptr_t)base + huge - 1) / huge * huge;
    uintptr_t end = (uintptr_t)base + bytes;
    if (end < (uintptr_t)base || end < lo + huge)
        return 0;
    uintptr_t hi = end / huge * huge;
    uint64_t done = 0;
    /* A huge page at a time: a failure then costs only its own, and the
     * count is exact. EAGAIN (a page busy for a moment) skips one; any
     * other error (EINVAL: not possible here; ENOMEM: no huge page free,
     * or the range is no longer mapped) would meet the rest as well.
     * The first page of each is read in by the kernel, not by a load: a
     * range its owner unmapped meanwhile is then an error, not a fault. */
    for (uintptr_t p = lo; p < hi; p += huge) {
        if (madvise((void *)p, 4096, MADV_POPULATE_READ) == 0 &&
            madvise((void *)p, huge, MADV_COLLAPSE) == 0)
            done += huge;
        else if (errno != EAGAIN)
            break;
    }
    return done;
}
