/* The test helpers: assertion macros that print both operands, where the
 * check is, and the thread's last error message, then count the failure.
 * A test program calls TEST_DONE() at the end: it prints
 * "N passed, N failed" and returns 1 when anything failed.
 * Exit code 77 (TEST_SKIP) tells CTest the test was skipped. */
#ifndef TESSERA_TESTS_TEST_H
#define TESSERA_TESTS_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

static int test__passed, test__failed;

/* One step of xorshift64: the tests' reproducible pseudo-random bits. */
static inline uint64_t test_next_u64(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* An expected message for printing; NULL means "any message". */
static inline const char *test__or_any(const char *want)
{
    return want ? want : "(any)";
}

/* True when an expected message is given and the last error differs. */
static inline int test__message_differs(const char *want)
{
    return want != NULL && strcmp(tsr_last_error(), want) != 0;
}

#define TEST__REPORT(fmt, ...)                                                         \
    do {                                                                               \
        test__failed++;                                                                \
        fprintf(stderr, "%s:%d: " fmt "\n  last error: %s\n", __FILE__, __LINE__,     \
                __VA_ARGS__, tsr_last_error());                                        \
    } while (0)

#define ASSERT_TRUE(cond)                                                              \
    do {                                                                               \
        if (cond)                                                                      \
            test__passed++;                                                            \
        else                                                                           \
            TEST__REPORT("expected true: %s", #cond);                                 \
    } while (0)

#define ASSERT_FALSE(cond) ASSERT_TRUE(!(cond))

#define ASSERT_EQ(a, b)                                                                \
    do {                                                                               \
        long long test__a = (long long)(a), test__b = (long long)(b);                  \
        if (test__a == test__b)                                                        \
            test__passed++;                                                            \
        else                                                                           \
            TEST__REPORT("%s == %s: %lld != %lld", #a, #b, test__a, test__b);          \
    } while (0)

#define ASSERT_UEQ(a, b)                                                               \
    do {                                                                               \
        unsigned long long test__a = (unsigned long long)(a),                          \
                           test__b = (unsigned long long)(b);                          \
        if (test__a == test__b)                                                        \
            test__passed++;                                                            \
        else                                                                           \
            TEST__REPORT("%s == %s: 0x%llx != 0x%llx", #a, #b, test__a, test__b);      \
    } while (0)

#define ASSERT_STREQ(a, b)                                                             \
    do {                                                                               \
        const char *test__a = (a), *test__b = (b);                                     \
        if (test__a && test__b && strcmp(test__a, test__b) == 0)                       \
            test__passed++;                                                            \
        else                                                                           \
            TEST__REPORT("%s == %s:\n  got      \"%s\"\n  expected \"%s\"", #a, #b,    \
                         test__a ? test__a : "(null)", test__b ? test__b : "(null)");   \
    } while (0)

/* A call that must succeed. */
#define ASSERT_OK(call)                                                                \
    do {                                                                               \
        tsr_status test__st = (call);                                                  \
        if (test__st == TSR_OK)                                                        \
            test__passed++;                                                            \
        else                                                                           \
            TEST__REPORT("%s failed with %s", #call, tsr_status_name(test__st));       \
    } while (0)

/* A call that must fail with `status` and exactly the message `msg`. */
#define ASSERT_FAIL(call, status, msg)                                                 \
    do {                                                                               \
        tsr_status test__st = (call);                                                  \
        if (test__st != (status))                                                      \
            TEST__REPORT("%s returned %s, expected %s", #call,                         \
                         tsr_status_name(test__st), tsr_status_name(status));          \
        else if (test__message_differs(msg))                                           \
            TEST__REPORT("%s message:\n  got      \"%s\"\n  expected \"%s\"", #call,   \
                         tsr_last_error(), test__or_any(msg));                        \
        else                                                                           \
            test__passed++;                                                            \
    } while (0)

#define TEST_SKIP(...)                                                                 \
    do {                                                                               \
        printf("skipped: " __VA_ARGS__);                                               \
        printf("\n");                                                                  \
        exit(77);                                                                      \
    } while (0)

#define TEST_DONE()                                                                    \
    do {                                                                               \
        printf("%d passed, %d failed\n", test__passed, test__failed);                  \
        return test__failed ? 1 : 0;                                                   \
    } while (0)

#endif /* TESSERA_TESTS_TEST_H */
