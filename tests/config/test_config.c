/* The configuration parser (daemon/config.c): a file with every key, each
 * kind of error with its exact message, defaults and the environment,
 * command-line overrides, loading files, and the written form. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/support_config.h"
#include "daemon/config.h"
#include "daemon/procinfo.h"
#include "test.h"

static tsr_status parse(tsr__config *cfg, const char *text)
{
    return tsr__config_parse(cfg, "tesserad.conf", text, strlen(text), &fake_names);
}

static const char every_key[] = "# every key, in an order of its own\n"
                                "\n"
                                "log.level = debug\n"
                                "  socket.path   =   /run/t/d.sock  \n"
                                "socket.group = tessera\n"
                                "socket.mode = 600\n"
                                "devices.visible = 1, opencl:0\n"
                                "sessions.max = 64\n"
                                "memory_limit.daemon = 90%\n"
                                "memory_limit.session = 2GiB\n"
                                "memory_limit.uid_default = 4G\n"
                                "memory_limit.uid.alice = 8GiB\n"
                                "memory_limit.uid.1234 = unlimited\n"
                                "memory_limit.group.users = 50%\n"
                                "memory_limit.group.7 = 512M\n"
                                "\tcache.directory = /var/cache/t # not a comment\n"
                                "discovery.probe_timeout_ms = 5000\r\n"
                                "devices.memory = copy\n"
                                "sessions.max_per_uid = 8\n"
                                "sessions.max_handshakes_per_uid = 3\n"
                                "sessions.max_monitors = 5\n"
                                "devices.visible.unit.job*.scope = 1\n"
                                "devices.visible.slice.batch.slice = none\n"
                                "devices.visible.cgroup./kubepods.slice = opencl:0\n"
                                "memory_limit.unit.job[0-9]*.scope = 3GiB\n"
                                "memory_limit.slice.user-*.slice = 25%\n"
                                "memory_limit.cgroup./ = unlimited\n"
                                "kernels.user = off\n"
                                "kernels.max_programs = 8\n"
                                "kernels.max_source_bytes = 64KiB\n"
                                "kernels.build_time_limit_ms = 2500\n"
                                "kernels.build_memory = 2GiB\n"
                                "kernels.run_time_limit_ms = 750\n"
                                "kernels.worker_idle_ms = 100\n"
                                "devices.host_code = off\n"
                                "devices.huge_pages = off\n"
                                "devices.matmul_piece = 268435456\n";

static void test_every_key(void)
{
    tsr__config cfg;
    ASSERT_OK(tsr__config_init(&cfg, &fake_names));
    ASSERT_OK(parse(&cfg, every_key));
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++)
        if (!tsr__config_key_at((tsr__config_key_id)k)->suffix)
            ASSERT_TRUE(cfg.v[k].set);
    ASSERT_EQ(cfg.match_count, 6);
    ASSERT_EQ(cfg.v[TSR__CONF_USER_KERNELS].number, 0);
    ASSERT_EQ(cfg.v[TSR__CONF_HOST_CODE].number, 0);
    ASSERT_EQ(cfg.v[TSR__CONF_HUGE_PAGES].number, 0);
    ASSERT_UEQ(cfg.v[TSR__CONF_MATMUL_PIECE].number, UINT64_C(1) << 28);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_PROGRAMS].number, 8);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_SOURCE].number, 65536);
    ASSERT_EQ(cfg.v[TSR__CONF_BUILD_TIME].number, 2500);
    ASSERT_EQ(cfg.v[TSR__CONF_BUILD_MEMORY].number, UINT64_C(2) << 30);
    ASSERT_EQ(cfg.v[TSR__CONF_RUN_TIME].number, 750);
    ASSERT_EQ(cfg.v[TSR__CONF_WORKER_IDLE].number, 100);
    ASSERT_EQ(cfg.matches[0].key, TSR__CONF_VISIBLE_UNIT);
    ASSERT_STREQ(cfg.matches[0].pattern, "job*.scope");
    ASSERT_TRUE(!cfg.matches[0].all_devices && cfg.matches[0].device_count == 1 &&
                cfg.matches[0].devices[0] == 1 && cfg.matches[0].line == 22);
    ASSERT_TRUE(!cfg.matches[1].all_devices && cfg.matches[1].device_count == 0);
    ASSERT_STREQ(cfg.matches[2].pattern, "/kubepods.slice");
    ASSERT_EQ(cfg.matches[3].key, TSR__CONF_MEMORY_UNIT);
    ASSERT_UEQ(cfg.matches[3].limit.value, 3ull << 30);
    ASSERT_EQ(cfg.matches[4].limit.kind, TSR__LIMIT_PERCENT);
    ASSERT_EQ(cfg.matches[5].limit.kind, TSR__LIMIT_NONE);
    ASSERT_STREQ(cfg.v[TSR__CONF_SOCKET_PATH].text, "/run/t/d.sock");
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_MONITORS].number, 5);
    ASSERT_EQ(cfg.v[TSR__CONF_SOCKET_GROUP].number, 990);
    ASSERT_STREQ(cfg.v[TSR__CONF_SOCKET_GROUP].text, "tessera");
    ASSERT_EQ(cfg.v[TSR__CONF_SOCKET_MODE].number, 0600);
    ASSERT_FALSE(cfg.v[TSR__CONF_VISIBLE_DEVICES].all_devices);
    ASSERT_EQ(cfg.v[TSR__CONF_VISIBLE_DEVICES].device_count, 2);
    ASSERT_EQ(cfg.v[TSR__CONF_VISIBLE_DEVICES].devices[0], 1);
    ASSERT_EQ(cfg.v[TSR__CONF_VISIBLE_DEVICES].devices[1], 0);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_SESSIONS].number, 64);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_SESSIONS_UID].number, 8);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_HANDSHAKES_UID].number, 3);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_MONITORS].number, 5);
    ASSERT_EQ(cfg.v[TSR__CONF_MEMORY_DAEMON].limit.kind, TSR__LIMIT_PERCENT);
    ASSERT_EQ(cfg.v[TSR__CONF_MEMORY_DAEMON].limit.value, 90);
    ASSERT_EQ(cfg.v[TSR__CONF_MEMORY_SESSION].limit.kind, TSR__LIMIT_BYTES);
    ASSERT_UEQ(cfg.v[TSR__CONF_MEMORY_SESSION].limit.value, 2ull << 30);
    ASSERT_UEQ(cfg.v[TSR__CONF_MEMORY_UID_DEFAULT].limit.value, 4ull << 30);
    ASSERT_EQ(cfg.uid_count, 2);
    const tsr__config_id_limit *alice = tsr__config_uid_limit(&cfg, 1000);
    ASSERT_TRUE(alice && strcmp(alice->name, "alice") == 0 && alice->line == 12);
    ASSERT_TRUE(alice && alice->limit.kind == TSR__LIMIT_BYTES && alice->limit.value == 8ull << 30);
    const tsr__config_id_limit *u1234 = tsr__config_uid_limit(&cfg, 1234);
    ASSERT_TRUE(u1234 && u1234->name[0] == '\0' && u1234->limit.kind == TSR__LIMIT_NONE);
    ASSERT_EQ(cfg.group_count, 2);
    const tsr__config_id_limit *users = tsr__config_group_limit(&cfg, 100);
    ASSERT_TRUE(users && users->limit.kind == TSR__LIMIT_PERCENT && users->limit.value == 50);
    ASSERT_TRUE(tsr__config_group_limit(&cfg, 7) != NULL);
    ASSERT_TRUE(tsr__config_group_limit(&cfg, 8) == NULL);
    ASSERT_EQ(cfg.v[TSR__CONF_LOG_LEVEL].number, 7);
    ASSERT_STREQ(cfg.v[TSR__CONF_CACHE_DIR].text, "/var/cache/t # not a comment");
    ASSERT_EQ(cfg.v[TSR__CONF_PROBE_TIMEOUT].number, 5000);
    ASSERT_EQ(cfg.v[TSR__CONF_DEVICE_MEMORY].number, TSR__DEVICE_MEMORY_COPY);
    tsr__config_free(&cfg);
}

/* Each kind of error, with the whole message. */
static const struct {
    const char *text, *message;
} errors[] = {
    {"kernels.user = maybe\n",
     "tesserad.conf:1: kernels.user: invalid value 'maybe' (expected auto, on or off)"},
    {"socket.mode = 0660\n\n\n\n\n\nmemory_limit.uid.alice = lots\n",
     "tesserad.conf:7: memory_limit.uid.alice: invalid size 'lots' (expected e.g. 4GiB or 50%)"},
    {"memory_limit.session = 150%\n",
     "tesserad.conf:1: memory_limit.session: invalid percentage '150%' (expected 1% to 100%)"},
    {"memory_limit.session = 0%\n",
     "tesserad.conf:1: memory_limit.session: invalid percentage '0%' (expected 1% to 100%)"},
    {"memory_limit.daemon = 0\n",
     "tesserad.conf:1: memory_limit.daemon: invalid size '0' (a limit is above 0; 'unlimited' "
     "means none)"},
    {"memory_limit.daemon = 99999999999T\n",
     "tesserad.conf:1: memory_limit.daemon: size '99999999999T' is too large"},
    /* a name nobody has is left out (below), but its value is still checked */
    {"memory_limit.uid.carol = lots\n",
     "tesserad.conf:1: memory_limit.uid.carol: invalid size 'lots' (expected e.g. 4GiB or 50%)"},
    {"memory_limit.uid = 1G\n", "tesserad.conf:1: memory_limit.uid: missing user name (write "
                                "memory_limit.uid.<user> = LIMIT)"},
    {"memory_limit.group. = 1G\n", "tesserad.conf:1: memory_limit.group.: missing group name "
                                   "(write memory_limit.group.<group> = LIMIT)"},
    {"memory_limit.uid.alice = 1G\nmemory_limit.uid.1000 = 2G\n",
     "tesserad.conf:2: memory_limit.uid.1000: uid 1000 already has a limit (line 1)"},
    {"log.level = info\n# again:\nlog.level = debug\n",
     "tesserad.conf:3: log.level: already set on line 1"},
    {"log.level = loud\n", "tesserad.conf:1: log.level: unknown log level 'loud' (expected err, "
                           "warning, notice, info or debug)"},
    {"log.level =\n", "tesserad.conf:1: log.level: missing value"},
    {"devices.memory = shared\n", "tesserad.conf:1: devices.memory: unknown device memory mode "
                                  "'shared' (expected auto, copy or staged)"},
    {"devices.matmul_piece = 65535\n",
     "tesserad.conf:1: devices.matmul_piece: invalid piece '65535' (expected auto or a whole "
     "number of multiply-adds from 65536 to 1099511627776)"},
    {"no.such.key = 1\n", "tesserad.conf:1: no.such.key: unknown key"},
    {"socket path = /tmp/x\n", "tesserad.conf:1: invalid key 'socket path' (keys have no blanks)"},
    {"just words\n", "tesserad.conf:1: expected 'key = value', got 'just words'"},
    {" = value\n", "tesserad.conf:1: expected 'key = value', got '= value'"},
    {"[socket]\n", "tesserad.conf:1: sections such as '[socket]' are not used: write each key in "
                   "full (socket.path = ...)"},
    {"socket.path = /tmp/\001\n", "tesserad.conf:1: control character 0x01 in the line"},
    {"socket.mode = 0999\n",
     "tesserad.conf:1: socket.mode: invalid mode '0999' (expected octal permissions such as 0660)"},
    {"socket.mode = 1777\n",
     "tesserad.conf:1: socket.mode: invalid mode '1777' (expected octal permissions such as 0660)"},
    {"socket.group = wheel\n", "tesserad.conf:1: socket.group: no such group 'wheel'"},
    {"socket.path = /0123456789/0123456789/0123456789/0123456789/0123456789/0123456789/"
     "0123456789/0123456789/0123456789/0123456789/0123456789\n",
     "tesserad.conf:1: socket.path: socket path too long (121 bytes, at most 107)"},
    {"cache.directory = cache\n",
     "tesserad.conf:1: cache.directory: 'cache' is not an absolute path"},
    {"sessions.max = 0\n", "tesserad.conf:1: sessions.max: invalid count '0' (expected a whole "
                           "number from 1 to 1000000)"},
    {"discovery.probe_timeout_ms = 1s\n",
     "tesserad.conf:1: discovery.probe_timeout_ms: invalid milliseconds '1s' (expected a whole "
     "number from 1 to 3600000)"},
    {"devices.visible = cuda:0\n", "tesserad.conf:1: devices.visible: 'cuda:0' is not a device of "
                                   "a backend this daemon has (expected all, none, or "
                                   "ordinals such as 1,0 or opencl:1,opencl:0)"},
    {"devices.visible = opencl\n", "tesserad.conf:1: devices.visible: 'opencl' names no ordinal "
                                   "(expected all, none, or ordinals such "
                                   "as 1,0 or opencl:1,opencl:0)"},
    {"devices.visible = gpu0\n", "tesserad.conf:1: devices.visible: invalid device 'gpu0' "
                                 "(expected all, none, or ordinals such as "
                                 "1,0 or opencl:1,opencl:0)"},
    {"devices.visible = 0, opencl:0\n",
     "tesserad.conf:1: devices.visible: opencl:0 is listed twice"},
    {"devices.visible = 0,,1\n",
     "tesserad.conf:1: devices.visible: empty entry in the device list '0,,1'"},
    /* lines keyed on a unit, slice or cgroup */
    {"log.level = info\nmemory_limit.unit.job[0-9.scope = 1G\n",
     "tesserad.conf:2: memory_limit.unit.job[0-9.scope: invalid unit pattern 'job[0-9.scope': "
     "'[' without ']'"},
    {"memory_limit.unit.job]*.scope = 1G\n",
     "tesserad.conf:1: memory_limit.unit.job]*.scope: invalid unit pattern 'job]*.scope': ']' "
     "outside [...]"},
    {"devices.visible.slice.batch$.slice = 0\n",
     "tesserad.conf:1: devices.visible.slice.batch$.slice: invalid slice pattern "
     "'batch$.slice': '$' is in no slice name"},
    {"devices.visible.unit.system.slice/job.scope = 0\n",
     "tesserad.conf:1: devices.visible.unit.system.slice/job.scope: invalid unit pattern "
     "'system.slice/job.scope': a unit name has no '/' (for a cgroup path write the cgroup key)"},
    {"memory_limit.unit = 1G\n", "tesserad.conf:1: memory_limit.unit: missing unit pattern "
                                 "(write memory_limit.unit.<glob> = LIMIT)"},
    {"devices.visible.cgroup. = 0\n", "tesserad.conf:1: devices.visible.cgroup.: missing cgroup "
                                      "path (write devices.visible.cgroup.<path> = LIST)"},
    {"memory_limit.cgroup.kubepods.slice = 1G\n",
     "tesserad.conf:1: memory_limit.cgroup.kubepods.slice: invalid cgroup path 'kubepods.slice': "
     "it is absolute, as /proc/PID/cgroup writes it (/system.slice/batch.service)"},
    {"memory_limit.cgroup./a/../b = 1G\n",
     "tesserad.conf:1: memory_limit.cgroup./a/../b: invalid cgroup path '/a/../b': an empty, '.' "
     "or '..' component"},
    {"memory_limit.cgroup./a/ = 1G\n",
     "tesserad.conf:1: memory_limit.cgroup./a/: invalid cgroup path '/a/': an empty, '.' or '..' "
     "component"},
    {"memory_limit.cgroup./kubepods*.slice = 1G\n",
     "tesserad.conf:1: memory_limit.cgroup./kubepods*.slice: invalid cgroup path "
     "'/kubepods*.slice': a path is a prefix, not a pattern"},
    {"memory_limit.unit.a.scope = 0\n",
     "tesserad.conf:1: memory_limit.unit.a.scope: invalid size '0' (a limit is above 0; "
     "'unlimited' means none)"},
    {"devices.visible.unit.a.scope = 0, 0\n",
     "tesserad.conf:1: devices.visible.unit.a.scope: opencl:0 is listed twice"},
    {"memory_limit.slice.a.slice = 1G\nmemory_limit.slice.a.slice = 2G\n",
     "tesserad.conf:2: memory_limit.slice.a.slice: already set on line 1"},
    {"devices.visible.foo.a = 0\n", "tesserad.conf:1: devices.visible.foo.a: unknown key"},
};

static void test_errors(void)
{
    for (size_t k = 0; k < sizeof errors / sizeof errors[0]; k++) {
        tsr__config cfg;
        tsr__config_clear(&cfg);
        ASSERT_FAIL(parse(&cfg, errors[k].text), TSR_ERR_INVALID_ARGUMENT, errors[k].message);
        tsr__config_free(&cfg);
    }
    /* A NUL byte and an overlong line, which no C string literal above can hold. */
    tsr__config cfg;
    tsr__config_clear(&cfg);
    ASSERT_FAIL(
        tsr__config_parse(&cfg, "tesserad.conf", "log.level = info\nx\0y = 1\n", 24, &fake_names),
        TSR_ERR_INVALID_ARGUMENT, "tesserad.conf:2: control character 0x00 in the line");
    char *long_line = malloc(TSR__CONFIG_LINE_MAX + 8);
    memset(long_line, 'a', TSR__CONFIG_LINE_MAX + 1);
    strcpy(long_line + TSR__CONFIG_LINE_MAX + 1, "\n");
    ASSERT_FAIL(parse(&cfg, long_line), TSR_ERR_INVALID_ARGUMENT,
                "tesserad.conf:1: line too long (over 4096 bytes)");
    free(long_line);
    tsr__config_free(&cfg);
}

/* A limit for a user or group the system does not know is left out with
 * a note, not an error: one departed user must not keep the daemon from
 * starting. The command line, which an operator types, still refuses it. */
static void test_unknown_names(void)
{
    tsr__config cfg;
    tsr__config_clear(&cfg);
    ASSERT_OK(parse(&cfg, "memory_limit.uid.carol = 1G\nmemory_limit.group.wheel = 10%\n"
                          "memory_limit.uid.alice = 2G\nmemory_limit.uid.4242 = 3G\n"));
    ASSERT_EQ(cfg.uid_count, 2); /* alice, and 4242, a number needs no name */
    ASSERT_TRUE(tsr__config_uid_limit(&cfg, 1000) != NULL);
    ASSERT_TRUE(tsr__config_uid_limit(&cfg, 4242) != NULL);
    ASSERT_EQ(cfg.group_count, 0);
    ASSERT_EQ(cfg.note_count, 2);
    ASSERT_EQ(cfg.notes_dropped, 0);
    ASSERT_STREQ(cfg.notes[0], "tesserad.conf:1: memory_limit.uid.carol: no such user 'carol'; "
                               "the line is left out until the user exists (SIGHUP reads it "
                               "again)");
    ASSERT_STREQ(cfg.notes[1], "tesserad.conf:2: memory_limit.group.wheel: no such group "
                               "'wheel'; the line is left out until the group exists (SIGHUP "
                               "reads it again)");
    tsr__config_free(&cfg);

    /* Twelve of them: eight kept, four counted. */
    char text[1024] = "";
    for (int k = 0; k < 12; k++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "memory_limit.uid.gone%d = 1G\n",
                 k);
    tsr__config_clear(&cfg);
    ASSERT_OK(parse(&cfg, text));
    ASSERT_EQ(cfg.note_count, TSR__CONFIG_NOTES);
    ASSERT_EQ(cfg.notes_dropped, 12 - TSR__CONFIG_NOTES);
    ASSERT_TRUE(strncmp(cfg.notes[7], "tesserad.conf:8: memory_limit.uid.gone7: ", 40) == 0);
    ASSERT_EQ(cfg.uid_count, 0);
    tsr__config_free(&cfg);

    tsr__config_clear(&cfg);
    ASSERT_FAIL(tsr__config_set(&cfg, "--set", "memory_limit.uid.carol", "1G", &fake_names),
                TSR_ERR_INVALID_ARGUMENT, "--set: memory_limit.uid.carol: no such user 'carol'");
    ASSERT_EQ(cfg.note_count, 0);
    tsr__config_free(&cfg);
}

static void test_defaults_and_environment(void)
{
    unsetenv("TESSERA_SOCKET");
    tsr__config cfg;
    ASSERT_OK(tsr__config_init(&cfg, &fake_names));
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++)
        ASSERT_FALSE(cfg.v[k].set);
    ASSERT_STREQ(cfg.v[TSR__CONF_SOCKET_PATH].text, "/run/tessera/tesserad.sock");
    ASSERT_STREQ(tsr__config_text(&cfg, TSR__CONF_SOCKET_GROUP), "the daemon's own group");
    ASSERT_EQ(cfg.v[TSR__CONF_SOCKET_MODE].number, 0660);
    ASSERT_TRUE(cfg.v[TSR__CONF_VISIBLE_DEVICES].all_devices);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_SESSIONS].number, 4096);
    ASSERT_EQ(cfg.v[TSR__CONF_MEMORY_DAEMON].limit.kind, TSR__LIMIT_NONE);
    ASSERT_EQ(cfg.v[TSR__CONF_LOG_LEVEL].number, 6);
    ASSERT_STREQ(cfg.v[TSR__CONF_CACHE_DIR].text, "");
    ASSERT_TRUE(strncmp(tsr__config_text(&cfg, TSR__CONF_CACHE_DIR), "$TESSERA_KERNEL_CACHE", 21) ==
                0);
    ASSERT_EQ(cfg.v[TSR__CONF_PROBE_TIMEOUT].number, 20000);
    ASSERT_EQ(cfg.v[TSR__CONF_USER_KERNELS].number, TSR__USER_KERNELS_AUTO);
    ASSERT_EQ(cfg.v[TSR__CONF_MATMUL_PIECE].number, TSR__MATMUL_PIECE_AUTO);
    ASSERT_OK(parse(&cfg, "devices.matmul_piece = 65536\n"));
    ASSERT_EQ(cfg.v[TSR__CONF_MATMUL_PIECE].number, 65536);
    ASSERT_OK(parse(&cfg, "devices.matmul_piece = auto\n"));
    ASSERT_EQ(cfg.v[TSR__CONF_MATMUL_PIECE].number, TSR__MATMUL_PIECE_AUTO);
    ASSERT_OK(parse(&cfg, "kernels.user = on\n"));
    ASSERT_EQ(cfg.v[TSR__CONF_USER_KERNELS].number, 1);
    ASSERT_OK(parse(&cfg, "kernels.user = auto\n"));
    ASSERT_EQ(cfg.v[TSR__CONF_USER_KERNELS].number, TSR__USER_KERNELS_AUTO);

    /* The environment replaces the default, the file the environment. */
    setenv("TESSERA_SOCKET", "/tmp/env.sock", 1);
    ASSERT_OK(tsr__config_init(&cfg, &fake_names));
    ASSERT_STREQ(cfg.v[TSR__CONF_SOCKET_PATH].text, "/tmp/env.sock");
    ASSERT_FALSE(cfg.v[TSR__CONF_SOCKET_PATH].set);
    ASSERT_OK(parse(&cfg, "socket.path = /tmp/file.sock\n"));
    ASSERT_STREQ(cfg.v[TSR__CONF_SOCKET_PATH].text, "/tmp/file.sock");
    char long_path[200];
    memset(long_path, 'x', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = '\0';
    setenv("TESSERA_SOCKET", long_path, 1);
    ASSERT_FAIL(tsr__config_init(&cfg, &fake_names), TSR_ERR_INVALID_ARGUMENT,
                "$TESSERA_SOCKET: socket path too long (199 bytes, at most 107)");
    unsetenv("TESSERA_SOCKET");
    tsr__config_free(&cfg);
}

/* The command line over the file: options, --set, lists merged by id. */
static void test_overrides(void)
{
    tsr__config file, over;
    ASSERT_OK(tsr__config_init(&file, &fake_names));
    ASSERT_OK(parse(&file, "memory_limit.daemon = 1G\nlog.level = debug\n"
                           "memory_limit.uid.alice = 1G\nmemory_limit.uid.bob = 2G\n"));
    tsr__config_clear(&over);
    ASSERT_OK(tsr__config_set_option(&over, "memory-limit", "512M", &fake_names));
    ASSERT_OK(tsr__config_set(&over, "--set", "memory_limit.uid.1000", "3G", &fake_names));
    ASSERT_OK(tsr__config_set(&over, "--set", "memory_limit.uid.1000", "4G", &fake_names));
    ASSERT_OK(tsr__config_set(&over, "--set", "memory_limit.group.users", "10%", &fake_names));
    ASSERT_FAIL(tsr__config_set_option(&over, "memory-limit", "lots", &fake_names),
                TSR_ERR_INVALID_ARGUMENT,
                "--memory-limit: invalid size 'lots' (expected e.g. 4GiB or 50%)");
    ASSERT_FAIL(tsr__config_set(&over, "--set", "log.colour", "on", &fake_names),
                TSR_ERR_INVALID_ARGUMENT, "--set: log.colour: unknown key");
    ASSERT_FAIL(tsr__config_set_option(&over, "no-such", "1", &fake_names),
                TSR_ERR_INVALID_ARGUMENT, "--no-such: no such option");
    ASSERT_OK(tsr__config_merge(&file, &over));
    ASSERT_UEQ(file.v[TSR__CONF_MEMORY_DAEMON].limit.value, 512ull << 20);
    ASSERT_EQ(file.v[TSR__CONF_LOG_LEVEL].number, 7);
    ASSERT_EQ(file.uid_count, 2);
    ASSERT_UEQ(tsr__config_uid_limit(&file, 1000)->limit.value, 4ull << 30);
    ASSERT_UEQ(tsr__config_uid_limit(&file, 1001)->limit.value, 2ull << 30);
    ASSERT_EQ(file.group_count, 1);

    tsr__config copy;
    ASSERT_OK(tsr__config_copy(&copy, &file));
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++)
        ASSERT_TRUE(tsr__config_equal(&copy, &file, (tsr__config_key_id)k));
    ASSERT_OK(tsr__config_set(&copy, "--set", "memory_limit.uid.bob", "unlimited", &fake_names));
    ASSERT_FALSE(tsr__config_equal(&copy, &file, TSR__CONF_MEMORY_UID));
    ASSERT_OK(tsr__config_set_option(&copy, "socket-mode", "0660", &fake_names));
    ASSERT_TRUE(tsr__config_equal(&copy, &file, TSR__CONF_SOCKET_MODE));
    ASSERT_OK(tsr__config_set_option(&copy, "socket-mode", "0666", &fake_names));
    ASSERT_FALSE(tsr__config_equal(&copy, &file, TSR__CONF_SOCKET_MODE));
    tsr__config_free(&copy);
    tsr__config_free(&over);
    tsr__config_free(&file);
}

static void test_load(void)
{
    char dir[] = "/tmp/tessera-config.XXXXXX";
    ASSERT_TRUE(mkdtemp(dir) != NULL);
    char path[64];
    snprintf(path, sizeof path, "%s/tesserad.conf", dir);
    tsr__config cfg;
    tsr__config_clear(&cfg);
    bool found = true;
    ASSERT_OK(tsr__config_load(&cfg, path, true, &found, &fake_names));
    ASSERT_FALSE(found);
    char want[160];
    snprintf(want, sizeof want, "cannot read %s: No such file or directory", path);
    ASSERT_FAIL(tsr__config_load(&cfg, path, false, &found, &fake_names), TSR_ERR_IO, want);

    ASSERT_TRUE(write_text(path, "sessions.max = 3\nlog.level = verbose\n"));
    snprintf(want, sizeof want,
             "%s:2: log.level: unknown log level 'verbose' (expected err, warning, notice, info or "
             "debug)",
             path);
    ASSERT_FAIL(tsr__config_load(&cfg, path, true, &found, &fake_names), TSR_ERR_INVALID_ARGUMENT,
                want);
    ASSERT_TRUE(write_text(path, "sessions.max = 3\n"));
    tsr__config_clear(&cfg);
    ASSERT_OK(tsr__config_load(&cfg, path, false, &found, &fake_names));
    ASSERT_TRUE(found);
    ASSERT_EQ(cfg.v[TSR__CONF_MAX_SESSIONS].number, 3);
    unlink(path);
    rmdir(dir);
    tsr__config_free(&cfg);
}

/* The drop-ins of PATH.d: every NAME.conf but hidden ones, in name order,
 * a later one overriding an earlier one key by key and a limit by id; an
 * error names the drop-in's own file and line. */
static void test_dropins(void)
{
    char dir[] = "/tmp/tessera-dropins.XXXXXX";
    ASSERT_TRUE(mkdtemp(dir) != NULL);
    char path[96], d[128], f[200];
    snprintf(path, sizeof path, "%s/tesserad.conf", dir);
    snprintf(d, sizeof d, "%s.d", path);
    ASSERT_EQ(mkdir(d, 0755), 0);
    ASSERT_TRUE(write_text(path, "memory_limit.daemon = 1G\nlog.level = debug\n"
                                 "memory_limit.uid.alice = 1G\n"));
    snprintf(f, sizeof f, "%s/20-b.conf", d);
    ASSERT_TRUE(write_text(f, "memory_limit.daemon = 4G\n"));
    snprintf(f, sizeof f, "%s/10-a.conf", d);
    ASSERT_TRUE(write_text(f, "memory_limit.daemon = 2G\nmemory_limit.uid.alice = 3G\n"
                              "memory_limit.uid.carol = 1G\n"));
    snprintf(f, sizeof f, "%s/.30-hidden.conf", d);
    ASSERT_TRUE(write_text(f, "log.level = err\n"));
    snprintf(f, sizeof f, "%s/40-c.conf.dpkg-old", d);
    ASSERT_TRUE(write_text(f, "this is not read\n"));

    tsr__config cfg;
    tsr__config_clear(&cfg);
    bool found = false;
    ASSERT_OK(tsr__config_load(&cfg, path, false, &found, &fake_names));
    ASSERT_TRUE(found);
    ASSERT_UEQ(cfg.v[TSR__CONF_MEMORY_DAEMON].limit.value, 4ull << 30);
    ASSERT_EQ(cfg.v[TSR__CONF_LOG_LEVEL].number, 7);
    ASSERT_EQ(cfg.uid_count, 1);
    ASSERT_UEQ(tsr__config_uid_limit(&cfg, 1000)->limit.value, 3ull << 30);
    ASSERT_EQ(cfg.note_count, 1);
    char want[512];
    snprintf(want, sizeof want, "%s/10-a.conf:3: memory_limit.uid.carol: no such user", d);
    ASSERT_TRUE(strncmp(cfg.notes[0], want, strlen(want)) == 0);
    tsr__config_free(&cfg);

    /* The drop-ins alone, with no main file. */
    unlink(path);
    tsr__config_clear(&cfg);
    found = false;
    ASSERT_OK(tsr__config_load(&cfg, path, true, &found, &fake_names));
    ASSERT_TRUE(found);
    ASSERT_UEQ(cfg.v[TSR__CONF_MEMORY_DAEMON].limit.value, 4ull << 30);
    tsr__config_free(&cfg);

    /* A bad drop-in is an error naming it. */
    snprintf(f, sizeof f, "%s/15-bad.conf", d);
    ASSERT_TRUE(write_text(f, "log.level = loud\n"));
    snprintf(want, sizeof want,
             "%s:1: log.level: unknown log level 'loud' (expected err, warning, notice, info or "
             "debug)",
             f);
    tsr__config_clear(&cfg);
    ASSERT_FAIL(tsr__config_load(&cfg, path, true, &found, &fake_names), TSR_ERR_INVALID_ARGUMENT,
                want);
    tsr__config_free(&cfg);
    unlink(f);

    /* /dev/null, the way to say "no file", has no drop-ins. */
    tsr__config_clear(&cfg);
    ASSERT_OK(tsr__config_load(&cfg, "/dev/null", false, &found, &fake_names));
    ASSERT_FALSE(cfg.v[TSR__CONF_MEMORY_DAEMON].set);
    tsr__config_free(&cfg);

    const char *left[] = {"10-a.conf", "20-b.conf", ".30-hidden.conf", "40-c.conf.dpkg-old"};
    for (size_t k = 0; k < 4; k++) {
        snprintf(f, sizeof f, "%s/%s", d, left[k]);
        unlink(f);
    }
    rmdir(d);
    rmdir(dir);
}

/* Which unit, slice and cgroup line applies: the most specific glob, the
 * deepest cgroup, and for devices cgroup before unit before slice. */
static void test_place_lines(void)
{
    tsr__config cfg;
    tsr__config_clear(&cfg);
    ASSERT_OK(parse(&cfg, "memory_limit.unit.*.scope = 1G\n"
                          "memory_limit.unit.job*.scope = 2G\n"
                          "memory_limit.unit.job42.scope = 3G\n"
                          "memory_limit.unit.job?[0-9].scope = 4G\n"
                          "memory_limit.cgroup./a = 5G\n"
                          "memory_limit.cgroup./a/b = 6G\n"
                          "memory_limit.cgroup./ = 7G\n"
                          "devices.visible.slice.*.slice = 0\n"
                          "devices.visible.unit.job*.scope = 1\n"
                          "devices.visible.cgroup./a/b = none\n"
                          "memory_limit.unit.a\\x2d*.service = 8G\n"));
    const tsr__config_match *list = cfg.matches;
    size_t n = cfg.match_count;
#define FIND(key, ...) tsr__config_match_find(list, n, key, (tsr__place){__VA_ARGS__})
#define LIMIT_OF(m) ((m) ? (m)->limit.value >> 30 : 0)
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_UNIT, .unit = "job42.scope")), 3);
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_UNIT, .unit = "job17.scope")), 4);
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_UNIT, .unit = "jobx.scope")), 2);
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_UNIT, .unit = "run-1.scope")), 1);
    ASSERT_TRUE(FIND(TSR__CONF_MEMORY_UNIT, .unit = "job42.service") == NULL);
    /* A backslash is itself, as in systemd's escaped names. */
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_UNIT, .unit = "a\\x2db.service")), 8);
    ASSERT_TRUE(FIND(TSR__CONF_MEMORY_UNIT, .unit = "ax2db.service") == NULL);
    ASSERT_TRUE(FIND(TSR__CONF_MEMORY_UNIT, .unit = "") == NULL);
    ASSERT_TRUE(FIND(TSR__CONF_MEMORY_UNIT, .slice = "job42.scope") == NULL);
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_CGROUP, .cgroup = "/a/b/c.scope")), 6);
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_CGROUP, .cgroup = "/a/b")), 6);
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_CGROUP, .cgroup = "/a/bc")), 5);
    ASSERT_EQ(LIMIT_OF(FIND(TSR__CONF_MEMORY_CGROUP, .cgroup = "/ab")), 7);
    ASSERT_TRUE(tsr__config_cgroup_under("/a/b", "/a") && !tsr__config_cgroup_under("/ab", "/a"));
    const tsr__config_match *m =
        tsr__config_visible_for(&cfg, (tsr__place){"/a/b/job1.scope", "job1.scope", "x.slice"});
    ASSERT_TRUE(m && m->key == TSR__CONF_VISIBLE_CGROUP && m->device_count == 0);
    m = tsr__config_visible_for(&cfg, (tsr__place){"/x.slice/job1.scope", "job1.scope", "x.slice"});
    ASSERT_TRUE(m && m->key == TSR__CONF_VISIBLE_UNIT && m->devices[0] == 1);
    m = tsr__config_visible_for(&cfg, (tsr__place){"/x.slice/y.service", "y.service", "x.slice"});
    ASSERT_TRUE(m && m->key == TSR__CONF_VISIBLE_SLICE && m->devices[0] == 0);
    ASSERT_TRUE(tsr__config_visible_for(&cfg, (tsr__place){"/", "", ""}) == NULL);
    ASSERT_TRUE(tsr__config_visible_for(&cfg, (tsr__place){0}) == NULL);
#undef FIND
#undef LIMIT_OF
    /* A drop-in's line for a pattern replaces it in place; the command
     * line replaces a file's line. */
    tsr__config over;
    tsr__config_clear(&over);
    ASSERT_OK(parse(&over, "memory_limit.unit.job*.scope = 9G\n"));
    ASSERT_OK(tsr__config_merge(&cfg, &over));
    ASSERT_EQ(cfg.match_count, 11);
    ASSERT_UEQ(cfg.matches[1].limit.value, 9ull << 30);
    ASSERT_OK(tsr__config_set(&cfg, "--set", "memory_limit.unit.job*.scope", "1G", &fake_names));
    ASSERT_UEQ(cfg.matches[1].limit.value, 1ull << 30);
    ASSERT_FALSE(tsr__config_equal(&cfg, &over, TSR__CONF_MEMORY_UNIT));
    ASSERT_TRUE(tsr__config_equal(&cfg, &cfg, TSR__CONF_MEMORY_UNIT));
    tsr__config_free(&over);
    tsr__config_free(&cfg);
}

/* A client's place from its /proc/PID/cgroup: the unified line only,
 * the innermost unit and slice, and nothing from a file that is not the
 * kernel's or a path too long to keep whole. */
static void test_place_of_cgroup_file(void)
{
    tsr__proc_place p;
    const char *hybrid = "9:name=systemd:/user.slice/u.service\n4:memory:/x\n"
                         "0::/tessera-test.slice/inner.slice/job42.scope/sub\n";
    tsr__proc_place_parse(hybrid, strlen(hybrid), &p);
    ASSERT_STREQ(p.cgroup, "/tessera-test.slice/inner.slice/job42.scope/sub");
    ASSERT_STREQ(p.unit, "job42.scope");
    ASSERT_STREQ(p.slice, "inner.slice");
    const char *root = "0::/\n";
    tsr__proc_place_parse(root, strlen(root), &p);
    ASSERT_TRUE(strcmp(p.cgroup, "/") == 0 && !p.unit[0] && !p.slice[0]);
    static const char *const refused[] = {"0::/a/../b.scope\n",
                                          "0::relative.scope\n",
                                          "0::/a//b.scope\n",
                                          "0::/a\001b.scope\n",
                                          "garbage\n",
                                          "4:memory:/only-v1.scope\n",
                                          ""};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        memset(&p, 'x', sizeof p);
        tsr__proc_place_parse(refused[k], strlen(refused[k]), &p);
        ASSERT_TRUE(!p.cgroup[0] && !p.unit[0] && !p.slice[0]);
    }
    /* 511 bytes are kept; 512 are too many (not cut to a prefix). */
    char text[600] = "0::/";
    memset(text + 4, 'a', 510);
    strcpy(text + 514, "\n");
    tsr__proc_place_parse(text, strlen(text), &p);
    ASSERT_EQ(strlen(p.cgroup), 511);
    memset(text + 4, 'a', 511);
    strcpy(text + 515, "\n");
    tsr__proc_place_parse(text, strlen(text), &p);
    ASSERT_EQ(strlen(p.cgroup), 0);
}

/* What tsr__config_write prints reads back as the same configuration. */
static void test_written_form(void)
{
    tsr__config cfg, again;
    ASSERT_OK(tsr__config_init(&cfg, &fake_names));
    ASSERT_OK(parse(&cfg, every_key));
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    tsr__config_write(out, &cfg);
    fclose(out);
    ASSERT_TRUE(strstr(text, "\nmemory_limit.uid.alice = 8GiB\n") != NULL);
    ASSERT_TRUE(strstr(text, "\nmemory_limit.uid.1234 = unlimited\n") != NULL);
    ASSERT_TRUE(strstr(text, "\nsocket.mode = 600\n") != NULL);
    ASSERT_TRUE(strstr(text, "\ndevices.visible.unit.job*.scope = 1\n") != NULL);
    ASSERT_TRUE(strstr(text, "\nmemory_limit.cgroup./ = unlimited\n") != NULL);
    ASSERT_OK(tsr__config_init(&again, &fake_names));
    ASSERT_OK(tsr__config_parse(&again, "written", text, len, &fake_names));
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++)
        ASSERT_TRUE(tsr__config_equal(&cfg, &again, (tsr__config_key_id)k));
    free(text);
    tsr__config_free(&again);
    tsr__config_free(&cfg);
}

int main(void)
{
    test_every_key();
    test_errors();
    test_unknown_names();
    test_dropins();
    test_defaults_and_environment();
    test_overrides();
    test_load();
    test_place_lines();
    test_place_of_cgroup_file();
    test_written_form();
    TEST_DONE();
}
