/* SipHash-2-4 against the reference implementation's answers (key
 * 00 01 .. 0f, message 00 01 .. n-1, output read little-endian), as
 * `openssl mac -macopt hexkey:000102030405060708090a0b0c0d0e0f SIPHASH`
 * prints them too: an empty message, a full block, a tail of every
 * length, and a key whose change changes the value. */
#include <stdint.h>
#include <string.h>

#include "test.h"

#include "core/siphash.h"

int main(void)
{
    uint8_t key[16], msg[64];
    for (int k = 0; k < 16; k++)
        key[k] = (uint8_t)k;
    for (int k = 0; k < 64; k++)
        msg[k] = (uint8_t)k;
    static const struct {
        size_t n;
        uint64_t value;
    } vectors[] = {
        {0, UINT64_C(0x726fdb47dd0e0e31)},  {1, UINT64_C(0x74f839c593dc67fd)},
        {7, UINT64_C(0xab0200f58b01d137)},  {8, UINT64_C(0x93f5f5799a932462)},
        {15, UINT64_C(0xa129ca6149be45e5)}, {63, UINT64_C(0x958a324ceb064572)},
    };
    for (size_t k = 0; k < sizeof vectors / sizeof vectors[0]; k++) {
        uint64_t got = tsr__siphash24(key, msg, vectors[k].n);
        if (got != vectors[k].value)
            fprintf(stderr, "length %zu: %016llx, expected %016llx\n", vectors[k].n,
                    (unsigned long long)got, (unsigned long long)vectors[k].value);
        ASSERT_TRUE(got == vectors[k].value);
    }
    uint64_t before = tsr__siphash24(key, msg, 15);
    key[15] ^= 1;
    ASSERT_TRUE(tsr__siphash24(key, msg, 15) != before);
    TEST_DONE();
}
