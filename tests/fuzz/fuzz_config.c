/* Fuzz target: tesserad's configuration file parser (daemon/config.c).
 *
 * The input is a whole configuration file. It is parsed with a resolver
 * that knows a fixed few user and group names (so no run depends on the
 * machine's databases), and:
 *   - a failure leaves a message that names the file and a line that
 *     exists ("fuzz.conf:N: ...");
 *   - a success survives a round trip: what tsr__config_write prints
 *     parses again, to a configuration equal key by key, with the same
 *     keys set;
 *   - the input's first line, read as KEY=VALUE, goes through
 *     tsr__config_set (the --set path), whose messages name "--set". */
#include "config/support_config.h"
#include "daemon/config.h"
#include "fuzz.h"

static unsigned count_lines(const uint8_t *data, size_t size)
{
    unsigned n = 1;
    for (size_t k = 0; k < size; k++)
        n += data[k] == '\n';
    return n;
}

static void check_failure(tsr_status st, const uint8_t *data, size_t size)
{
    FUZZ_CHECK_FAILED(st);
    if (st == TSR_ERR_OUT_OF_MEMORY)
        return;
    FUZZ_CHECK(st == TSR_ERR_INVALID_ARGUMENT);
    const char *msg = tsr_last_error();
    FUZZ_CHECK(strncmp(msg, "fuzz.conf:", 10) == 0);
    char *end;
    unsigned long line = strtoul(msg + 10, &end, 10);
    FUZZ_CHECK(end != msg + 10 && strncmp(end, ": ", 2) == 0);
    FUZZ_CHECK(line >= 1 && line <= count_lines(data, size));
}

static void check_round_trip(const tsr__config *cfg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    FUZZ_CHECK(out != NULL);
    tsr__config_write(out, cfg);
    fclose(out);

    tsr__config again;
    tsr__config_clear(&again);
    tsr_status st = tsr__config_parse(&again, "written.conf", text, len, &fake_names);
    if (st != TSR_OK)
        fprintf(stderr, "the written configuration does not parse: %s\n%s", tsr_last_error(), text);
    FUZZ_CHECK(st == TSR_OK);
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        FUZZ_CHECK(tsr__config_equal(cfg, &again, (tsr__config_key_id)k));
        FUZZ_CHECK(cfg->v[k].set == again.v[k].set);
    }
    tsr__config_free(&again);
    free(text);
}

/* The first line as `--set KEY=VALUE`. */
static void check_set(const char *text)
{
    char line[TSR__CONFIG_LINE_MAX + 1];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(text, "\n"), text);
    char *eq = strchr(line, '=');
    if (!eq)
        return;
    *eq = '\0';
    tsr__config cfg;
    tsr__config_clear(&cfg);
    tsr_status st = tsr__config_set(&cfg, "--set", line, eq + 1, &fake_names);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(strncmp(tsr_last_error(), "--set: ", 7) == 0);
    }
    tsr__config_free(&cfg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    tsr__config cfg;
    tsr__config_clear(&cfg);
    tsr_status st = tsr__config_parse(&cfg, "fuzz.conf", (const char *)data, size, &fake_names);
    if (st != TSR_OK)
        check_failure(st, data, size);
    else
        check_round_trip(&cfg);
    tsr__config_free(&cfg);

    char *text = fuzz_cstring(data, size);
    check_set(text);
    free(text);
    return 0;
}
