/* Shared by the tests of the daemon-asking commands (test_cli_*.c): a
 * client process that holds device memory while the tests look at it, and
 * a way to check the commands' JSON and CSV with Python's parsers. */
#ifndef TESSERA_TESTS_CLI_SUPPORT_H
#define TESSERA_TESTS_CLI_SUPPORT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support_daemon.h"

#define CLI_HOLD_BYTES 1048576 /* what each holder allocates on opencl:0 */
#define PYTHON "/usr/bin/python3"

static inline void cli_sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Runs tessera --socket SOCK ARGS... (NULL-terminated, at most 29), its
 * standard output in out. Returns its exit status. */
static inline int cli_run_on(char *out, size_t n, const char *sock, const char *first, ...)
{
    const char *args[32] = {"--socket", sock};
    int k = 2;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && k < 31; a = va_arg(ap, const char *))
        args[k++] = a;
    va_end(ap);
    args[k] = NULL;
    out[0] = '\0';
    return test_run_cli(out, n, args);
}

/* Writes text to a new file at path. */
static inline bool cli_write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static inline bool cli_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Waits up to 30 s for a file to exist. */
static inline bool cli_wait_file(const char *path)
{
    for (int k = 0; k < 1500; k++, cli_sleep_ms(20))
        if (cli_file_exists(path))
            return true;
    return false;
}

/* A client named `name` that holds CLI_HOLD_BYTES on opencl:0, then writes
 * its pid (as its own pid namespace sees it) to `ready` and waits for
 * `release` to exist (60 s at most). Returns the process exit status. */
static inline int cli_holder(const char *name, const char *ready, const char *release)
{
    tsr_client *c;
    tsr_client_options o = {.name = name};
    if (tsr_client_open(&o, &c) != TSR_OK) {
        fprintf(stderr, "holder: %s\n", tsr_last_error());
        return 10;
    }
    int64_t n = CLI_HOLD_BYTES / 4;
    tsr_tensor_options to = {.has_dtype = true,
                             .dtype = TSR_FLOAT32,
                             .has_device = true,
                             .device = {TSR_DEVICE_OPENCL, 0}};
    tsr_tensor *t = NULL;
    if (tsr_tensor_empty(c, 1, &n, &to, &t) != TSR_OK) {
        fprintf(stderr, "holder: %s\n", tsr_last_error());
        return 11;
    }
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", ready);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0 || rename(tmp, ready) != 0)
        return 12;
    for (int k = 0; k < 3000 && !cli_file_exists(release); k++)
        cli_sleep_ms(20);
    tsr_tensor_release(t);
    tsr_client_close(c);
    return 0;
}

/* The pid written to a ready file, or -1. */
static inline int cli_read_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    int pid = -1;
    if (f) {
        if (fscanf(f, "%d", &pid) != 1)
            pid = -1;
        fclose(f);
    }
    return pid;
}

/* Starts n (at most 4) holders: this program run as `SELF --hold
 * DIR/readyK DIR/release`, holder k calling before(k) first (NULL: none),
 * e.g. to become another user. Waits until each holds its memory and
 * writes its pid as text into pid[k]. False when one did not come up. */
static inline bool cli_start_holders(const char *dir, int n, void (*before)(int), pid_t *kids,
                                     char pid[][16])
{
    char self[512], ready[4][400], release[400];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    snprintf(release, sizeof release, "%s/release", dir);
    for (int k = 0; k < n && k < 4; k++) {
        snprintf(ready[k], sizeof ready[k], "%s/ready%d", dir, k);
        kids[k] = fork();
        if (kids[k] == 0) {
            if (before)
                before(k);
            execl(self, self, "--hold", ready[k], release, (char *)NULL);
            _exit(127);
        }
    }
    for (int k = 0; k < n && k < 4; k++) {
        if (!cli_wait_file(ready[k]))
            return false;
        snprintf(pid[k], 16, "%d", cli_read_pid(ready[k]));
    }
    return true;
}

/* Lets the holders go and reaps them; true when each exited with 0. */
static inline bool cli_stop_holders(const char *dir, int n, const pid_t *kids)
{
    char release[400];
    snprintf(release, sizeof release, "%s/release", dir);
    FILE *f = fopen(release, "w");
    if (f)
        fclose(f);
    bool ok = true;
    for (int k = 0; k < n; k++) {
        int status = -1;
        waitpid(kids[k], &status, 0);
        ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    return ok;
}

/* Runs `PYTHON -c script args...` with `input` on its stdin; returns its
 * exit status (the script asserts). */
static inline int cli_python(const char *script, const char *input, const char *const *args)
{
    int in[2];
    if (pipe(in) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[16] = {PYTHON, "-c", script};
        int argc = 3;
        for (int k = 0; args && args[k] && argc < 15; k++)
            argv[argc++] = args[k];
        argv[argc] = NULL;
        dup2(in[0], STDIN_FILENO);
        close(in[0]);
        close(in[1]);
        execv(PYTHON, (char *const *)argv);
        _exit(127);
    }
    close(in[0]);
    size_t n = strlen(input);
    ssize_t put = write(in[1], input, n);
    close(in[1]);
    int status;
    waitpid(pid, &status, 0);
    if (put != (ssize_t)n)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* cli_python, true when the script passed; else it says so on stderr with
 * `what` and the input. */
static inline bool cli_python_ok(const char *what, const char *script, const char *input,
                                 const char *const *args)
{
    int rc = cli_python(script, input, args);
    if (rc != 0)
        fprintf(stderr, "%s: the check failed (%d) on:\n%s\n", what, rc, input);
    return rc == 0;
}

/* In a test's main: when cli_start_holders started this process as a
 * holder, be one named `name` (its process name too, which `ps` shows as
 * its command) and return its exit status; else -1. */
static inline int cli_holder_mode(int argc, char **argv, const char *name)
{
    if (argc != 4 || strcmp(argv[1], "--hold") != 0)
        return -1;
    if (prctl(PR_SET_NAME, name, 0, 0, 0) != 0)
        return 13;
    return cli_holder(name, argv[2], argv[3]);
}

#endif /* TESSERA_TESTS_CLI_SUPPORT_H */
