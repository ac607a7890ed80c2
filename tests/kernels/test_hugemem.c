/* kernels/hugemem.c: shared mappings placed where a file's huge pages fit
 * whole, and a memfd moved into huge pages with its contents unchanged.
 * The kernel's own account (/proc/self/smaps: ShmemPmdMapped) says
 * whether the pages were mapped whole; a kernel that cannot collapse
 * shared memory (older than 6.1, or shmem_enabled = deny) must get 0
 * from tsr__huge_collapse and nothing else. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernels/hugemem.h"
#include "test.h"

/* kB of ShmemPmdMapped in the mapping that starts at `at`, or -1. */
static long long pmd_mapped_kb(const void *at)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return -1;
    char line[512];
    bool in = false;
    long long kb = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = lo == (unsigned long)(uintptr_t)at;
            continue;
        }
        long long v;
        if (in && sscanf(line, "ShmemPmdMapped: %lld kB", &v) == 1)
            kb = v;
    }
    fclose(f);
    return kb;
}

/* Lines of /proc/self/maps: the process's mappings. */
static int mapping_count(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static uint32_t pattern(uint64_t i)
{
    return (uint32_t)(i * 2654435761u) ^ 0x5bd1e995u;
}

int main(void)
{
    uint64_t huge = tsr__huge_page_bytes();
    ASSERT_TRUE(huge >= (1u << 16) && (huge & (huge - 1)) == 0);
    uint64_t bytes = 3 * huge + 12288; /* three whole huge pages and a tail */
    int fd = memfd_create("hugemem-test", MFD_CLOEXEC);
    ASSERT_TRUE(fd >= 0);
    ASSERT_EQ(ftruncate(fd, (off_t)(bytes + huge)), 0);

    /* Mappings of at least a huge page line up with their file offset;
     * smaller ones are plain mmaps. */
    const uint64_t offsets[] = {0, 4096, huge};
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        void *p = tsr__mmap_shared(fd, offsets[k], bytes, PROT_READ | PROT_WRITE, 0);
        ASSERT_TRUE(p != MAP_FAILED);
        ASSERT_UEQ((uintptr_t)p % huge, offsets[k] % huge);
        munmap(p, bytes);
    }
    /* A length that ends inside a page (a shared tensor's bytes) leaves
     * nothing of the reservation behind once unmapped as mapped. */
    int before = mapping_count();
    for (int k = 0; k < 4; k++) {
        void *q = tsr__mmap_shared(fd, 4096, huge + 1000 + (uint64_t)k * 4096, PROT_READ, 0);
        ASSERT_TRUE(q != MAP_FAILED);
        munmap(q, huge + 1000 + (uint64_t)k * 4096);
    }
    ASSERT_EQ(mapping_count(), before);
    void *small = tsr__mmap_shared(fd, 0, 8192, PROT_READ, 0);
    ASSERT_TRUE(small != MAP_FAILED);
    munmap(small, 8192);
    /* A bad descriptor fails as mmap does. */
    errno = 0;
    ASSERT_TRUE(tsr__mmap_shared(-1, 0, bytes, PROT_READ, 0) == MAP_FAILED);
    ASSERT_EQ(errno, EBADF);

    /* Contents written through 4 KiB pages, the first huge page left
     * unwritten (a hole the collapse fills with zeros). */
    uint32_t *p = tsr__mmap_shared(fd, 0, bytes, PROT_READ | PROT_WRITE, 0);
    ASSERT_TRUE(p != MAP_FAILED);
    uint64_t n = bytes / sizeof *p, first = huge / sizeof *p;
    for (uint64_t i = first; i < n; i++)
        p[i] = pattern(i);
    /* Nothing whole inside a range shorter than a huge page. */
    ASSERT_UEQ(tsr__huge_collapse((unsigned char *)p + 4096, huge), 0);
    uint64_t done = tsr__huge_collapse(p, bytes);
    /* All three, or fewer where the machine has no free huge page left
     * (the kernel compacts memory for each, and may fail). */
    ASSERT_TRUE(done % huge == 0 && done <= 3 * huge);
    bool intact = true;
    for (uint64_t i = 0; i < n && intact; i++)
        intact = p[i] == (i < first ? 0 : pattern(i));
    ASSERT_TRUE(intact);
    long long kb = pmd_mapped_kb(p);
    printf("collapsed %llu bytes; ShmemPmdMapped %lld kB\n", (unsigned long long)done, kb);
    /* What the kernel says it did, it did: those pages mapped whole. */
    ASSERT_EQ(kb, (long long)(done / 1024));
    /* Twice is harmless: what is whole stays whole. */
    if (done == 3 * huge)
        ASSERT_UEQ(tsr__huge_collapse(p, bytes), 3 * huge);
    munmap(p, bytes);
    /* A range unmapped before the move (a segment released while its
     * move waited in a queue) is refused, never touched. */
    ASSERT_UEQ(tsr__huge_collapse(p, bytes), 0);
    close(fd);
    if (!done)
        TEST_SKIP("this kernel does not move shared memory into huge pages (MADV_COLLAPSE)");
    TEST_DONE();
}
