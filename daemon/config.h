/* tesserad's configuration: /etc/tessera/tesserad.conf, `--config FILE`,
 * command-line options and `--set KEY=VALUE`.
 *
 * One table of keys (config.c) is the only description of the settings:
 * the file parser, the command-line options, validation, defaults, the
 * option part of `tesserad --help`, the sample file `--print-config`
 * writes (systemd/tesserad.conf) and the key reference of
 * docs/configuration.md all come from it, and tests hold the two files to
 * it.
 *
 * The file is flat: `key = value` per line, blank lines, and comment lines
 * whose first non-blank character is `#`. Keys are lower case with dots
 * (`socket.path`, `memory_limit.uid.alice`); white space around the key
 * and the value is ignored, and the value is everything after the first
 * `=`, `#` included. A key may appear once per file. Every error names its
 * place: "FILE:LINE: KEY: what is wrong", or "--option: what is wrong".
 *
 * Values come, weakest first, from the table's defaults, the environment
 * variable the table names ($TESSERA_SOCKET for socket.path), the file,
 * and the command line. cache.directory has no built-in value: unset, the
 * kernel executor picks its own (daemon/exec.c). A tsr__config owns its lists; tsr__config_free
 * releases them. Nothing here logs: messages go to tsr_last_error(). */
#ifndef TESSERA_DAEMON_CONFIG_H
#define TESSERA_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tessera/status.h"

#define TSR__CONFIG_DEFAULT_PATH "/etc/tessera/tesserad.conf"
/* Longest value (and path) accepted, including the terminating NUL. */
#define TSR__CONFIG_TEXT_MAX 512
/* Longest line in a file, and the largest file. */
#define TSR__CONFIG_LINE_MAX 4096
#define TSR__CONFIG_FILE_MAX (1u << 20)
/* devices.memory: how kernels reach the segments (the number of its value). */
enum { TSR__DEVICE_MEMORY_AUTO, TSR__DEVICE_MEMORY_COPY, TSR__DEVICE_MEMORY_STAGED };
/* Most entries in devices.visible. */
#define TSR__CONFIG_MAX_DEVICES 64
/* kernels.user = auto: every uid where the daemon runs as root (each
 * worker then runs as its user), else the daemon's own uid only. */
#define TSR__USER_KERNELS_AUTO 2
/* devices.matmul_piece = auto: each device's own size (daemon/exec.c). */
#define TSR__MATMUL_PIECE_AUTO 0

/* The keys, in table order (the order of --help, the sample and the docs). */
typedef enum tsr__config_key_id {
    TSR__CONF_SOCKET_PATH,
    TSR__CONF_SOCKET_GROUP,
    TSR__CONF_SOCKET_MODE,
    TSR__CONF_VISIBLE_DEVICES,
    TSR__CONF_VISIBLE_UNIT,   /* devices.visible.unit.<glob>: a list, see matches */
    TSR__CONF_VISIBLE_SLICE,  /* devices.visible.slice.<glob> */
    TSR__CONF_VISIBLE_CGROUP, /* devices.visible.cgroup.<path> */
    TSR__CONF_DEVICE_MEMORY,
    TSR__CONF_HOST_CODE,
    TSR__CONF_HUGE_PAGES,
    TSR__CONF_MATMUL_PIECE, /* 0: TSR__MATMUL_PIECE_AUTO */
    TSR__CONF_MAX_SESSIONS,
    TSR__CONF_MAX_SESSIONS_UID,
    TSR__CONF_MAX_HANDSHAKES_UID,
    TSR__CONF_MAX_MONITORS,
    TSR__CONF_MEMORY_DAEMON,
    TSR__CONF_MEMORY_SESSION,
    TSR__CONF_MEMORY_UID_DEFAULT,
    TSR__CONF_MEMORY_UID,    /* memory_limit.uid.<user>: a list, see uids */
    TSR__CONF_MEMORY_GROUP,  /* memory_limit.group.<group>: a list, see groups */
    TSR__CONF_MEMORY_UNIT,   /* memory_limit.unit.<glob>: a list, see matches */
    TSR__CONF_MEMORY_SLICE,  /* memory_limit.slice.<glob> */
    TSR__CONF_MEMORY_CGROUP, /* memory_limit.cgroup.<path> */
    TSR__CONF_LOG_LEVEL,
    TSR__CONF_CACHE_DIR,
    TSR__CONF_PROBE_TIMEOUT,
    TSR__CONF_USER_KERNELS, /* 0 off, 1 on, TSR__USER_KERNELS_AUTO */
    TSR__CONF_MAX_PROGRAMS,
    TSR__CONF_MAX_SOURCE,
    TSR__CONF_BUILD_TIME,
    TSR__CONF_BUILD_MEMORY,
    TSR__CONF_RUN_TIME,
    TSR__CONF_WORKER_IDLE,
    TSR__CONF_KEY_COUNT
} tsr__config_key_id;

/* A memory limit: none, a byte count, or a percentage (1..100) of the
 * device's total memory, resolved per device by limits.c. */
typedef enum tsr__limit_kind {
    TSR__LIMIT_NONE,
    TSR__LIMIT_BYTES,
    TSR__LIMIT_PERCENT
} tsr__limit_kind;
typedef struct tsr__limit {
    tsr__limit_kind kind;
    uint64_t value; /* bytes, or percent */
} tsr__limit;

/* The value of one scalar key. Which fields mean something depends on the
 * key's kind: text for paths; number for counts, modes, milliseconds, log
 * levels (syslog priorities) and gids (socket.group, with text its name
 * as written); limit for memory limits; devices for devices.visible
 * (device_count 0 with all_devices: every device). */
typedef struct tsr__config_value {
    bool set;                        /* given by a file or the command line */
    char text[TSR__CONFIG_TEXT_MAX]; /* the value as written (or the default) */
    uint64_t number;
    tsr__limit limit;
    bool all_devices;
    uint32_t device_count;
    int32_t devices[TSR__CONFIG_MAX_DEVICES]; /* OpenCL ordinals, in the order given */
} tsr__config_value;

/* One memory_limit.uid.<user> or memory_limit.group.<group> entry. */
typedef struct tsr__config_id_limit {
    uint32_t id;                     /* uid or gid */
    char name[64];                   /* the user or group name when written as one, else "" */
    char text[TSR__CONFIG_TEXT_MAX]; /* the value as written */
    tsr__limit limit;
    unsigned line; /* where the file set it (0: the command line) */
} tsr__config_id_limit;

/* Where a client runs, as the cgroup v2 path its process had when it said
 * HELLO tells (daemon/procinfo.h): that path, its systemd unit (the last
 * component naming a .service or .scope) and its slice (the innermost
 * .slice). NULL or "" where unknown or none. */
typedef struct tsr__place {
    const char *cgroup, *unit, *slice;
} tsr__place;

/* Longest unit or slice pattern (systemd's longest unit name) and cgroup
 * path prefix, including the terminating NUL. */
#define TSR__CONFIG_PATTERN_MAX 256
#define TSR__CONFIG_CGROUP_MAX 512

/* One line keyed on where the client runs: devices.visible.unit.<glob>,
 * .slice.<glob>, .cgroup.<path>, and the same three of memory_limit. A
 * glob (fnmatch(3): *, ?, [...]) matches the whole unit or slice name; a
 * cgroup path matches itself and every cgroup below it. */
typedef struct tsr__config_match {
    tsr__config_key_id key;               /* which of the six keys */
    char pattern[TSR__CONFIG_CGROUP_MAX]; /* the glob or path as written */
    char text[TSR__CONFIG_TEXT_MAX];      /* the value as written */
    tsr__limit limit;                     /* memory_limit.* */
    bool all_devices;                     /* devices.visible.*: as devices.visible */
    uint32_t device_count;
    int32_t devices[TSR__CONFIG_MAX_DEVICES];
    unsigned line; /* where the file set it (0: the command line) */
} tsr__config_match;

/* What a file said that is left out rather than refused: a limit line for
 * a user or group the system does not know (a departed user, a directory
 * service that is down) must not stop the daemon. At most
 * TSR__CONFIG_NOTES are kept, the rest counted. */
#define TSR__CONFIG_NOTES 8
#define TSR__CONFIG_NOTE_MAX 640

typedef struct tsr__config {
    tsr__config_value v[TSR__CONF_KEY_COUNT];
    tsr__config_id_limit *uids, *groups;
    size_t uid_count, group_count;
    /* The lines of the six keys above, in the order they were read (a
     * drop-in's line for a pattern already there replaces it in place). */
    tsr__config_match *matches;
    size_t match_count;
    /* "SOURCE:LINE: KEY: no such user 'bob'; the line is left out", for
     * the daemon to log as warnings after a load (tsr__config_parse adds
     * them; merge and copy leave them). */
    char notes[TSR__CONFIG_NOTES][TSR__CONFIG_NOTE_MAX];
    unsigned note_count, notes_dropped;
} tsr__config;

/* How user and group names become ids: each returns 0 and writes the id,
 * or -1 when the name is unknown. NULL callbacks (or a NULL resolver) use
 * the system's databases (getpwnam_r, getgrnam_r). */
typedef struct tsr__config_resolver {
    int (*user)(void *ctx, const char *name, uint32_t *uid);
    int (*group)(void *ctx, const char *name, uint32_t *gid);
    void *ctx;
} tsr__config_resolver;

/* One row of the key table, for --help and the option parser. */
typedef struct tsr__config_key {
    const char *name;          /* "socket.path"; for a list, its prefix "memory_limit.uid." */
    const char *suffix;        /* for a list: what follows the prefix ("<user>"), else NULL */
    const char *option;        /* long option without dashes ("socket"), or NULL */
    const char *metavar;       /* "PATH" */
    const char *env;           /* environment variable that gives the default, or NULL */
    const char *default_value; /* parsed at init; NULL: unset */
    const char *default_text;  /* the default as the help and docs state it */
    const char *example;       /* a sample line's value ("4GiB") */
    const char *example_name;  /* for a list: a sample line's suffix ("alice") */
    bool restart;              /* a change takes effect only at the next start */
    const char *help;          /* one paragraph, unwrapped */
} tsr__config_key;

const tsr__config_key *tsr__config_key_at(tsr__config_key_id id);

/* Fills cfg with the defaults: the table's, then the environment's. Fails
 * (TSR_ERR_INVALID_ARGUMENT, "$TESSERA_SOCKET: ...") when an environment
 * variable holds a value the key refuses; cfg is then empty but valid. */
tsr_status tsr__config_init(tsr__config *cfg, const tsr__config_resolver *resolver);
/* Empties cfg to no keys set and no defaults (what an override set starts
 * from). */
void tsr__config_clear(tsr__config *cfg);
void tsr__config_free(tsr__config *cfg);

/* Parses a whole file's text (len bytes, NULs included) named `source` in
 * messages, setting each key it names. A memory_limit.uid.NAME or
 * memory_limit.group.NAME line whose NAME the system does not resolve
 * is left out with a note (cfg->notes), its value still checked. On failure cfg keeps what the lines
 * before the bad one set: parse into a scratch config, and keep it only on
 * TSR_OK. Errors: TSR_ERR_INVALID_ARGUMENT "SOURCE:LINE: ..." (see the file
 * header), TSR_ERR_OUT_OF_MEMORY. */
tsr_status tsr__config_parse(tsr__config *cfg, const char *source, const char *text, size_t len,
                             const tsr__config_resolver *resolver);
/* Reads and parses a file, then the drop-ins of PATH.d/ (every NAME.conf
 * but hidden ones, in name order, each a file of its own merged over what
 * came before: a later file overrides an earlier one key by key and a
 * limit by user or group). A missing file is TSR_OK with *found false when
 * missing_ok, else TSR_ERR_IO "cannot read PATH: No such file or
 * directory"; a missing directory is no error; *found says whether any
 * file was read (found may be NULL). Only a regular file of at most
 * TSR__CONFIG_FILE_MAX bytes is read (or /dev/null, as an empty one):
 * anything else is TSR_ERR_INVALID_ARGUMENT "PATH is a FIFO; ...", found
 * out without waiting on it. */
tsr_status tsr__config_load(tsr__config *cfg, const char *path, bool missing_ok, bool *found,
                            const tsr__config_resolver *resolver);

/* Sets one key, as `--set KEY=VALUE` does; errors read "WHERE: KEY: ...". */
tsr_status tsr__config_set(tsr__config *cfg, const char *where, const char *key, const char *value,
                           const tsr__config_resolver *resolver);
/* Sets the key whose long option is `option` ("memory-limit"); errors read
 * "--memory-limit: ...". TSR_ERR_INVALID_ARGUMENT for an option no key has. */
tsr_status tsr__config_set_option(tsr__config *cfg, const char *option, const char *value,
                                  const tsr__config_resolver *resolver);

/* Writes over's set keys into base (list entries by id). */
tsr_status tsr__config_merge(tsr__config *base, const tsr__config *over);
/* A deep copy into dst (which it overwrites without freeing). */
tsr_status tsr__config_copy(tsr__config *dst, const tsr__config *src);
/* Whether key `id` has the same value in a and b. */
bool tsr__config_equal(const tsr__config *a, const tsr__config *b, tsr__config_key_id id);
/* The value of a scalar key as written (or its default), for messages. */
const char *tsr__config_text(const tsr__config *cfg, tsr__config_key_id id);

/* The limit of a uid or gid from the lists, or NULL when it has none. */
const tsr__config_id_limit *tsr__config_uid_limit(const tsr__config *cfg, uint32_t uid);
const tsr__config_id_limit *tsr__config_group_limit(const tsr__config *cfg, uint32_t gid);

/* Of the lines of `key` (one of the six unit, slice and cgroup keys) in
 * list (a tsr__config's matches or a copy), the
 * one that applies to a client at `where`, NULL when none does. Several
 * may match: for a cgroup key the longest path wins (the deepest cgroup
 * named); for a glob the one with the most characters that are not
 * wildcards (job42.scope before job*.scope before *.scope), the earlier
 * line on a tie. */
const tsr__config_match *tsr__config_match_find(const tsr__config_match *list, size_t count,
                                                tsr__config_key_id key, tsr__place where);
/* Whether cgroup `path` is `prefix` or below it ("/a/b" is below "/a",
 * "/ab" is not). */
bool tsr__config_cgroup_under(const char *path, const char *prefix);
/* The devices.visible.* line that decides a client's devices, NULL when
 * none does (devices.visible then): the cgroup line that applies, else the
 * unit's, else the slice's. */
const tsr__config_match *tsr__config_visible_for(const tsr__config *cfg, tsr__place where);

/* The OPTIONS entries of the keys that have an option, man-page style. */
void tsr__config_write_help(FILE *out);
/* cfg as a configuration file: every key with its description; keys set
 * by a file or the command line as `key = value`, the others commented out
 * with their default. With nothing set this is the sample file. */
void tsr__config_write(FILE *out, const tsr__config *cfg);
/* The manual of the file, tesserad.conf(5), in the shape of --help texts
 * (tesserad --help-config; `tessera help --roff` makes the page). */
void tsr__config_write_manual(FILE *out);
/* The key reference of docs/configuration.md, in Markdown. */
void tsr__config_write_reference(FILE *out);

/* Syslog priority of a log level name ("info" -> 6), -1 when unknown. */
int tsr__config_log_level(const char *name);

#endif /* TESSERA_DAEMON_CONFIG_H */
