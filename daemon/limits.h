/* Memory limits: how much each uid, each primary group, each session and
 * each systemd unit, slice and cgroup (where the client runs) may hold on
 * each OpenCL device, from the configuration's memory_limit.* keys
 * (config.h).
 *
 * The allocator path charges every reservation of device memory before it
 * makes it and uncharges it when it gives it back; the daemon's loop
 * thread is the only caller, so a charge is one check-then-add with
 * nothing in between (no locks). A charge either fits every limit that
 * applies, and is added to the uid's, the group's and the session's use,
 * or changes nothing and fails with a message that names the limit.
 *
 * Percentages resolve against the device's total memory as discovered
 * (before memory_limit.daemon caps what the daemon lends). A new rule set
 * (SIGHUP) keeps every use: a limit lowered below what is held refuses new
 * charges and takes nothing back.
 *
 * Devices are OpenCL ordinals as the registry numbers them (opencl:N). */
#ifndef TESSERA_DAEMON_LIMITS_H
#define TESSERA_DAEMON_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/config.h"
#include "tessera/status.h"

typedef struct tsr__limits tsr__limits;

/* Whose memory a charge is. */
typedef struct tsr__limits_who {
    uint32_t uid, gid; /* the session's SO_PEERCRED ids */
    uint32_t session;  /* its session id */
    /* Where its client ran at HELLO (the strings are the session's and
     * outlive every charge of it): a charge counts against the unit's, the
     * slice's and the cgroup's use too, whatever rules there are, so that
     * rules that come with a reload find every use. */
    tsr__place place;
} tsr__limits_who;

/* The things a charge counts against. The use of a unit or a slice is
 * that of every session whose client ran in it; a memory_limit.cgroup line
 * bounds the sum of the uses of the cgroups below its path. Several
 * lines of one kind may match a session: the one tsr__config_match_find
 * picks is its rule; the kinds all apply, as the uid's and the group's
 * limits both do. */
typedef enum tsr__limit_scope {
    TSR__SCOPE_UID,
    TSR__SCOPE_GROUP,
    TSR__SCOPE_SESSION,
    TSR__SCOPE_UNIT,
    TSR__SCOPE_SLICE,
    TSR__SCOPE_CGROUP,
} tsr__limit_scope;

/* The scope whose limit the last refused charge met. */
tsr__limit_scope tsr__limits_refused_scope(const tsr__limits *limits);

/* A limit in bytes for a device of `total` bytes: a percentage of it, the
 * byte count, or UINT64_MAX for none. */
uint64_t tsr__limit_bytes(tsr__limit limit, uint64_t total);

tsr_status tsr__limits_create(tsr__limits **out);
/* NULL is accepted. */
void tsr__limits_destroy(tsr__limits *limits);

/* The devices, of type `type` ("opencl"): total[k] is device k's memory as discovered (what
 * percentages resolve against), capacity[k] what the daemon lends of it
 * (what no limit can exceed). Called at start-up and again whenever a
 * capacity changes; the count must not change while anything is charged.
 * TSR_ERR_OUT_OF_MEMORY. */
tsr_status tsr__limits_set_devices(tsr__limits *limits, const char *type, size_t count,
                                   const uint64_t *total, const uint64_t *capacity);

/* Takes the memory_limit.* rules of cfg (copied; cfg may go away).
 * Uses are kept. TSR_ERR_OUT_OF_MEMORY leaves the old rules. */
tsr_status tsr__limits_set_rules(tsr__limits *limits, const tsr__config *cfg);

/* Charges `bytes` on opencl:device to who's session, uid, group, unit,
 * slice and cgroup. Errors, with nothing charged:
 *   TSR_ERR_OUT_OF_MEMORY when a limit would be passed, the first of the
 *     session's, the uid's, the group's, the unit's, the slice's and the
 *     cgroup's in that order:
 *     "memory limit of uid 1000 (alice) on opencl:0 reached: 3.5 GiB in use
 *     + 1 GiB requested > limit 4 GiB", with "of group 100 (users)",
 *     "per session", "of unit job42.scope", "of slice batch.slice" or "of
 *     cgroup /kubepods.slice" (the line's path) in its place for the
 *     others, and the limit written
 *     "4 GiB (50% of 8 GiB)" when it is a percentage (sizes in binary units
 *     with at most two decimals, "512 bytes" below 1 KiB; the name in
 *     parentheses only when one is known: the config's, else the system's,
 *     looked up on this refusal
 *     path only). The allocator's OUT_OF_MEMORY retry (release the cache,
 *     try again) therefore applies to limits too;
 *   TSR_ERR_NO_DEVICE for a device beyond tsr__limits_set_devices' count;
 *   TSR_ERR_OUT_OF_MEMORY "out of memory for limit accounting". */
tsr_status tsr__limits_charge(tsr__limits *limits, tsr__limits_who who, uint32_t device,
                              uint64_t bytes);

/* Gives back what a charge took (the same who, device and bytes, or a
 * part). Never fails; giving back more than is charged is a bug (asserted;
 * clamped to zero in release builds). */
void tsr__limits_uncharge(tsr__limits *limits, tsr__limits_who who, uint32_t device,
                          uint64_t bytes);

/* The most who's session could hold on opencl:device if nobody held
 * anything: the least of the device's capacity and the session, uid (or
 * uid_default), group, unit, slice and cgroup limits (who.session is not
 * looked at). What clients are told is the device's total memory. 0 for a
 * device that does not exist. */
uint64_t tsr__limits_effective(const tsr__limits *limits, tsr__limits_who who, uint32_t device);

/* What who's session could still charge on opencl:device now as far as
 * the limits go: the least headroom under its session, uid and group
 * limits (the uid's and group's counting every session of theirs), at most
 * the device's capacity. What the device itself has left is the
 * registry's business, not counted here. */
uint64_t tsr__limits_available(const tsr__limits *limits, tsr__limits_who who, uint32_t device);

/* What is charged now to one uid, group or session on opencl:device. */
uint64_t tsr__limits_use(const tsr__limits *limits, tsr__limit_scope scope, uint32_t id,
                         uint32_t device);
/* What is charged now to one unit, slice or cgroup (its own use, not the
 * cgroups' below it) on opencl:device. */
uint64_t tsr__limits_place_use(const tsr__limits *limits, tsr__limit_scope scope, const char *name,
                               uint32_t device);

#endif /* TESSERA_DAEMON_LIMITS_H */
