/* Fuzz target: the text form of export handles (tsr_export_handle_parse).
 *
 * The input is one text. A text the parser accepts must be exactly the
 * handle's canonical form (tsr_export_handle_str of what it read gives the
 * same bytes back); one it refuses must leave the output alone and set a
 * message. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    if (!text)
        return 0;
    tsr_export_handle h, untouched;
    memset(&h, 0x5a, sizeof h);
    untouched = h;
    tsr_status st = tsr_export_handle_parse(text, &h);
    if (st != TSR_OK) {
        FUZZ_CHECK_FAILED(st);
        FUZZ_CHECK(memcmp(&h, &untouched, sizeof h) == 0);
    } else {
        char back[TSR_EXPORT_HANDLE_STR_MAX];
        FUZZ_CHECK(tsr_export_handle_str(&h, back, sizeof back) == TSR_EXPORT_HANDLE_STR_MAX - 1);
        FUZZ_CHECK(strcmp(back, text) == 0);
    }
    free(text);
    return 0;
}
