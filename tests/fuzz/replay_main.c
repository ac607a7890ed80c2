/* The plain main that every fuzz target is also linked with: it feeds each
 * file named on the command line, or each file of each directory named
 * there, to LLVMFuzzerTestOneInput once. This is how the corpora and every
 * crash ever found run as CTest regression tests, with any compiler and no
 * libFuzzer. An empty corpus is an error: it would test nothing. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_file(const char *path, uint8_t **out, size_t *out_size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t *buf = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *grown = realloc(buf, cap);
            if (!grown)
                goto out_fail;
            buf = grown;
        }
        size_t got = fread(buf + size, 1, cap - size, f);
        size += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto out_fail;
    fclose(f);
    *out = buf;
    *out_size = size;
    return 0;
out_fail:
    free(buf);
    fclose(f);
    return -1;
}

static int replay_file(const char *path)
{
    uint8_t *data;
    size_t size;
    if (read_file(path, &data, &size) < 0) {
        fprintf(stderr, "replay: cannot read %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* Hand the target an exact-size allocation, so that ASan sees reads
     * past the end of the input. */
    uint8_t *exact = malloc(size ? size : 1);
    if (!exact) {
        free(data);
        return -1;
    }
    if (size)
        memcpy(exact, data, size);
    free(data);
    LLVMFuzzerTestOneInput(exact, size);
    free(exact);
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays a directory's regular files in name order, so runs repeat. */
static int replay_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof(*names));
            if (!grown) {
                rc = -1;
                goto out_free;
            }
            names = grown;
        }
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        if (!(names[n] = malloc(len))) {
            rc = -1;
            goto out_free;
        }
        snprintf(names[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc = replay_file(names[i]);
            ++*count;
        }
    }
out_free:
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        int rc =
            S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : (count++, replay_file(argv[i]));
        if (rc < 0)
            return 1;
    }
    if (count == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return 1;
    }
    printf("replayed %zu inputs\n", count);
    return 0;
}
