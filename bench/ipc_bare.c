/* tessera-bench, ipc suite: what the machine does without Tessera (see
 * ipc.h). Every baseline runs in two or more processes made by fork, as
 * Tessera's clients and daemon are. */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/ipc.h"

#define SUITE "ipc"
#define SPIN_BEFORE_YIELD 4096 /* pause rounds without news before sched_yield */

/* ---- One spinning shared cache line ------------------------------------ */

/* The parent stores an odd number; the child answers with the next even
 * one. stop ends the child. */
typedef struct spin_line {
    _Alignas(64) _Atomic uint32_t word;
    _Atomic uint32_t stop;
} spin_line;

/* Spins until *word == want (or *stop), yielding the CPU now and then so
 * that two spinners sharing one CPU still make progress. */
static bool spin_until(_Atomic uint32_t *word, uint32_t want, _Atomic uint32_t *stop)
{
    for (unsigned k = 1;; k++) {
        if (atomic_load_explicit(word, memory_order_acquire) == want)
            return true;
        if (stop && atomic_load_explicit(stop, memory_order_relaxed))
            return false;
        bench_cpu_relax();
        if (k % SPIN_BEFORE_YIELD == 0)
            sched_yield();
    }
}

/* One exchange, from the parent's side. */
typedef struct spin_parent {
    spin_line *line;
    uint32_t next; /* odd */
} spin_parent;

static bool spin_exchange(void *arg)
{
    spin_parent *p = arg;
    atomic_store_explicit(&p->line->word, p->next, memory_order_release);
    spin_until(&p->line->word, p->next + 1, NULL);
    p->next += 2;
    return true;
}

int bare_spin_shm(int peer_cpu, size_t warmup, size_t n, bench_samples *out)
{
    spin_line *line = bench_shared_alloc(sizeof *line);
    int pid = bench_fork();
    if (pid < 0) {
        bench_note(SUITE, "fork: %s", strerror(errno));
        bench_shared_free(line, sizeof *line);
        return -1;
    }
    if (pid == 0) {
        bench_pin_to(&(bench_pin){0}, 0, peer_cpu);
        for (uint32_t v = 1; spin_until(&line->word, v, &line->stop); v += 2)
            atomic_store_explicit(&line->word, v + 1, memory_order_release);
        _exit(0);
    }
    spin_parent parent = {.line = line, .next = 1};
    bench_time_ops(spin_exchange, &parent, warmup, n, out);
    atomic_store(&line->stop, 1u);
    int status = bench_wait(pid);
    bench_shared_free(line, sizeof *line);
    if (status != 0) {
        bench_note(SUITE, "the spinning child failed (status %d)", status);
        return -1;
    }
    return 0;
}

/* ---- A SOCK_SEQPACKET socketpair ---------------------------------------- */

/* Echoes packets until the other end hangs up. */
static void echo_child(int fd)
{
    char buf[256];
    for (;;) {
        ssize_t got = recv(fd, buf, sizeof buf, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0 || send(fd, buf, (size_t)got, MSG_NOSIGNAL) != got)
            _exit(got == 0 ? 0 : 1);
    }
}

/* arg: the descriptor. */
static bool ping_socket(void *arg)
{
    int fd = *(int *)arg;
    char buf[256] = {0};
    if (send(fd, buf, IPC_FRAME_BYTES, MSG_NOSIGNAL) != IPC_FRAME_BYTES)
        return false;
    ssize_t got;
    while ((got = recv(fd, buf, sizeof buf, 0)) < 0 && errno == EINTR)
        ;
    return got == IPC_FRAME_BYTES;
}

int bare_seqpacket(int peer_cpu, size_t warmup, size_t n, bench_samples *out)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        bench_note(SUITE, "socketpair: %s", strerror(errno));
        return -1;
    }
    int pid = bench_fork();
    if (pid < 0) {
        bench_note(SUITE, "fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        bench_pin_to(&(bench_pin){0}, 0, peer_cpu);
        close(sv[0]);
        echo_child(sv[1]);
    }
    close(sv[1]);
    bool ok = bench_time_ops(ping_socket, &sv[0], warmup, n, out) == 0;
    close(sv[0]);
    int status = bench_wait(pid);
    if (!ok || status != 0) {
        bench_note(SUITE, "the socketpair ping-pong failed (child status %d)", status);
        return -1;
    }
    return 0;
}

/* ---- malloc and free ----------------------------------------------------- */

void bare_malloc_free(size_t bytes, size_t batches, size_t per_batch, bench_samples *out)
{
    for (size_t b = 0; b < batches; b++) {
        uint64_t t0 = bench_now_ns();
        for (size_t k = 0; k < per_batch; k++) {
            void *volatile p = malloc(bytes);
            free(p);
        }
        bench_samples_add(out, (double)(bench_now_ns() - t0) / (double)per_batch);
    }
}

/* ---- An epoll echo server with many SOCK_SEQPACKET clients -------------- */

typedef struct epoll_pairs {
    int clients;
    int (*fds)[2]; /* [k][0]: client k's end, [k][1]: the server's */
} epoll_pairs;

/* One packet per ready descriptor per wake-up, as tesserad serves its
 * sockets; exits when every client has hung up. */
static void epoll_server(const epoll_pairs *p)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        _exit(1);
    for (int k = 0; k < p->clients; k++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = p->fds[k][1]};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, p->fds[k][1], &ev) < 0)
            _exit(1);
    }
    int live = p->clients;
    while (live > 0) {
        struct epoll_event events[64];
        int n = epoll_wait(ep, events, 64, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            _exit(1);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            char buf[256];
            ssize_t got = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
            if (got > 0 && send(fd, buf, (size_t)got, MSG_NOSIGNAL | MSG_DONTWAIT) == got)
                continue;
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
            close(fd);
            live--;
        }
    }
    _exit(0);
}

static void *epoll_client_setup(int index, void *arg)
{
    epoll_pairs *p = arg;
    for (int k = 0; k < p->clients; k++)
        if (k != index)
            close(p->fds[k][0]);
    return &p->fds[index][0];
}

static void epoll_client_teardown(void *state)
{
    close(*(int *)state);
}

int bare_epoll_clients(int clients, uint64_t duration_ns, many_result *out)
{
    epoll_pairs p = {.clients = clients, .fds = calloc((size_t)clients, sizeof *p.fds)};
    if (!p.fds) {
        bench_note(SUITE, "out of memory");
        return -1;
    }
    int made = 0;
    for (; made < clients; made++)
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, p.fds[made]) < 0)
            break;
    int server = -1;
    if (made == clients) {
        server = bench_fork();
        if (server == 0) {
            for (int k = 0; k < clients; k++)
                close(p.fds[k][0]);
            epoll_server(&p);
        }
    }
    for (int k = 0; k < made; k++)
        close(p.fds[k][1]);
    int result = -1;
    if (made < clients)
        bench_note(SUITE, "socketpair: %s", strerror(errno));
    else if (server < 0)
        bench_note(SUITE, "fork: %s", strerror(errno));
    else {
        many_body body = {.setup = epoll_client_setup,
                          .op = ping_socket,
                          .teardown = epoll_client_teardown,
                          .arg = &p};
        result = many_run(clients, duration_ns, &body, server, out);
    }
    for (int k = 0; k < made; k++)
        close(p.fds[k][0]);
    if (server > 0 && bench_wait(server) != 0 && result == 0) {
        bench_note(SUITE, "the epoll echo server failed");
        result = -1;
    }
    free(p.fds);
    return result;
}
