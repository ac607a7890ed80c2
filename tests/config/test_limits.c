/* Memory limits (daemon/limits.c): charges against uid, group, session
 * and default limits in bytes and percentages, the exact refusals, the
 * effective limit clients are told, rules replaced while memory is held,
 * and the use table under many charges and uncharges. */
#include <stdlib.h>

#include "config/support_config.h"
#include "daemon/limits.h"
#include "test.h"

#define GiB (UINT64_C(1) << 30)
#define MiB (UINT64_C(1) << 20)

/* Limits over two devices of 8 GiB (opencl:0, lent whole) and 2 GiB
 * (opencl:1, of which the daemon lends 1 GiB), with the rules of `text`. */
static tsr__limits *make(const char *text)
{
    tsr__config cfg;
    tsr__limits *l = NULL;
    ASSERT_OK(tsr__config_init(&cfg, &fake_names));
    ASSERT_OK(tsr__config_parse(&cfg, "limits.conf", text, strlen(text), &fake_names));
    ASSERT_OK(tsr__limits_create(&l));
    uint64_t total[2] = {8 * GiB, 2 * GiB}, capacity[2] = {8 * GiB, 1 * GiB};
    ASSERT_OK(tsr__limits_set_devices(l, "opencl", 2, total, capacity));
    ASSERT_OK(tsr__limits_set_rules(l, &cfg));
    tsr__config_free(&cfg);
    return l;
}

static void set_rules(tsr__limits *l, const char *text)
{
    tsr__config cfg;
    ASSERT_OK(tsr__config_init(&cfg, &fake_names));
    ASSERT_OK(tsr__config_parse(&cfg, "limits.conf", text, strlen(text), &fake_names));
    ASSERT_OK(tsr__limits_set_rules(l, &cfg));
    tsr__config_free(&cfg);
}

static const tsr__limits_who alice1 = {.uid = 1000, .gid = 100, .session = 1};
static const tsr__limits_who alice2 = {.uid = 1000, .gid = 100, .session = 2};
static const tsr__limits_who bob = {.uid = 42001, .gid = 100, .session = 3};
static const tsr__limits_who carol = {.uid = 42002, .gid = 200, .session = 4};

static void test_uid_limit(void)
{
    tsr__limits *l = make("memory_limit.uid.alice = 4GiB\n");
    ASSERT_OK(tsr__limits_charge(l, alice1, 0, 3 * GiB));
    ASSERT_OK(tsr__limits_charge(l, alice2, 0, GiB / 2));
    ASSERT_FAIL(tsr__limits_charge(l, alice2, 0, GiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of uid 1000 (alice) on opencl:0 reached: 3.5 GiB in use + 1 GiB "
                "requested > limit 4 GiB");
    /* A refusal charges nothing anywhere. */
    ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_UID, 1000, 0), 3 * GiB + GiB / 2);
    ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_GROUP, 100, 0), 3 * GiB + GiB / 2);
    ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_SESSION, 2, 0), GiB / 2);
    /* Exactly up to the limit is fine; each device counts on its own;
     * other users are not limited. */
    ASSERT_OK(tsr__limits_charge(l, alice2, 0, GiB / 2));
    ASSERT_OK(tsr__limits_charge(l, alice1, 1, 1 * GiB));
    ASSERT_OK(tsr__limits_charge(l, bob, 0, 6 * GiB));
    ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_GROUP, 100, 0), 10 * GiB);
    tsr__limits_uncharge(l, alice1, 0, 3 * GiB);
    ASSERT_OK(tsr__limits_charge(l, alice2, 0, 3 * GiB));
    ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_SESSION, 1, 0), 0);
    ASSERT_FAIL(tsr__limits_charge(l, alice2, 0, 1536 * MiB + 123 * MiB / 100),
                TSR_ERR_OUT_OF_MEMORY,
                "memory limit of uid 1000 (alice) on opencl:0 reached: 4 GiB in use + 1.5 GiB "
                "requested > limit 4 GiB");
    ASSERT_FAIL(tsr__limits_charge(l, alice2, 0, 1000), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of uid 1000 (alice) on opencl:0 reached: 4 GiB in use + 1000 bytes "
                "requested > limit 4 GiB");
    ASSERT_FAIL(tsr__limits_charge(l, alice2, 0, 1234567), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of uid 1000 (alice) on opencl:0 reached: 4 GiB in use + 1.18 MiB "
                "requested > limit 4 GiB");
    ASSERT_FAIL(tsr__limits_charge(l, alice1, 5, 1), TSR_ERR_NO_DEVICE,
                "no device opencl:5 to charge memory to");
    tsr__limits_destroy(l);
}

static void test_default_group_and_session(void)
{
    tsr__limits *l = make("memory_limit.uid_default = 1GiB\n"
                          "memory_limit.uid.alice = unlimited\n"
                          "memory_limit.group.users = 50%\n"
                          "memory_limit.session = 3GiB\n");
    /* bob has the default; alice is exempt from it. */
    ASSERT_FAIL(tsr__limits_charge(l, bob, 0, GiB + 1), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of uid 42001 on opencl:0 reached: 0 bytes in use + 1 GiB requested "
                "> limit 1 GiB");
    ASSERT_OK(tsr__limits_charge(l, bob, 0, GiB));
    ASSERT_OK(tsr__limits_charge(l, alice1, 0, 2 * GiB));
    /* The session limit comes first. */
    ASSERT_FAIL(tsr__limits_charge(l, alice1, 0, 2 * GiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit per session on opencl:0 reached: 2 GiB in use + 2 GiB "
                "requested > limit 3 GiB");
    /* alice's and bob's sessions share group 100's 50% of 8 GiB. */
    ASSERT_FAIL(tsr__limits_charge(l, alice2, 0, 2 * GiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of group 100 (users) on opencl:0 reached: 3 GiB in use + 2 GiB "
                "requested > limit 4 GiB (50% of 8 GiB)");
    ASSERT_OK(tsr__limits_charge(l, alice2, 0, GiB));
    /* carol: another group, only the default. */
    ASSERT_OK(tsr__limits_charge(l, carol, 0, GiB));
    tsr__limits_destroy(l);
}

/* Names come from the system when the config gave a number. */
static void test_system_names(void)
{
    tsr__limits *l = make("memory_limit.uid.0 = 1M\nmemory_limit.group.0 = 2M\n");
    tsr__limits_who root = {.uid = 0, .gid = 0, .session = 9};
    ASSERT_FAIL(tsr__limits_charge(l, root, 1, 2 * MiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of uid 0 (root) on opencl:1 reached: 0 bytes in use + 2 MiB "
                "requested > limit 1 MiB");
    tsr__limits_who other = {.uid = 5, .gid = 0, .session = 10};
    ASSERT_FAIL(tsr__limits_charge(l, other, 1, 3 * MiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of group 0 (root) on opencl:1 reached: 0 bytes in use + 3 MiB "
                "requested > limit 2 MiB");
    tsr__limits_destroy(l);
}

static void test_effective_and_available(void)
{
    tsr__limits *l = make("memory_limit.uid.alice = 25%\nmemory_limit.group.users = 3GiB\n"
                          "memory_limit.session = 5GiB\n");
    ASSERT_UEQ(tsr__limits_effective(l, (tsr__limits_who){.uid = 1000, .gid = 100}, 0),
               2 * GiB); /* 25% of 8 GiB */
    ASSERT_UEQ(tsr__limits_effective(l, (tsr__limits_who){.uid = 1000, .gid = 100}, 1),
               GiB / 2); /* 25% of 2 GiB */
    ASSERT_UEQ(tsr__limits_effective(l, (tsr__limits_who){.uid = 42001, .gid = 100}, 0),
               3 * GiB); /* the group's */
    ASSERT_UEQ(tsr__limits_effective(l, (tsr__limits_who){.uid = 42002, .gid = 200}, 0),
               5 * GiB); /* the session's */
    ASSERT_UEQ(tsr__limits_effective(l, (tsr__limits_who){.uid = 42002, .gid = 200}, 1),
               1 * GiB); /* the capacity */
    ASSERT_UEQ(tsr__limits_effective(l, (tsr__limits_who){.uid = 42002, .gid = 200}, 2),
               0); /* no such device */
    ASSERT_OK(tsr__limits_charge(l, bob, 0, 2 * GiB + GiB / 2));
    ASSERT_UEQ(tsr__limits_available(l, alice1, 0), GiB / 2); /* the group's rest */
    ASSERT_UEQ(tsr__limits_available(l, bob, 0), GiB / 2);
    ASSERT_UEQ(tsr__limits_available(l, carol, 0), 5 * GiB);
    ASSERT_UEQ(tsr__limits_available(l, carol, 1), 1 * GiB);
    tsr__limits_destroy(l);
}

/* A reload replaces the rules and keeps what is held. */
static void test_new_rules(void)
{
    tsr__limits *l = make("memory_limit.uid.alice = 4GiB\n");
    ASSERT_OK(tsr__limits_charge(l, alice1, 0, 3 * GiB));
    set_rules(l, "memory_limit.uid.alice = 2GiB\n");
    ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_UID, 1000, 0), 3 * GiB);
    ASSERT_FAIL(tsr__limits_charge(l, alice1, 0, 1), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of uid 1000 (alice) on opencl:0 reached: 3 GiB in use + 1 bytes "
                "requested > limit 2 GiB");
    ASSERT_UEQ(tsr__limits_available(l, alice1, 0), 0);
    set_rules(l, "");
    ASSERT_OK(tsr__limits_charge(l, alice1, 0, 4 * GiB));
    tsr__limits_uncharge(l, alice1, 0, 7 * GiB);
    ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_UID, 1000, 0), 0);
    tsr__limits_destroy(l);
}

/* Many sessions, uids and groups charging and giving back in a random
 * order: the table must agree with a plain model throughout. */
#define SESSIONS 300
#define DEVICES 2
/* Limits keyed on where the client runs: each unit a glob matches has
 * its own use, a slice its own, a cgroup line bounds every cgroup below
 * its path together; all apply beside the uid's; the use of a place is
 * kept whatever the rules, so that rules a reload brings find it. */
static void test_places(void)
{
    tsr__limits *l = make("memory_limit.unit.job*.scope = 2GiB\n"
                          "memory_limit.unit.job42.scope = 3GiB\n"
                          "memory_limit.slice.batch.slice = 4GiB\n"
                          "memory_limit.cgroup./kube = 25%\n"
                          "memory_limit.uid_default = 6GiB\n");
    tsr__limits_who job7 = {.uid = 1000,
                            .gid = 100,
                            .session = 1,
                            .place = {"/batch.slice/job7.scope", "job7.scope", "batch.slice"}};
    tsr__limits_who job7b = job7, job42 = job7, pod1 = job7, pod2 = job7, nowhere = job7;
    job7b.session = 2;
    job42.session = 3;
    job42.place = (tsr__place){"/batch.slice/job42.scope", "job42.scope", "batch.slice"};
    job42.uid = 1001;
    pod1.session = 4;
    pod1.uid = 1002;
    pod1.place = (tsr__place){"/kube/pod1/c.scope", "c.scope", ""};
    pod2.session = 5;
    pod2.uid = 1003;
    pod2.place = (tsr__place){"/kube/pod2/c.scope", "c.scope", ""};
    nowhere.session = 6;
    nowhere.uid = 1004;
    nowhere.place = (tsr__place){0};

    /* job*.scope: 2 GiB for job7's two sessions together. */
    ASSERT_UEQ(tsr__limits_effective(l, job7, 0), 2 * GiB);
    ASSERT_OK(tsr__limits_charge(l, job7, 0, GiB));
    ASSERT_OK(tsr__limits_charge(l, job7b, 0, GiB / 2));
    ASSERT_UEQ(tsr__limits_available(l, job7, 0), GiB / 2);
    ASSERT_FAIL(tsr__limits_charge(l, job7b, 0, GiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of unit job7.scope on opencl:0 reached: 1.5 GiB in use + 1 GiB "
                "requested > limit 2 GiB");
    ASSERT_EQ(tsr__limits_refused_scope(l), TSR__SCOPE_UNIT);
    /* job42.scope has a line of its own, and the slice holds both. */
    ASSERT_UEQ(tsr__limits_effective(l, job42, 0), 3 * GiB);
    ASSERT_FAIL(tsr__limits_charge(l, job42, 0, 3 * GiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of slice batch.slice on opencl:0 reached: 1.5 GiB in use + 3 GiB "
                "requested > limit 4 GiB");
    ASSERT_EQ(tsr__limits_refused_scope(l), TSR__SCOPE_SLICE);
    ASSERT_OK(tsr__limits_charge(l, job42, 0, 2 * GiB));
    ASSERT_UEQ(tsr__limits_place_use(l, TSR__SCOPE_SLICE, "batch.slice", 0), 3 * GiB + GiB / 2);
    ASSERT_UEQ(tsr__limits_place_use(l, TSR__SCOPE_UNIT, "job42.scope", 0), 2 * GiB);
    ASSERT_UEQ(tsr__limits_place_use(l, TSR__SCOPE_CGROUP, "/batch.slice/job7.scope", 0),
               GiB + GiB / 2);
    /* /kube: 25% of 8 GiB for both pods together, not for each. */
    ASSERT_UEQ(tsr__limits_effective(l, pod1, 0), 2 * GiB);
    ASSERT_OK(tsr__limits_charge(l, pod1, 0, GiB + GiB / 2));
    ASSERT_FAIL(tsr__limits_charge(l, pod2, 0, GiB), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of cgroup /kube on opencl:0 reached: 1.5 GiB in use + 1 GiB "
                "requested > limit 2 GiB (25% of 8 GiB)");
    ASSERT_EQ(tsr__limits_refused_scope(l), TSR__SCOPE_CGROUP);
    ASSERT_UEQ(tsr__limits_available(l, pod2, 0), GiB / 2);
    /* A client of no known place has only its uid's limit. */
    ASSERT_UEQ(tsr__limits_effective(l, nowhere, 0), 6 * GiB);
    ASSERT_OK(tsr__limits_charge(l, nowhere, 0, 5 * GiB));
    /* Rules of a reload find the uses: the slice's line gone, a cgroup
     * line now bounds the batch slice. */
    set_rules(l, "memory_limit.cgroup./batch.slice = 4GiB\n");
    ASSERT_UEQ(tsr__limits_available(l, job42, 0), GiB / 2);
    ASSERT_OK(tsr__limits_charge(l, job7, 0, GiB / 2));
    ASSERT_FAIL(tsr__limits_charge(l, job42, 0, 1), TSR_ERR_OUT_OF_MEMORY,
                "memory limit of cgroup /batch.slice on opencl:0 reached: 4 GiB in use + 1 bytes "
                "requested > limit 4 GiB");
    /* Uncharging empties every place. */
    tsr__limits_uncharge(l, job7, 0, GiB + GiB / 2);
    tsr__limits_uncharge(l, job7b, 0, GiB / 2);
    tsr__limits_uncharge(l, job42, 0, 2 * GiB);
    tsr__limits_uncharge(l, pod1, 0, GiB + GiB / 2);
    tsr__limits_uncharge(l, nowhere, 0, 5 * GiB);
    ASSERT_UEQ(tsr__limits_place_use(l, TSR__SCOPE_SLICE, "batch.slice", 0), 0);
    ASSERT_UEQ(tsr__limits_place_use(l, TSR__SCOPE_UNIT, "job7.scope", 0), 0);
    ASSERT_UEQ(tsr__limits_place_use(l, TSR__SCOPE_CGROUP, "/kube/pod1/c.scope", 0), 0);
    ASSERT_UEQ(tsr__limits_available(l, job42, 0), 4 * GiB);
    tsr__limits_destroy(l);
}

static void test_many(void)
{
    tsr__limits *l = make("");
    static uint64_t held[SESSIONS][DEVICES];
    uint64_t by_uid[7][DEVICES] = {{0}}, by_gid[3][DEVICES] = {{0}};
    srand(7);
    for (int round = 0; round < 20000; round++) {
        uint32_t s = (uint32_t)rand() % SESSIONS, d = (uint32_t)rand() % DEVICES;
        tsr__limits_who who = {.uid = 500 + s % 7, .gid = 20 + s % 3, .session = s + 1};
        uint64_t bytes = held[s][d] && rand() % 2 ? (uint64_t)rand() % held[s][d] + 1
                                                  : (uint64_t)(rand() % 4096 + 1) << 12;
        if (held[s][d] >= bytes && rand() % 2) {
            tsr__limits_uncharge(l, who, d, bytes);
            held[s][d] -= bytes;
            by_uid[s % 7][d] -= bytes;
            by_gid[s % 3][d] -= bytes;
        } else if (tsr__limits_charge(l, who, d, bytes) == TSR_OK) {
            held[s][d] += bytes;
            by_uid[s % 7][d] += bytes;
            by_gid[s % 3][d] += bytes;
        }
    }
    int wrong = 0;
    for (uint32_t s = 0; s < SESSIONS; s++)
        for (uint32_t d = 0; d < DEVICES; d++)
            wrong += tsr__limits_use(l, TSR__SCOPE_SESSION, s + 1, d) != held[s][d];
    for (uint32_t d = 0; d < DEVICES; d++) {
        for (uint32_t u = 0; u < 7; u++)
            wrong += tsr__limits_use(l, TSR__SCOPE_UID, 500 + u, d) != by_uid[u][d];
        for (uint32_t g = 0; g < 3; g++)
            wrong += tsr__limits_use(l, TSR__SCOPE_GROUP, 20 + g, d) != by_gid[g][d];
    }
    ASSERT_EQ(wrong, 0);
    /* Everything given back: nothing is left. */
    for (uint32_t s = 0; s < SESSIONS; s++)
        for (uint32_t d = 0; d < DEVICES; d++)
            tsr__limits_uncharge(
                l, (tsr__limits_who){.uid = 500 + s % 7, .gid = 20 + s % 3, .session = s + 1}, d,
                held[s][d]);
    for (uint32_t u = 0; u < 7; u++)
        ASSERT_UEQ(tsr__limits_use(l, TSR__SCOPE_UID, 500 + u, 0), 0);
    tsr__limits_destroy(l);
}

int main(void)
{
    test_places();
    unsetenv("TESSERA_SOCKET");
    test_uid_limit();
    test_default_group_and_session();
    test_system_names();
    test_effective_and_available();
    test_new_rules();
    test_many();
    TEST_DONE();
}
