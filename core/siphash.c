/* See siphash.h. Follows the reference implementation's rounds. */
#include "core/siphash.h"

static uint64_t load64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

static uint64_t rotl(uint64_t x, int b)
{
    return x << b | x >> (64 - b);
}

#define SIPROUND           \
    do {                   \
        v0 += v1;          \
        v1 = rotl(v1, 13); \
        v1 ^= v0;          \
        v0 = rotl(v0, 32); \
        v2 += v3;          \
        v3 = rotl(v3, 16); \
        v3 ^= v2;          \
        v0 += v3;          \
        v3 = rotl(v3, 21); \
        v3 ^= v0;          \
        v2 += v1;          \
        v1 = rotl(v1, 17); \
        v1 ^= v2;          \
        v2 = rotl(v2, 32); \
    } while (0)

uint64_t tsr__siphash24(const uint8_t key[TSR__SIPHASH_KEY_BYTES], const void *data, size_t n)
{
    const uint8_t *in = data;
    uint64_t k0 = load64(key), k1 = load64(key + 8);
    uint64_t v0 = k0 ^ UINT64_C(0x736f6d6570736575), v1 = k1 ^ UINT64_C(0x646f72616e646f6d),
             v2 = k0 ^ UINT64_C(0x6c7967656e657261), v3 = k1 ^ UINT64_C(0x7465646279746573);
    size_t whole = n - n % 8;
    for (size_t at = 0; at < whole; at += 8) {
        uint64_t m = load64(in + at);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t last = (uint64_t)(n & 0xff) << 56;
    for (size_t k = 0; k < n % 8; k++)
        last |= (uint64_t)in[whole + k] << (8 * k);
    v3 ^= last;
    SIPROUND;
    SIPROUND;
    v0 ^= last;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t tsr__fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t k = 0; k < n; k++) {
        h ^= p[k];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
