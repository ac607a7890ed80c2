/* The manual pages in docs/man are what `tessera help --man COMMAND`
 * prints for every command `tessera --help` lists, and there are no
 * others: the pages cannot drift from the --help text. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support_daemon.h"
#include "test.h"

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

int main(void)
{
    char dir[1024], overview[1 << 14], page[1 << 16], path[1200];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *cut = strstr(dir, "/tests/integration/");
    if (!cut)
        TEST_SKIP("cannot find the source tree from %s", __FILE__);
    strcpy(cut, "/docs/man");
    const char *help[] = {"--help", NULL};
    ASSERT_EQ(test_run_cli(overview, sizeof overview, help), 0);
    int commands = 0;
    const char *at = strstr(overview, "\nCOMMANDS\n");
    ASSERT_TRUE(at != NULL);
    for (const char *line = at ? at + 10 : ""; strncmp(line, "    ", 4) == 0;) {
        char name[64];
        if (sscanf(line, " %63s", name) != 1)
            break;
        const char *args[] = {"help", "--man", name, NULL};
        ASSERT_EQ(test_run_cli(page, sizeof page, args), 0);
        snprintf(path, sizeof path, "%s/tessera-%s.1", dir, name);
        const char *file = read_file(path);
        if (!file || strcmp(file, page) != 0)
            fprintf(stderr, "%s differs from 'tessera help --man %s': regenerate it with\n"
                            "  tessera help --man %s > %s\n", path, name, name, path);
        ASSERT_TRUE(file && strcmp(file, page) == 0);
        ASSERT_TRUE(strstr(page, ".TH TESSERA\\-") && strstr(page, ".SH SYNOPSIS"));
        commands++;
        line = strchr(line, '\n');
        if (!line)
            break;
        line++;
    }
    ASSERT_TRUE(commands >= 12);
    int pages = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        pages += strstr(e->d_name, ".1") != NULL;
    if (d)
        closedir(d);
    ASSERT_EQ(pages, commands);
    TEST_DONE();
}
