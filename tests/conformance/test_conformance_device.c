/* Conformance: devices against torch.device (data/device.txt).
 *   parse  tsr_device_parse: str(), repr(), .index, or the error
 *   make   tsr_device_make: torch.device(type), (type, None), (type, index)
 *   equal  tsr_device_equal: torch.device(a) == torch.device(b)
 * "<LIST>" in an expected message stands for tsr_device_type_list(): PyTorch 1.13's list
 * of device types is not 2.9's. */
#include <string.h>

#include "support_table.h"
#include "test.h"

/* The expected message with <LIST> replaced by Tessera's list of device types. */
static const char *expand_list(const char *msg, char *buf, size_t n)
{
    const char *at = strstr(msg, "<LIST>");
    if (!at)
        return msg;
    snprintf(buf, n, "%.*s%s%s", (int)(at - msg), msg, tsr_device_type_list(), at + 6);
    return buf;
}

/* Checks a parse/make outcome against fields [first, ...): str | repr | index,
 * "ERROR <message>" or "STATUS <status>". */
static void check_outcome(const table_row *row, int first, tsr_status st, tsr_device dev)
{
    const char *expected = row->fields[first];
    const char *msg = table_error_message(expected);
    if (msg) {
        char buf[1024];
        table_expect_error(st, TSR_ERR_RUNTIME, expand_list(msg, buf, sizeof(buf)));
        return;
    }
    if (!table_expect(st, expected, TSR_ERR_RUNTIME))
        return;
    if (row->nfields != first + 3) {
        table_fail("expected str | repr | index");
        return;
    }
    char buf[TSR_DEVICE_STR_MAX];
    size_t len = tsr_device_str(dev, buf, sizeof(buf));
    if (strcmp(buf, row->fields[first]) != 0 || len != strlen(row->fields[first]))
        table_fail("tsr_device_str gave \"%s\" (length %zu)", buf, len);
    len = tsr_device_repr(dev, buf, sizeof(buf));
    if (strcmp(buf, row->fields[first + 1]) != 0 || len != strlen(row->fields[first + 1]))
        table_fail("tsr_device_repr gave \"%s\" (length %zu)", buf, len);
    int64_t index;
    if (table_int(row->fields[first + 2], &index) && dev.index != index)
        table_fail("index %d", (int)dev.index);
}

static bool parse_how(const char *text, tsr_index_arg *how)
{
    static const char *names[] = {"omitted", "none", "given"};
    static const tsr_index_arg values[] = {TSR_INDEX_OMITTED, TSR_INDEX_NONE, TSR_INDEX_GIVEN};
    for (int i = 0; i < 3; i++)
        if (strcmp(text, names[i]) == 0) {
            *how = values[i];
            return true;
        }
    table_fail("unknown index argument kind \"%s\"", text);
    return false;
}

static bool parse_device(const char *text, tsr_device *out)
{
    if (tsr_device_parse(text, out) == TSR_OK)
        return true;
    table_fail("tsr_device_parse(\"%s\") failed: %s", text, tsr_last_error());
    return false;
}

int main(void)
{
    table *t = table_load("data/device.txt");
    int parses = 0, makes = 0, equals = 0;
    TABLE_FOREACH(t, row)
    {
        const char *kind = row->fields[0];
        tsr_device dev = {TSR_DEVICE_TYPE_COUNT, -99};
        if (strcmp(kind, "parse") == 0 && table_fields(row, 3, 5)) {
            tsr_device before = dev;
            tsr_status st = tsr_device_parse(row->fields[1], &dev);
            if (st != TSR_OK && (dev.type != before.type || dev.index != before.index))
                table_fail("a failing tsr_device_parse wrote its out-parameter");
            check_outcome(row, 2, st, dev);
            parses++;
        } else if (strcmp(kind, "make") == 0 && table_fields(row, 5, 7)) {
            tsr_index_arg how;
            int64_t index = 0;
            if (!parse_how(row->fields[2], &how))
                continue;
            if (strcmp(row->fields[3], "-") != 0 && !table_int(row->fields[3], &index))
                continue;
            check_outcome(row, 4, tsr_device_make(row->fields[1], how, index, &dev), dev);
            makes++;
        } else if (strcmp(kind, "equal") == 0 && table_fields(row, 4, 4)) {
            tsr_device a, b;
            bool want;
            if (!parse_device(row->fields[1], &a) || !parse_device(row->fields[2], &b) ||
                !table_bool(row->fields[3], &want))
                continue;
            if (tsr_device_equal(a, b) != want || tsr_device_equal(b, a) != want)
                table_fail("tsr_device_equal gave %s", want ? "false" : "true");
            equals++;
        } else if (strcmp(kind, "parse") && strcmp(kind, "make") && strcmp(kind, "equal")) {
            table_fail("unknown row kind \"%s\"", kind);
        }
    }
    printf("%d parse, %d make, %d equal rows\n", parses, makes, equals);
    ASSERT_TRUE(parses > 0 && makes > 0 && equals > 0);
    ASSERT_EQ(table_finish(t), 0);
    table_free(t);
    TEST_DONE();
}
