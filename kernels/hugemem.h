/* Shared memory in huge pages.
 *
 * Tensor memory on a device that computes in the host's memory is a
 * memfd segment, and a memfd gets huge pages only where the machine's
 * administrator allows them for shared memory
 * (/sys/kernel/mm/transparent_hugepage/shmem_enabled, "never" on a stock
 * Debian 12). Streaming through 4 KiB pages costs a page walk every few
 * dozen cache lines, and on a virtual machine each walk is two: on a
 * 2-vCPU AMD EPYC VM, c = a + b over 256 MiB arrays ran 30-65% faster
 * (stores around the caches) or twice as fast (plain stores) in huge
 * pages. Linux's MADV_COLLAPSE (6.1 onwards) moves a range of a memfd
 * into huge pages whatever that setting says (only "deny" refuses it), so
 * the daemon asks for it where it pays: once per segment, in the queue of
 * the device that computes there (opencl/runtime.c).
 *
 * Both processes map a segment at an address that lines up with the huge
 * pages of the file, or they could not use them whole. */
#ifndef TESSERA_KERNELS_HUGEMEM_H
#define TESSERA_KERNELS_HUGEMEM_H

#include <stdint.h>

/* The size of a huge page the kernel maps whole (2 MiB on x86-64 and on
 * arm64 with 4 KiB pages; read once from sysfs, 2 MiB if it is not there). */
uint64_t tsr__huge_page_bytes(void);

/* mmap(NULL, bytes, prot, MAP_SHARED | extra_flags, fd, offset), except
 * that a mapping of at least one huge page is placed at an address that
 * is congruent to `offset` modulo the huge page size. MAP_FAILED (errno
 * set) on failure, as mmap. */
void *tsr__mmap_shared(int fd, uint64_t offset, uint64_t bytes, int prot, int extra_flags);

/* Moves the whole huge pages of [base, base + bytes) of a shared mapping
 * into huge pages (MADV_COLLAPSE), having the kernel read in the first
 * page of each (it collapses only ranges that hold a page; a read changes
 * nothing and allocates a zeroed page where there was none). The
 * contents are never changed; other mappings of the same file keep
 * working throughout; a range no longer mapped is an error, not a fault.
 * Returns how many bytes were collapsed: 0 where the range holds no whole
 * huge page, or where the kernel cannot (older than 6.1, transparent huge
 * pages compiled out, shmem_enabled = deny, no huge page free). */
uint64_t tsr__huge_collapse(void *base, uint64_t bytes);

#endif /* TESSERA_KERNELS_HUGEMEM_H */
