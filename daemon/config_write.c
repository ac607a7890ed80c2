/* The texts written from the key table (see config.h): the option part of
 * `tesserad --help`, the configuration file `--print-config` writes (the
 * sample, when nothing is set), and the key reference of
 * docs/configuration.md. Only the table's public rows are used, so what
 * they say is what the parser does. */
#include <stdio.h>
#include <string.h>

#include "daemon/config.h"

/* Writes `text` wrapped to `width` columns, each line after `prefix`. */
static void wrap(FILE *out, const char *prefix, size_t width, const char *text)
{
    size_t room = width > strlen(prefix) + 20 ? width - strlen(prefix) : 20;
    while (*text) {
        size_t n = strlen(text);
        if (n > room) {
            n = room;
            while (n > 0 && text[n] != ' ')
                n--;
            if (n == 0)
                n = strcspn(text, " ");
        }
        fprintf(out, "%s%.*s\n", prefix, (int)n, text);
        text += n;
        while (*text == ' ')
            text++;
    }
}

/* "Default: X. A change needs a restart." or "... SIGHUP applies a change." */
static void describe_default(char *buf, size_t n, const tsr__config_key *key)
{
    const char *def = key->default_text ? key->default_text : key->default_value;
    snprintf(buf, n, "Default: %s. %s", def,
             key->restart ? "A change needs a restart." : "SIGHUP applies a change.");
}

void tsr__config_write_help(FILE *out)
{
    char line[1024];
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)k);
        if (!key->option)
            continue;
        fprintf(out, "    --%s %s\n", key->option, key->metavar);
        wrap(out, "        ", 80, key->help);
        char def[512];
        describe_default(def, sizeof def, key);
        snprintf(line, sizeof line, "Key %s. %s", key->name, def);
        wrap(out, "        ", 80, line);
    }
}

void tsr__config_write_manual(FILE *out)
{
    fputs("NAME\n"
          "    tesserad.conf - the configuration file of tesserad\n"
          "\n"
          "SYNOPSIS\n"
          "    " TSR__CONFIG_DEFAULT_PATH "\n"
          "\n"
          "DESCRIPTION\n"
          "    tesserad reads this file when it starts (a missing file means every\n"
          "    key keeps its default) and again on SIGHUP (systemctl reload\n"
          "    tesserad), which applies what it can: a key whose change needs a\n"
          "    restart keeps its old value until then, and a file with an error\n"
          "    changes nothing. tesserad --config FILE reads FILE instead, which\n"
          "    must exist. The file must be a regular file of at most 1 MiB.\n"
          "\n"
          "    Then the drop-ins of " TSR__CONFIG_DEFAULT_PATH ".d/ (with --config\n"
          "    FILE, of FILE.d/) are read: every NAME.conf there but hidden ones,\n"
          "    in name order, each a file of its own applied over what came before,\n"
          "    so that a later file overrides an earlier one key by key, a limit\n"
          "    by user or group, and a unit, slice or cgroup line by its pattern.\n"
          "\n"
          "    One key = value per line. Blanks around the key and the value are\n"
          "    ignored; the value is everything after the first =. Blank lines and\n"
          "    lines whose first non-blank character is # are comments; a # anywhere\n"
          "    else is part of the value. Keys are written in full, each at most\n"
          "    once. Lines are at most 4096 bytes, values at most 511. An error\n"
          "    names the file, the line and the key.\n"
          "\n"
          "    Each setting comes from the first of: the command line (--set\n"
          "    KEY=VALUE, or the key's own option), this file, the environment\n"
          "    ($TESSERA_SOCKET for socket.path), the built-in default. Sizes are\n"
          "    bytes or a number with K, M, G or T (powers of 1024: 4GiB, 512M);\n"
          "    memory limits may also be a percentage of the device's memory\n"
          "    (50%) or unlimited.\n"
          "\n"
          "KEYS\n",
          out);
    char line[1024];
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)k);
        char def[512];
        describe_default(def, sizeof def, key);
        fprintf(out, "    %s%s = %s\n", key->name, key->suffix ? key->suffix : "",
                key->metavar ? key->metavar : "VALUE");
        wrap(out, "        ", 80, key->help);
        if (key->option)
            snprintf(line, sizeof line, "%s Also tesserad --%s.", def, key->option);
        else
            snprintf(line, sizeof line, "%s", def);
        wrap(out, "        ", 80, line);
    }
    fputs("\n"
          "EXAMPLES\n"
          "    socket.group = tessera\n"
          "    memory_limit.uid_default = 25%\n"
          "    memory_limit.uid.alice = 8GiB\n"
          "    memory_limit.group.ml = 50%\n"
          "    devices.visible.unit.job*.scope = 1\n"
          "    memory_limit.slice.batch.slice = 24GiB\n"
          "    memory_limit.cgroup./kubepods.slice = 75%\n"
          "    log.level = notice\n"
          "\n"
          "FILES\n"
          "    " TSR__CONFIG_DEFAULT_PATH ".d/*.conf\n"
          "        Drop-ins, read after the file in name order.\n"
          "    " TSR__CONFIG_DEFAULT_PATH "\n"
          "        The configuration file. tesserad --print-config prints the\n"
          "        configuration in force in this format; with no file and no\n"
          "        options, the sample configuration (share/doc/tessera/tesserad.conf).\n"
          "\n"
          "SEE ALSO\n"
          "    tesserad(8), tessera(1)\n",
          out);
}

static const char sample_header[] =
    "# tesserad.conf: the configuration of tesserad, the Tessera device daemon.\n"
    "#\n"
    "# tesserad reads " TSR__CONFIG_DEFAULT_PATH " when it starts (no file: all\n"
    "# defaults), or the file named by `tesserad --config FILE`. One `key = value`\n"
    "# per line; blank lines and lines starting with # are ignored. Command-line\n"
    "# options override this file. SIGHUP (`systemctl reload tesserad`) reads it\n"
    "# again and applies what it can; keys whose change needs a restart keep their\n"
    "# old value until then. Sizes: 4096, 512M, 2GiB (K, M, G, T are powers of\n"
    "# 1024). Keys left at their default are commented out.\n";

static void write_entries(FILE *out, const tsr__config_key *key, const tsr__config_id_limit *list,
                          size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (list[k].name[0])
            fprintf(out, "%s%s = %s\n", key->name, list[k].name, list[k].text);
        else
            fprintf(out, "%s%u = %s\n", key->name, (unsigned)list[k].id, list[k].text);
    }
    if (n == 0)
        fprintf(out, "#%s%s = %s\n", key->name, key->example_name, key->example);
}

/* The lines of one unit, slice or cgroup key, else its sample line. */
static void write_matches(FILE *out, tsr__config_key_id id, const tsr__config *cfg)
{
    const tsr__config_key *key = tsr__config_key_at(id);
    size_t n = 0;
    for (size_t k = 0; k < cfg->match_count; k++) {
        if (cfg->matches[k].key != id)
            continue;
        fprintf(out, "%s%s = %s\n", key->name, cfg->matches[k].pattern, cfg->matches[k].text);
        n++;
    }
    if (n == 0)
        fprintf(out, "#%s%s = %s\n", key->name, key->example_name, key->example);
}

void tsr__config_write(FILE *out, const tsr__config *cfg)
{
    fputs(sample_header, out);
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)k);
        char text[1024], def[512];
        describe_default(def, sizeof def, key);
        if (key->option)
            snprintf(text, sizeof text, "%s (--%s): %s %s", key->name, key->option, key->help, def);
        else
            snprintf(text, sizeof text, "%s%s: %s %s", key->name, key->suffix ? key->suffix : "",
                     key->help, def);
        fputs("\n", out);
        wrap(out, "# ", 78, text);
        if (key == tsr__config_key_at(TSR__CONF_MEMORY_UID))
            write_entries(out, key, cfg->uids, cfg->uid_count);
        else if (key == tsr__config_key_at(TSR__CONF_MEMORY_GROUP))
            write_entries(out, key, cfg->groups, cfg->group_count);
        else if (key->suffix)
            write_matches(out, (tsr__config_key_id)k, cfg);
        else if (cfg->v[k].set)
            fprintf(out, "%s = %s\n", key->name, cfg->v[k].text);
        else
            fprintf(out, "#%s = %s\n", key->name,
                    key->default_value ? key->default_value : key->example);
    }
}

/* Markdown text: angle brackets ("<user>") escaped, so no renderer takes
 * them for HTML. */
static void put_markdown(FILE *out, const char *text)
{
    for (; *text; text++) {
        if (*text == '<')
            fputs("&lt;", out);
        else if (*text == '>')
            fputs("&gt;", out);
        else
            fputc(*text, out);
    }
}

void tsr__config_write_reference(FILE *out)
{
    for (int k = 0; k < TSR__CONF_KEY_COUNT; k++) {
        const tsr__config_key *key = tsr__config_key_at((tsr__config_key_id)k);
        const char *suffix = key->suffix ? key->suffix : "";
        fprintf(out, "%s### `%s%s`\n\n", k ? "\n" : "", key->name, suffix);
        if (key->option)
            fprintf(out, "Option: `--%s %s`. ", key->option, key->metavar);
        else
            fprintf(out, "Option: `--set %s%s=%s`. ", key->name, suffix, key->metavar);
        char def[512];
        describe_default(def, sizeof def, key);
        put_markdown(out, def);
        fputs("\n\n", out);
        put_markdown(out, key->help);
        fputs("\n", out);
    }
}
