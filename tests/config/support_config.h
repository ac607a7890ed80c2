/* Shared by the configuration tests and the config fuzz target: a user
 * and group resolver that knows a fixed few names, so that no result
 * depends on the machine's databases, and whole-file reads and writes. */
#ifndef TESSERA_TESTS_SUPPORT_CONFIG_H
#define TESSERA_TESTS_SUPPORT_CONFIG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config.h"

static const struct {
    const char *name;
    uint32_t id;
} fake_users[] = {{"alice", 1000}, {"bob", 1001}, {"root", 0}, {"tessera", 990}},
  fake_groups[] = {{"users", 100}, {"tessera", 990}};

static inline int fake_user(void *ctx, const char *name, uint32_t *uid)
{
    (void)ctx;
    for (size_t k = 0; k < sizeof fake_users / sizeof fake_users[0]; k++)
        if (strcmp(name, fake_users[k].name) == 0)
            return *uid = fake_users[k].id, 0;
    return -1;
}

static inline int fake_group(void *ctx, const char *name, uint32_t *gid)
{
    (void)ctx;
    for (size_t k = 0; k < sizeof fake_groups / sizeof fake_groups[0]; k++)
        if (strcmp(name, fake_groups[k].name) == 0)
            return *gid = fake_groups[k].id, 0;
    return -1;
}

static const tsr__config_resolver fake_names = {fake_user, fake_group, NULL};

/* A file's whole text, NUL-terminated (the caller frees it), or NULL. */
static inline char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    int c;
    while ((c = fgetc(f)) != EOF)
        fputc(c, out);
    fclose(out);
    fclose(f);
    return text;
}

/* Replaces a file's contents; false on failure. */
static inline int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

#endif /* TESSERA_TESTS_SUPPORT_CONFIG_H */
