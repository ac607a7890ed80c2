/* The dispatcher fuzzer's user and group database (fake_users.c). */
#ifndef TESSERA_TESTS_FUZZ_FAKE_USERS_H
#define TESSERA_TESTS_FUZZ_FAKE_USERS_H

/* tessera-admin: a peer whose primary group this is may use the
 * administration messages and goes beyond the session caps. */
#define FAKE_ADMIN_GID 102u

#endif /* TESSERA_TESTS_FUZZ_FAKE_USERS_H */
