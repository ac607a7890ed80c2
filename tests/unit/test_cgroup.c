/* The control-group parsers (core/cgroup.h) against hand-made files in
 * the kernel's formats: /proc/self/cgroup of a cgroup v2 machine, of a
 * hybrid one (v1 controllers beside the unified hierarchy), of a
 * container, and cpu.max / cpu.cfs_* values; then what they must refuse. */
#include <string.h>

#include "test.h"

#include "core/cgroup.h"

static tsr_status path_of(const char *text, tsr__cgroup_version v, char *buf, size_t n)
{
    return tsr__cgroup_path(text, strlen(text), v, buf, n);
}

static tsr_status cpu_max(const char *text, uint32_t *cpus)
{
    return tsr__cgroup_cpu_max(text, strlen(text), cpus);
}

static tsr_status cfs(const char *q, const char *p, uint32_t *cpus)
{
    return tsr__cgroup_cfs(q, strlen(q), p, strlen(p), cpus);
}

int main(void)
{
    char buf[256];
    /* Debian 12: the unified hierarchy only. */
    ASSERT_OK(path_of("0::/user.slice/user-1000.slice/session-2.scope\n", TSR__CGROUP_V2, buf,
                      sizeof buf));
    ASSERT_STREQ(buf, "/user.slice/user-1000.slice/session-2.scope");
    ASSERT_FAIL(path_of("0::/system.slice/tesserad.service\n", TSR__CGROUP_V1, buf, sizeof buf),
                TSR_ERR_NOT_SUPPORTED, NULL);
    /* A hybrid machine: the cpu controller in v1 (with cpuacct or alone),
     * the unified hierarchy without controllers. */
    const char *hybrid = "12:pids:/\n4:memory:/job/7\n2:cpu,cpuacct:/slurm/uid_0/job_42\n"
                         "1:name=systemd:/\n0::/\n";
    ASSERT_OK(path_of(hybrid, TSR__CGROUP_V1, buf, sizeof buf));
    ASSERT_STREQ(buf, "/slurm/uid_0/job_42");
    ASSERT_OK(path_of(hybrid, TSR__CGROUP_V2, buf, sizeof buf));
    ASSERT_STREQ(buf, "/");
    ASSERT_OK(
        path_of("3:cpuset:/\n2:cpuacct:/\n1:cpu:/tsr\n0::/\n", TSR__CGROUP_V1, buf, sizeof buf));
    ASSERT_STREQ(buf, "/tsr");
    /* cpuset and cpuacct are not cpu; no final newline is fine. */
    ASSERT_FAIL(path_of("3:cpuset:/a\n2:cpuacct:/b", TSR__CGROUP_V1, buf, sizeof buf),
                TSR_ERR_NOT_SUPPORTED, NULL);
    /* Refused: no path separator, relative or dotted paths, control bytes,
     * a path that does not fit. */
    ASSERT_FAIL(path_of("0:/a\n", TSR__CGROUP_V2, buf, sizeof buf), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(path_of("0::a/b\n", TSR__CGROUP_V2, buf, sizeof buf), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(path_of("0::/a/../b\n", TSR__CGROUP_V2, buf, sizeof buf), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(path_of("0::/a/./b\n", TSR__CGROUP_V2, buf, sizeof buf), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(path_of("0::/a//b\n", TSR__CGROUP_V2, buf, sizeof buf), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(path_of("0::/a\tb\n", TSR__CGROUP_V2, buf, sizeof buf), TSR_ERR_INVALID_ARGUMENT,
                NULL);
    ASSERT_FAIL(path_of("0::/abcdefgh\n", TSR__CGROUP_V2, buf, 4), TSR_ERR_BUFFER_TOO_SMALL, NULL);
    ASSERT_FAIL(path_of("", TSR__CGROUP_V2, buf, sizeof buf), TSR_ERR_NOT_SUPPORTED, NULL);

    /* cpu.max: systemd's CPUQuota=150% is "150000 100000". */
    uint32_t cpus = 99;
    ASSERT_OK(cpu_max("max 100000\n", &cpus));
    ASSERT_EQ(cpus, 0);
    ASSERT_OK(cpu_max("150000 100000\n", &cpus));
    ASSERT_EQ(cpus, 2);
    ASSERT_OK(cpu_max("50000 100000\n", &cpus));
    ASSERT_EQ(cpus, 1);
    ASSERT_OK(cpu_max("400000 100000", &cpus));
    ASSERT_EQ(cpus, 4);
    ASSERT_OK(cpu_max("1000 1000000\n", &cpus)); /* a thousandth of a CPU still runs */
    ASSERT_EQ(cpus, 1);
    cpus = 99;
    ASSERT_FAIL(cpu_max("max\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cpu_max("100000 0\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cpu_max("-1 100000\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cpu_max("1e5 100000\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cpu_max("100000  100000\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cpu_max("100000 100000\n\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cpu_max("99999999999999999999 100000\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cpu_max("", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_EQ(cpus, 99); /* untouched by a refusal */

    /* cgroup v1: Docker's --cpus=2.5 writes 250000 over 100000. */
    ASSERT_OK(cfs("-1\n", "100000\n", &cpus));
    ASSERT_EQ(cpus, 0);
    ASSERT_OK(cfs("250000\n", "100000\n", &cpus));
    ASSERT_EQ(cpus, 3);
    ASSERT_OK(cfs("100000\n", "100000\n", &cpus));
    ASSERT_EQ(cpus, 1);
    ASSERT_FAIL(cfs("-2\n", "100000\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cfs("100000\n", "0\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cfs("100000\n", "\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);
    ASSERT_FAIL(cfs("0100000\n", "100000\n", &cpus), TSR_ERR_INVALID_ARGUMENT, NULL);

    /* The rounding itself. */
    ASSERT_EQ(tsr__cgroup_cpus(0, 100000), 1);
    ASSERT_EQ(tsr__cgroup_cpus(200000, 100000), 2);
    ASSERT_EQ(tsr__cgroup_cpus(200001, 100000), 3);
    ASSERT_EQ(tsr__cgroup_cpus(5, 0), 0);
    TEST_DONE();
}
