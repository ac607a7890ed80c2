/* What the kernel's control groups say about the CPUs a process may use:
 * parsers of /proc/self/cgroup and of the CPU bandwidth files, pure (the
 * caller reads the files). Both cgroup versions: v2's unified hierarchy
 * (the "0::" line, cpu.max) and v1's cpu controller (a line naming "cpu",
 * cpu.cfs_quota_us and cpu.cfs_period_us), which is what systemd's
 * CPUQuota=, a container's --cpus= and Kubernetes' CPU limits set.
 *
 * The files come from outside the program (a container may mount
 * anything there): every parser takes a length, stops at it, refuses
 * what is not exactly the kernel's format with TSR_ERR_INVALID_ARGUMENT,
 * and has a
 * fuzz target (tests/fuzz/fuzz_cgroup.c). */
#ifndef TESSERA_CORE_CGROUP_H
#define TESSERA_CORE_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/status.h"

typedef enum tsr__cgroup_version {
    TSR__CGROUP_V2, /* the unified hierarchy: the line "0::PATH" */
    TSR__CGROUP_V1, /* the v1 hierarchy whose controllers include "cpu" */
} tsr__cgroup_version;

/* The cgroup path of the process in `version` from the text of
 * /proc/self/cgroup (lines "ID:CONTROLLERS:PATH"), into buf (NUL
 * terminated). TSR_ERR_NOT_SUPPORTED when no line is that hierarchy's; the
 * path must be absolute, without "." or ".." components, and fit. */
tsr_status tsr__cgroup_path(const char *text, size_t len, tsr__cgroup_version version, char *buf,
                            size_t size);

/* The CPUs a bandwidth limit of `quota` per `period` (any unit, the same
 * for both) amounts to, rounded up: a pool of that many threads keeps the
 * quota busy. 0 for no limit. */
uint32_t tsr__cgroup_cpus(uint64_t quota, uint64_t period);

/* cgroup v2's cpu.max: "max PERIOD" or "QUOTA PERIOD" and a newline.
 * *cpus as tsr__cgroup_cpus (0: "max"). */
tsr_status tsr__cgroup_cpu_max(const char *text, size_t len, uint32_t *cpus);

/* cgroup v1's cpu.cfs_quota_us ("-1" for none, or microseconds) and
 * cpu.cfs_period_us, each a number and a newline. */
tsr_status tsr__cgroup_cfs(const char *quota, size_t quota_len, const char *period,
                           size_t period_len, uint32_t *cpus);

#endif /* TESSERA_CORE_CGROUP_H */
