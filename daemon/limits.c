/* See limits.h. The uses of uids, groups and sessions live in one
 * open-addressing hash table keyed by (scope, device, id), linear probing,
 * deletion by backward shift; an entry exists exactly while its use is
 * above zero, so the table holds only what is charged now and needs no
 * tombstones. The uses of units, slices and cgroups, keyed by name, live
 * in a plain array searched from the start (one entry per place and device
 * that holds memory now: a few per running job), with the same rule. */
#include "daemon/limits.h"

#include <assert.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

typedef struct use_entry {
    uint64_t key;
    uint64_t used; /* 0: the slot is empty */
} use_entry;

/* The use of one unit, slice or cgroup on one device. */
typedef struct place_use {
    tsr__limit_scope scope;
    uint32_t device;
    uint64_t used;
    char name[TSR__CONFIG_CGROUP_MAX];
} place_use;

struct tsr__limits {
    size_t device_count;
    char type[16]; /* the devices' type name, for messages */
    uint64_t *total, *capacity;
    tsr__limit session, uid_default;
    tsr__config_id_limit *uids, *groups;
    size_t uid_count, group_count;
    tsr__config_match *matches; /* the configuration's unit, slice and cgroup lines */
    size_t match_count;
    use_entry *table;
    size_t table_cap, table_count; /* table_cap: 0 or a power of two */
    place_use *places;
    size_t place_count, place_cap;
    tsr__limit_scope refused; /* the scope of the last refusal */
};

tsr_status tsr__limits_create(tsr__limits **out)
{
    tsr__limits *l = calloc(1, sizeof *l);
    if (!l)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for limit accounting");
    *out = l;
    return TSR_OK;
}

void tsr__limits_destroy(tsr__limits *l)
{
    if (!l)
        return;
    free(l->total);
    free(l->capacity);
    free(l->uids);
    free(l->groups);
    free(l->matches);
    free(l->table);
    free(l->places);
    free(l);
}

tsr_status tsr__limits_set_devices(tsr__limits *l, const char *type, size_t count,
                                   const uint64_t *total, const uint64_t *capacity)
{
    uint64_t *t = calloc(count ? count : 1, sizeof *t), *c = calloc(count ? count : 1, sizeof *c);
    if (!t || !c) {
        free(t);
        free(c);
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for limit accounting");
    }
    if (count) {
        memcpy(t, total, count * sizeof *t);
        memcpy(c, capacity, count * sizeof *c);
    }
    free(l->total);
    free(l->capacity);
    l->total = t;
    l->capacity = c;
    l->device_count = count;
    snprintf(l->type, sizeof l->type, "%s", type);
    return TSR_OK;
}

/* A copy of n elements of `size` bytes (NULL for none). */
static tsr_status copy_list(const void *src, size_t n, size_t size, void **out)
{
    *out = NULL;
    if (n == 0)
        return TSR_OK;
    *out = malloc(n * size);
    if (!*out)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for limit accounting");
    memcpy(*out, src, n * size);
    return TSR_OK;
}

tsr_status tsr__limits_set_rules(tsr__limits *l, const tsr__config *cfg)
{
    void *uids, *groups = NULL, *matches = NULL;
    if (copy_list(cfg->uids, cfg->uid_count, sizeof *cfg->uids, &uids) != TSR_OK ||
        copy_list(cfg->groups, cfg->group_count, sizeof *cfg->groups, &groups) != TSR_OK ||
        copy_list(cfg->matches, cfg->match_count, sizeof *cfg->matches, &matches) != TSR_OK) {
        free(uids);
        free(groups);
        return TSR_ERR_OUT_OF_MEMORY;
    }
    free(l->uids);
    free(l->groups);
    free(l->matches);
    l->uids = uids;
    l->groups = groups;
    l->matches = matches;
    l->match_count = cfg->match_count;
    l->uid_count = cfg->uid_count;
    l->group_count = cfg->group_count;
    l->session = cfg->v[TSR__CONF_MEMORY_SESSION].limit;
    l->uid_default = cfg->v[TSR__CONF_MEMORY_UID_DEFAULT].limit;
    return TSR_OK;
}

/* ---- the use table ------------------------------------------------------ */

static uint64_t make_key(tsr__limit_scope scope, uint32_t id, uint32_t device)
{
    return (uint64_t)scope << 62 | (uint64_t)(device & 0x3fffffffu) << 32 | id;
}

static size_t home(const tsr__limits *l, uint64_t key)
{
    key ^= key >> 33;
    key *= UINT64_C(0xff51afd7ed558ccd);
    key ^= key >> 33;
    return (size_t)key & (l->table_cap - 1);
}

/* The slot holding key, or the empty slot where it would go. */
static size_t probe(const tsr__limits *l, uint64_t key)
{
    size_t i = home(l, key);
    while (l->table[i].used && l->table[i].key != key)
        i = (i + 1) & (l->table_cap - 1);
    return i;
}

static uint64_t lookup(const tsr__limits *l, uint64_t key)
{
    return l->table_cap ? l->table[probe(l, key)].used : 0;
}

/* Makes room for `more` new entries at a load of at most one half. */
static tsr_status reserve(tsr__limits *l, size_t more)
{
    if ((l->table_count + more) * 2 <= l->table_cap)
        return TSR_OK;
    size_t cap = l->table_cap ? l->table_cap : 16;
    while ((l->table_count + more) * 2 > cap)
        cap *= 2;
    use_entry *old = l->table;
    size_t old_cap = l->table_cap;
    l->table = calloc(cap, sizeof *l->table);
    if (!l->table) {
        l->table = old;
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for limit accounting");
    }
    l->table_cap = cap;
    for (size_t k = 0; k < old_cap; k++)
        if (old[k].used)
            l->table[probe(l, old[k].key)] = old[k];
    free(old);
    return TSR_OK;
}

/* Empties slot i and shifts later members of its cluster back into the
 * gap, so that probing never stops early. */
static void remove_slot(tsr__limits *l, size_t i)
{
    size_t mask = l->table_cap - 1;
    size_t j = i;
    l->table[i].used = 0;
    for (;;) {
        j = (j + 1) & mask;
        if (!l->table[j].used)
            break;
        size_t h = home(l, l->table[j].key);
        /* j's entry may move to i when its home is not in (i, j]. */
        bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (stays)
            continue;
        l->table[i] = l->table[j];
        l->table[j].used = 0;
        i = j;
    }
    l->table_count--;
}

static void add_use(tsr__limits *l, uint64_t key, uint64_t bytes)
{
    size_t i = probe(l, key);
    if (!l->table[i].used) {
        l->table[i].key = key;
        l->table_count++;
    }
    l->table[i].used += bytes;
}

static void sub_use(tsr__limits *l, uint64_t key, uint64_t bytes)
{
    if (!l->table_cap)
        return;
    size_t i = probe(l, key);
    assert(l->table[i].used >= bytes);
    if (l->table[i].used > bytes)
        l->table[i].used -= bytes;
    else if (l->table[i].used)
        remove_slot(l, i);
}

/* ---- rules -------------------------------------------------------------- */

uint64_t tsr__limit_bytes(tsr__limit limit, uint64_t total)
{
    switch (limit.kind) {
    case TSR__LIMIT_BYTES:
        return limit.value;
    case TSR__LIMIT_PERCENT:
        return total / 100 * limit.value + total % 100 * limit.value / 100;
    case TSR__LIMIT_NONE:
        break;
    }
    return UINT64_MAX;
}

static uint64_t resolve(const tsr__limits *l, tsr__limit limit, uint32_t device)
{
    return tsr__limit_bytes(limit, l->total[device]);
}

/* The name a unit's, slice's or cgroup's use is kept under: who's unit,
 * slice or cgroup; NULL when it has none (or for another scope). */
static const char *place_name(tsr__limit_scope scope, tsr__limits_who who)
{
    const char *name = scope == TSR__SCOPE_UNIT     ? who.place.unit
                       : scope == TSR__SCOPE_SLICE  ? who.place.slice
                       : scope == TSR__SCOPE_CGROUP ? who.place.cgroup
                                                    : NULL;
    return name && *name ? name : NULL;
}

/* One scope's rule for who: the limit, and the config line behind it
 * (entry for a uid or group, match for a unit, slice or cgroup; both NULL
 * for the session limit, the uid default and no line). */
typedef struct rule_of {
    tsr__limit limit;
    const tsr__config_id_limit *entry;
    const tsr__config_match *match;
} rule_of;

static rule_of rule(const tsr__limits *l, tsr__limit_scope scope, tsr__limits_who who)
{
    rule_of r = {.limit = {TSR__LIMIT_NONE, 0}};
    if (scope == TSR__SCOPE_SESSION) {
        r.limit = l->session;
        return r;
    }
    if (scope >= TSR__SCOPE_UNIT) {
        tsr__config_key_id key = scope == TSR__SCOPE_UNIT    ? TSR__CONF_MEMORY_UNIT
                                 : scope == TSR__SCOPE_SLICE ? TSR__CONF_MEMORY_SLICE
                                                             : TSR__CONF_MEMORY_CGROUP;
        r.match = place_name(scope, who)
                      ? tsr__config_match_find(l->matches, l->match_count, key, who.place)
                      : NULL;
        if (r.match)
            r.limit = r.match->limit;
        return r;
    }
    uint32_t id = scope == TSR__SCOPE_UID ? who.uid : who.gid;
    const tsr__config_id_limit *list = scope == TSR__SCOPE_UID ? l->uids : l->groups;
    size_t n = scope == TSR__SCOPE_UID ? l->uid_count : l->group_count;
    for (size_t k = 0; k < n; k++) {
        if (list[k].id == id) {
            r.entry = &list[k];
            r.limit = list[k].limit;
            return r;
        }
    }
    if (scope == TSR__SCOPE_UID)
        r.limit = l->uid_default;
    return r;
}

static uint32_t scope_id(tsr__limit_scope scope, tsr__limits_who who)
{
    return scope == TSR__SCOPE_UID ? who.uid : scope == TSR__SCOPE_GROUP ? who.gid : who.session;
}

/* ---- the uses of units, slices and cgroups ------------------------------ */

static place_use *place_find(const tsr__limits *l, tsr__limit_scope scope, const char *name,
                             uint32_t device)
{
    for (size_t k = 0; k < l->place_count; k++) {
        place_use *u = &l->places[k];
        if (u->scope == scope && u->device == device && strcmp(u->name, name) == 0)
            return u;
    }
    return NULL;
}

/* Room for `more` new entries. */
static tsr_status place_reserve(tsr__limits *l, size_t more)
{
    if (l->place_count + more <= l->place_cap)
        return TSR_OK;
    size_t cap = l->place_cap ? l->place_cap * 2 : 8;
    while (cap < l->place_count + more)
        cap *= 2;
    place_use *grown = realloc(l->places, cap * sizeof *grown);
    if (!grown)
        return tsr__fail(TSR_ERR_OUT_OF_MEMORY, "out of memory for limit accounting");
    l->places = grown;
    l->place_cap = cap;
    return TSR_OK;
}

static void place_add(tsr__limits *l, tsr__limit_scope scope, const char *name, uint32_t device,
                      uint64_t bytes)
{
    place_use *u = place_find(l, scope, name, device);
    if (!u) {
        u = &l->places[l->place_count++];
        *u = (place_use){.scope = scope, .device = device};
        snprintf(u->name, sizeof u->name, "%s", name);
    }
    u->used += bytes;
}

static void place_sub(tsr__limits *l, tsr__limit_scope scope, const char *name, uint32_t device,
                      uint64_t bytes)
{
    place_use *u = place_find(l, scope, name, device);
    assert(u && u->used >= bytes);
    if (!u)
        return;
    if (u->used > bytes)
        u->used -= bytes;
    else
        *u = l->places[--l->place_count];
}

/* What counts against a scope's rule on device: the uid's, group's,
 * session's, unit's or slice's use; for a cgroup line, the uses of every
 * cgroup at or below its path. */
static uint64_t used_by(const tsr__limits *l, tsr__limit_scope scope, tsr__limits_who who,
                        const rule_of *r, uint32_t device)
{
    if (scope < TSR__SCOPE_UNIT)
        return lookup(l, make_key(scope, scope_id(scope, who), device));
    const char *name = place_name(scope, who);
    if (!name)
        return 0;
    if (scope != TSR__SCOPE_CGROUP || !r->match) {
        const place_use *u = place_find(l, scope, name, device);
        return u ? u->used : 0;
    }
    uint64_t sum = 0;
    for (size_t k = 0; k < l->place_count; k++) {
        const place_use *u = &l->places[k];
        if (u->scope == TSR__SCOPE_CGROUP && u->device == device &&
            tsr__config_cgroup_under(u->name, r->match->pattern))
            sum += u->used;
    }
    return sum;
}

/* "3.5 GiB", "1 GiB", "512 bytes": sizes as a limit is written, two
 * decimals at most and none that are zero. */
#define SIZE_TEXT 32
static const char *format_bytes(char *buf, size_t n, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
        return buf;
    }
    size_t u = 0;
    double value = (double)bytes / 1024;
    while (value >= 1024 && u + 1 < TSR__ARRAY_SIZE(units)) {
        value /= 1024;
        u++;
    }
    int len = snprintf(buf, n, "%.2f", value);
    while (len > 0 && buf[len - 1] == '0')
        buf[--len] = '\0';
    if (len > 0 && buf[len - 1] == '.')
        buf[--len] = '\0';
    snprintf(buf + len, n - (size_t)len, " %s", units[u]);
    return buf;
}

/* " (alice)": the name the config used, else the system's; "" if none. */
static void id_name(char *buf, size_t n, tsr__limit_scope scope, uint32_t id,
                    const tsr__config_id_limit *entry)
{
    char scratch[16384];
    const char *name = entry && entry->name[0] ? entry->name : NULL;
    if (!name && scope == TSR__SCOPE_UID) {
        struct passwd pw, *found = NULL;
        if (getpwuid_r((uid_t)id, &pw, scratch, sizeof scratch, &found) == 0 && found)
            name = found->pw_name;
    } else if (!name) {
        struct group gr, *found = NULL;
        if (getgrgid_r((gid_t)id, &gr, scratch, sizeof scratch, &found) == 0 && found)
            name = found->gr_name;
    }
    snprintf(buf, n, "%s%s%s", name ? " (" : "", name ? name : "", name ? ")" : "");
}

static tsr_status refuse(tsr__limits *l, tsr__limit_scope scope, tsr__limits_who who,
                         uint32_t device, uint64_t used, uint64_t bytes)
{
    l->refused = scope;
    rule_of r = rule(l, scope, who);
    char whose[TSR__CONFIG_CGROUP_MAX + 64], name[80] = "", in_use[SIZE_TEXT], asked[SIZE_TEXT];
    char cap[SIZE_TEXT], total[SIZE_TEXT], of[64] = "";
    if (scope == TSR__SCOPE_SESSION)
        snprintf(whose, sizeof whose, "per session");
    else if (scope == TSR__SCOPE_UNIT || scope == TSR__SCOPE_SLICE)
        snprintf(whose, sizeof whose, "of %s %s", scope == TSR__SCOPE_UNIT ? "unit" : "slice",
                 place_name(scope, who));
    else if (scope == TSR__SCOPE_CGROUP) /* no line: only a sum past 2^64 gets here */
        snprintf(whose, sizeof whose, "of cgroup %s",
                 r.match ? r.match->pattern : place_name(scope, who));
    else {
        id_name(name, sizeof name, scope, scope_id(scope, who), r.entry);
        snprintf(whose, sizeof whose, "of %s %u%s", scope == TSR__SCOPE_UID ? "uid" : "group",
                 (unsigned)scope_id(scope, who), name);
    }
    if (r.limit.kind == TSR__LIMIT_PERCENT)
        snprintf(of, sizeof of, " (%u%% of %s)", (unsigned)r.limit.value,
                 format_bytes(total, sizeof total, l->total[device]));
    return tsr__fail(TSR_ERR_OUT_OF_MEMORY,
                     "memory limit %s on %s:%u reached: %s in use + %s requested > limit %s%s",
                     whose, l->type, (unsigned)device, format_bytes(in_use, sizeof in_use, used),
                     format_bytes(asked, sizeof asked, bytes),
                     format_bytes(cap, sizeof cap, resolve(l, r.limit, device)), of);
}

/* ---- the interface ------------------------------------------------------ */

static const tsr__limit_scope scopes[] = {TSR__SCOPE_SESSION, TSR__SCOPE_UID,   TSR__SCOPE_GROUP,
                                          TSR__SCOPE_UNIT,    TSR__SCOPE_SLICE, TSR__SCOPE_CGROUP};
enum { ID_SCOPES = 3 }; /* scopes[0..3) live in the hash table, the rest in places */

tsr_status tsr__limits_charge(tsr__limits *l, tsr__limits_who who, uint32_t device, uint64_t bytes)
{
    if (device >= l->device_count)
        return tsr__fail(TSR_ERR_NO_DEVICE, "no device %s:%u to charge memory to", l->type,
                         (unsigned)device);
    for (size_t k = 0; k < TSR__ARRAY_SIZE(scopes); k++) {
        rule_of r = rule(l, scopes[k], who);
        uint64_t limit = resolve(l, r.limit, device);
        uint64_t used = used_by(l, scopes[k], who, &r, device), after;
        if (__builtin_add_overflow(used, bytes, &after) || after > limit)
            return refuse(l, scopes[k], who, device, used, bytes);
    }
    if (reserve(l, ID_SCOPES) != TSR_OK ||
        place_reserve(l, TSR__ARRAY_SIZE(scopes) - ID_SCOPES) != TSR_OK)
        return TSR_ERR_OUT_OF_MEMORY;
    if (bytes == 0)
        return TSR_OK;
    for (size_t k = 0; k < TSR__ARRAY_SIZE(scopes); k++) {
        const char *name = place_name(scopes[k], who);
        if (k < ID_SCOPES)
            add_use(l, make_key(scopes[k], scope_id(scopes[k], who), device), bytes);
        else if (name)
            place_add(l, scopes[k], name, device, bytes);
    }
    return TSR_OK;
}

void tsr__limits_uncharge(tsr__limits *l, tsr__limits_who who, uint32_t device, uint64_t bytes)
{
    if (device >= l->device_count || bytes == 0)
        return;
    for (size_t k = 0; k < TSR__ARRAY_SIZE(scopes); k++) {
        const char *name = place_name(scopes[k], who);
        if (k < ID_SCOPES)
            sub_use(l, make_key(scopes[k], scope_id(scopes[k], who), device), bytes);
        else if (name)
            place_sub(l, scopes[k], name, device, bytes);
    }
}

uint64_t tsr__limits_effective(const tsr__limits *l, tsr__limits_who who, uint32_t device)
{
    if (device >= l->device_count)
        return 0;
    uint64_t least = l->capacity[device];
    for (size_t k = 0; k < TSR__ARRAY_SIZE(scopes); k++) {
        uint64_t limit = resolve(l, rule(l, scopes[k], who).limit, device);
        if (limit < least)
            least = limit;
    }
    return least;
}

uint64_t tsr__limits_available(const tsr__limits *l, tsr__limits_who who, uint32_t device)
{
    if (device >= l->device_count)
        return 0;
    uint64_t least = l->capacity[device];
    for (size_t k = 0; k < TSR__ARRAY_SIZE(scopes); k++) {
        rule_of r = rule(l, scopes[k], who);
        uint64_t limit = resolve(l, r.limit, device);
        uint64_t used = used_by(l, scopes[k], who, &r, device);
        uint64_t left = used < limit ? limit - used : 0;
        if (left < least)
            least = left;
    }
    return least;
}

uint64_t tsr__limits_use(const tsr__limits *l, tsr__limit_scope scope, uint32_t id, uint32_t device)
{
    return lookup(l, make_key(scope, id, device));
}

uint64_t tsr__limits_place_use(const tsr__limits *l, tsr__limit_scope scope, const char *name,
                               uint32_t device)
{
    const place_use *u = name ? place_find(l, scope, name, device) : NULL;
    return u ? u->used : 0;
}

tsr__limit_scope tsr__limits_refused_scope(const tsr__limits *l)
{
    return l->refused;
}
