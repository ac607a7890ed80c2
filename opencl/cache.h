/* Internal: the OpenCL runtime's disk cache of program binaries.
 *
 * A daemon runs what it loads from here on its devices for every user,
 * so nothing in the directory is trusted because of where it is:
 *
 * - The directory must belong to the daemon's effective user and be
 *   writable by no one else; directories it creates on the way get mode
 *   0700, and it walks the path one component at a time from directory
 *   descriptors (a symbolic link on the way is followed only when it is
 *   the daemon user's or root's own). Anything else: the directory is
 *   refused, and the daemon runs without a disk cache.
 * - Every entry is sealed with a keyed hash (two SipHash-2-4 values,
 *   core/siphash.h) under a 32-byte secret that the daemon draws from
 *   getrandom() once and keeps in the directory, readable by its user
 *   only. A file the daemon did not write itself fails the check, however
 *   well it imitates the format.
 * - Entries are opened without following links and must be regular files
 *   of the daemon's user that no one else may write; they are written to
 *   a temporary file with an unpredictable name, created exclusively with
 *   mode 0600, then renamed over the entry.
 *
 * A file that fails any check is "rejected": the caller builds the
 * program from source and stores it again. Not thread-safe: one thread
 * (the runtime's builder) uses a cache at a time. */
#ifndef TESSERA_OPENCL_CACHE_H
#define TESSERA_OPENCL_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/status.h"

typedef struct tsr__kcache tsr__kcache;

/* Opens the cache at `dir`, creating the directories and the secret that
 * are missing. Anything but TSR_OK: the directory is refused and the
 * thread's last error says why. */
tsr_status tsr__kcache_open(const char *dir, tsr__kcache **out);
void tsr__kcache_close(tsr__kcache *cache);

enum { TSR__KCACHE_MISSING, TSR__KCACHE_REJECTED, TSR__KCACHE_FOUND };

/* The entry `name` (a hash of what the program is made from): FOUND with
 * *binary (malloc'd, the caller's) and *length, or MISSING, or REJECTED. */
int tsr__kcache_load(tsr__kcache *cache, uint64_t name, unsigned char **binary, size_t *length);
/* Saves a binary as entry `name`; a failure only costs a later build. */
void tsr__kcache_store(tsr__kcache *cache, uint64_t name, const unsigned char *binary,
                       size_t length);

#endif /* TESSERA_OPENCL_CACHE_H */
