#!/usr/bin/python3
"""Derives the tables of pow's logarithm in kernels/scalar_math.h and
prints them as C hexadecimal literals.

Run with any Python 3 that has mpmath (Debian's /usr/bin/python3 does):

    /usr/bin/python3 tests/kernels/gen_pow_table.py

pow(x, y) = exp(y log x) needs log x in two words to far below the
result's ulp over |y log x| (up to 745 in float64, 104 in float32), so
its logarithm is table-driven: x = 2^k z with z in [OFF, 2 OFF), OFF
near sqrt2 / 2, and the top 7 bits of the significand of z / OFF (of
bits(x) - bits(OFF)) pick one of N = 128 intervals i, each with a
reciprocal INVC_i (a number of the type, rounded to nearest from the
interval's middle) and -log(INVC_i) in two words:

    log x = k ln2 - log(INVC_i) + log1p(z INVC_i - 1),

where z INVC_i = ph + pl exactly (pl by one fma) and r = ph - 1 is exact
(Sterbenz), |r| <= RMAX. The interval that holds 1 is centred on it
(OFF is placed so) and has INVC = 1, log = 0: near x = 1 the logarithm is
log1p(r) itself, with no cancellation. log1p(r + pl) = r - r^2 / 2 +
r^3 A(r) + pl (1 - r), A the Taylor terms 1/3 - r/4 + ..., as many as
keep the next term below 2^-66 (2^-40 in float32) of r.

Each row of the table is INVC, LOG_HI, LOG_LO with LOG_HI + LOG_LO =
-log(INVC) (LOG_HI rounded to nearest, LOG_LO the rest rounded).
"""

import struct

import mpmath as mp

mp.mp.prec = 200
N = 128


def hexf(v, dbl):
    if dbl:
        return float(v).hex().replace("0x1.", "0x1.") if v != 0 else "0x0.0p+0"
    f = struct.unpack("<f", struct.pack("<f", float(v)))[0]
    if f == 0:
        return "0x0p+0f"
    m, e = mp.frexp(mp.mpf(f))
    mant = int(mp.ldexp(m, 24))  # 24 bits, leading 1 at bit 23
    return "%s0x%d.%06xp%+df" % ("-" if mant < 0 else "", 1, (abs(mant) - (1 << 23)) << 1, e - 1)


def round_t(x, dbl):
    if dbl:
        return mp.mpf(float(x))
    return mp.mpf(struct.unpack("<f", struct.pack("<f", float(x)))[0])


def from_bits(u, dbl):
    if dbl:
        return mp.mpf(struct.unpack("<d", struct.pack("<Q", u))[0])
    return mp.mpf(struct.unpack("<f", struct.pack("<I", u))[0])


def table(dbl):
    mant = 52 if dbl else 23
    one = 0x3FF0000000000000 if dbl else 0x3F800000
    half_sqrt2 = struct.unpack("<Q" if dbl else "<I", struct.pack("<d" if dbl else "<f", 0.7071067811865476))[0]
    step = 1 << (mant - 7)
    # 1 sits where the interval's part below it (ulps of half the size)
    # is as wide as its part above: a = 2 (step - a), a = 2 step / 3.
    start = one - (2 * step) // 3
    off = start - ((start - half_sqrt2) // step) * step
    rows = []
    rmax = mp.mpf(0)
    for i in range(N):
        lo_u = off + i * step
        hi_u = off + (i + 1) * step - 1
        if hi_u >= off + (1 << mant):
            hi_u = off + (1 << mant) - 1
        zlo = from_bits(lo_u, dbl)
        zhi = from_bits(hi_u, dbl)
        if zlo <= 1 <= zhi:
            invc = mp.mpf(1)
        else:
            invc = round_t(2 / (zlo + zhi), dbl)
        lg = -mp.log(invc)
        lh = round_t(lg, dbl)
        ll = round_t(lg - lh, dbl)
        rows.append((invc, lh, ll))
        rmax = max(rmax, abs(zlo * invc - 1), abs(zhi * invc - 1))
    return off, rows, rmax


def main():
    for dbl, name, T in ((False, "POWF", "float"), (True, "POWD", "double")):
        off, rows, rmax = table(dbl)
        terms = 0
        target = mp.mpf(2) ** (-66 if dbl else -40)
        while rmax ** (2 + terms) / (3 + terms) > target:
            terms += 1
        print("/* %s: OFF, |r| <= 2^%.2f, A of %d Taylor terms (next term 2^%.1f of r) */" % (
            name, float(mp.log(rmax, 2)), terms, float(mp.log(rmax ** (2 + terms) / (3 + terms), 2))))
        if dbl:
            print("#define TSR__K_%s_OFF TSR__U64(0x%016X)" % (name, off))
        else:
            print("#define TSR__K_%s_OFF 0x%08Xu" % (name, off))
        for j in range(terms):
            k = j + 3
            v = (1 if k % 2 else -1) * mp.mpf(1) / k
            print("#define TSR__K_%s_A%d %s" % (name, j, hexf(round_t(v, dbl), dbl)))
        print("TSR__K_TABLE %s tsr__k_%s[] = {" % (T, name.lower()))
        for invc, lh, ll in rows:
            print("    %s, %s, %s," % (hexf(invc, dbl), hexf(lh, dbl), hexf(ll, dbl)))
        print("};")


if __name__ == "__main__":
    main()
