/* tessera-bench, the ipc suite: Tessera's request paths beside bare IPC.
 *
 * The latencies are measured in rounds that take turns (bare spin, ring,
 * bare socketpair, socket, allocation, malloc), so that noise from the
 * rest of the machine falls on all of them alike; medians and 99th
 * percentiles are over every round's samples. The many-clients tests run
 * last, one after the other, for the same duration. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/daemon.h"
#include "bench/ipc.h"
#include "tessera/tessera.h"

#define SUITE "ipc"
#define ALLOC_BYTES 1024
#define RING_TARGET_US 2.0  /* ring median at most this */
#define RING_VS_SOCKET 20.0 /* ... and this many times faster than a bare socketpair */
#define ALLOC_VS_RING 1.0   /* a cached alloc + free within one ring round trip */
#define MANY_VS_EPOLL 0.8   /* many clients: this share of a bare epoll server */

typedef struct ipc_plan {
    int rounds;
    size_t warmup;                        /* untimed calls before each timed run */
    size_t ring, spin, socket, seqpacket; /* timed round trips per round */
    size_t alloc;                         /* timed alloc + free pairs per round */
    size_t malloc_batches, malloc_batch;  /* malloc + free, per round */
    uint64_t many_ns;                     /* each many-clients test */
} ipc_plan;

static const ipc_plan full_plan = {
    .rounds = 5,
    .warmup = 2000,
    .ring = 40000,
    .spin = 40000,
    .socket = 8000,
    .seqpacket = 8000,
    .alloc = 10000,
    .malloc_batches = 200,
    .malloc_batch = 1000,
    .many_ns = 4000000000u,
};
static const ipc_plan quick_plan = {
    .rounds = 2,
    .warmup = 200,
    .ring = 2000,
    .spin = 2000,
    .socket = 300,
    .seqpacket = 300,
    .alloc = 500,
    .malloc_batches = 20,
    .malloc_batch = 1000,
    .many_ns = 300000000u,
};

typedef struct ipc_samples {
    bench_samples ring, spin, socket, seqpacket, alloc, malloc;
} ipc_samples;

/* ---- Tessera's side ----------------------------------------------------- */

static tsr_status open_client(const char *socket_path, tsr_client **out)
{
    tsr_client_options o = {.socket_path = socket_path, .name = "tessera-bench"};
    return tsr_client_open(&o, out);
}

static bool ring_ping(void *arg)
{
    return tsr_client_ping(arg, TSR_TRANSPORT_RING) == TSR_OK;
}

static bool socket_ping(void *arg)
{
    return tsr_client_ping(arg, TSR_TRANSPORT_SOCKET) == TSR_OK;
}

static const tsr_device opencl0 = {.type = TSR_DEVICE_OPENCL, .index = 0};

/* A 1 KiB tensor on opencl:0, made and released. */
static bool alloc_free(void *arg)
{
    static const int64_t sizes[1] = {ALLOC_BYTES};
    tsr_tensor_options o = {
        .has_dtype = true, .dtype = TSR_UINT8, .has_device = true, .device = opencl0};
    tsr_tensor *t;
    if (tsr_tensor_empty(arg, 1, sizes, &o, &t) != TSR_OK)
        return false;
    tsr_tensor_release(t);
    return true;
}

static int timed(const char *what, bool (*op)(void *), void *arg, size_t warmup, size_t n,
                 bench_samples *out)
{
    if (bench_time_ops(op, arg, warmup, n, out) == 0)
        return 0;
    bench_note(SUITE, "%s failed: %s", what, tsr_last_error());
    return -1;
}

/* One round of every latency test; the bare baselines' second process
 * runs on peer_cpu. */
static int latency_round(tsr_client *c, const ipc_plan *plan, bool opencl, int peer_cpu,
                         ipc_samples *s)
{
    size_t w = plan->warmup;
    if (bare_spin_shm(peer_cpu, w, plan->spin, &s->spin) != 0 ||
        timed("ring ping", ring_ping, c, w, plan->ring, &s->ring) != 0 ||
        bare_seqpacket(peer_cpu, w, plan->seqpacket, &s->seqpacket) != 0 ||
        timed("socket ping", socket_ping, c, w, plan->socket, &s->socket) != 0)
        return -1;
    if (opencl && timed("alloc + free on opencl:0", alloc_free, c, w, plan->alloc, &s->alloc) != 0)
        return -1;
    bare_malloc_free(ALLOC_BYTES, plan->malloc_batches, plan->malloc_batch, &s->malloc);
    return 0;
}

/* Each client process of the many-clients test: its own session. */
static void *many_setup(int index, void *arg)
{
    tsr_client *c;
    if (open_client(arg, &c) != TSR_OK) {
        fprintf(stderr, "tessera-bench: %s: client %d: %s\n", SUITE, index, tsr_last_error());
        return NULL;
    }
    return c;
}

static void many_teardown(void *state)
{
    tsr_client_close(state);
}

static void report_many(const char *server, int clients, const many_result *m)
{
    char server_part[96] = "";
    if (m->server_cpu_ns)
        snprintf(server_part, sizeof server_part, ", %s %.2f", server,
                 (double)m->server_cpu_ns / 1e9 / m->seconds);
    bench_note(SUITE,
               "%d clients: %.0f requests/s; per client %llu to %llu in %.2f s; CPUs busy: "
               "clients %.2f%s",
               clients, m->ops_per_s, (unsigned long long)m->min_ops,
               (unsigned long long)m->max_ops, m->seconds,
               (double)m->clients_cpu_ns / 1e9 / m->seconds, server_part);
}

/* ---- Rows ----------------------------------------------------------------- */

static double us(bench_samples *s, double q)
{
    return bench_quantile(s, q) / 1000.0;
}

static void add_row(bench_results *out, const char *name, const char *device, int threads,
                    double value, double p99, const char *unit, const char *baseline,
                    double baseline_value, double baseline_p99, double target)
{
    bench_row row = {.suite = SUITE,
                     .threads = threads,
                     .value = value,
                     .p99 = p99,
                     .unit = unit,
                     .baseline_value = baseline_value,
                     .baseline_p99 = baseline_p99,
                     .target = target};
    snprintf(row.name, sizeof row.name, "%s", name);
    snprintf(row.device, sizeof row.device, "%s", device ? device : "");
    snprintf(row.baseline, sizeof row.baseline, "%s", baseline);
    bench_add(out, &row);
}

static void add_latency(bench_results *out, const char *name, const char *device,
                        bench_samples *value, const char *baseline, bench_samples *base,
                        double target)
{
    add_row(out, name, device, 1, us(value, 0.5), us(value, 0.99), BENCH_US, baseline,
            us(base, 0.5), us(base, 0.99), target);
}

/* ---- The suite ------------------------------------------------------------ */

/* The latency rounds and their rows. With pin, this process runs on one
 * CPU and the daemon (daemon_pid, -1 when it is not ours) and every
 * baseline's second process on another, so that every pair is measured
 * the same way: on two CPUs, as a ring that spins needs. Left to the
 * scheduler, a pair sometimes shares one CPU (socket round trips' wake-ups
 * pull them together), which makes a socketpair round trip 4 times faster
 * and a ring round trip 4 times slower. */
static int measure_latencies(const char *socket_path, const ipc_plan *plan, bool pin,
                             int daemon_pid, bench_results *out)
{
    int cpus[2] = {-1, -1};
    if (pin && !bench_two_cpus(cpus))
        bench_note(SUITE, "one CPU: every pair of processes shares it");
    bench_pin self, daemon;
    bench_pin_to(&self, 0, cpus[0]);
    bench_pin_to(&daemon, daemon_pid, daemon_pid > 0 ? cpus[1] : -1);
    tsr_client *c;
    if (open_client(socket_path, &c) != TSR_OK) {
        bench_note(SUITE, "%s", tsr_last_error());
        return -1;
    }
    int32_t opencl_count = 0;
    bool opencl =
        tsr_device_count(c, TSR_DEVICE_OPENCL, &opencl_count) == TSR_OK && opencl_count > 0;
    tsr_memory_stats before = {0}, after = {0};
    if (opencl && tsr_memory_get_stats(c, opencl0, &before) != TSR_OK)
        opencl = false;
    if (!opencl)
        bench_note(SUITE, "no OpenCL device: alloc_free is left out");

    ipc_samples s = {0};
    int result = 0;
    for (int r = 0; r < plan->rounds && result == 0; r++) {
        bench_note(SUITE, "latency round %d of %d", r + 1, plan->rounds);
        result = latency_round(c, plan, opencl, cpus[1], &s);
    }
    if (result == 0 && opencl && tsr_memory_get_stats(c, opencl0, &after) == TSR_OK)
        bench_note(SUITE, "alloc_free: %llu of %llu allocations came from the cache",
                   (unsigned long long)(after.cache_hits - before.cache_hits),
                   (unsigned long long)(after.allocations - before.allocations));
    tsr_client_close(c);
    bench_unpin(&self);
    bench_unpin(&daemon);

    if (result == 0) {
        add_latency(out, "ring_rtt", NULL, &s.ring, "bare_seqpacket", &s.seqpacket, RING_VS_SOCKET);
        add_row(out, "ring_rtt", NULL, 1, us(&s.ring, 0.5), us(&s.ring, 0.99), BENCH_US, "limit",
                RING_TARGET_US, NAN, 1.0);
        add_latency(out, "ring_rtt", NULL, &s.ring, "bare_spin_shm", &s.spin, NAN);
        add_latency(out, "socket_rtt", NULL, &s.socket, "bare_seqpacket", &s.seqpacket, NAN);
        if (opencl) {
            char dev[TSR_DEVICE_STR_MAX];
            tsr_device_str(opencl0, dev, sizeof dev);
            add_latency(out, "alloc_free", dev, &s.alloc, "malloc_free", &s.malloc, NAN);
            add_latency(out, "alloc_free", dev, &s.alloc, "ring_rtt", &s.ring, ALLOC_VS_RING);
        }
    }
    bench_samples *all[] = {&s.ring, &s.spin, &s.socket, &s.seqpacket, &s.alloc, &s.malloc};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        bench_samples_free(all[k]);
    return result;
}

/* Many clients of tesserad, then as many of a bare epoll server, and the
 * row. daemon_pid (or -1) is measured for CPU time. */
static int measure_many(const char *socket_path, const ipc_plan *plan, int n, int daemon_pid,
                        bench_results *out)
{
    many_result ring, bare;
    bench_note(SUITE, "%d client processes pinging tesserad's rings for %.1f s", n,
               (double)plan->many_ns / 1e9);
    many_body body = {.setup = many_setup,
                      .op = ring_ping,
                      .teardown = many_teardown,
                      .arg = (void *)socket_path};
    if (many_run(n, plan->many_ns, &body, daemon_pid, &ring) != 0)
        return -1;
    report_many("tesserad", n, &ring);
    bench_note(SUITE, "%d client processes pinging a bare epoll echo server for %.1f s", n,
               (double)plan->many_ns / 1e9);
    if (bare_epoll_clients(n, plan->many_ns, &bare) != 0)
        return -1;
    report_many("epoll server", n, &bare);
    char name[32];
    snprintf(name, sizeof name, "clients%d", n);
    add_row(out, name, NULL, n, ring.ops_per_s, NAN, BENCH_OPS, "bare_epoll_seqpacket",
            bare.ops_per_s, NAN, MANY_VS_EPOLL);
    return 0;
}

int bench_suite_ipc(const bench_config *config, bench_results *out)
{
    bench_daemon d = {.pid = -1};
    const char *socket_path = config->socket_path;
    if (!socket_path) {
        if (bench_daemon_start(&d, SUITE) != 0)
            return 1;
        socket_path = d.socket;
    }
    const ipc_plan *plan = config->quick ? &quick_plan : &full_plan;
    int result = measure_latencies(socket_path, plan, config->pin, d.pid, out);
    if (result == 0)
        result = measure_many(socket_path, plan, config->clients, d.pid, out);
    if (d.pid > 0)
        bench_daemon_stop(&d);
    return result == 0 ? 0 : 1;
}
