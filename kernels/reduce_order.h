/* The one order in which every device combines the elements of a
 * reduction (sum, prod, mean, nansum, nanmean, amax, amin, all, any):
 * written once, for host C and OpenCL C alike (like scalar_ops.h: no
 * pointers, no allocation, no library calls), so that a reduction has the
 * same bits on any number of threads and on every device.
 *
 * The order depends only on R, the number of elements reduced into one
 * output element, and on their logical index r = 0 .. R-1: row-major over
 * the reduced dimensions in their logical order (core/kernel.h, "A
 * reduction"), never their order in memory.
 *
 *   1. Chunks. r is cut into chunks of TSR__RED_CHUNK elements (the last
 *      one shorter): chunk c holds r = c * CHUNK .. c * CHUNK + CHUNK - 1.
 *   2. Lanes. Inside a chunk, TSR__RED_LANES accumulators: lane j starts
 *      at the operation's identity and takes the elements with
 *      r % LANES == j in increasing r, one at a time
 *      (lane[j] = lane[j] (+) x[r]). LANES = 16 float32 lanes are one
 *      AVX-512 register or two AVX2 ones: a compiler vectorises the loop
 *      without changing a bit, as long as it may not reassociate (no
 *      -ffast-math anywhere).
 *      A compensated sum (below) takes a lane's elements two at a time:
 *      the element at chunk offset q, where q % (2 * LANES) < LANES, and
 *      the one LANES after it are added first (x[q] + x[q + LANES], once
 *      rounded, the earlier on the left) and go in as one element; one
 *      whose partner lies past the chunk's end goes in alone.
 *   3. The lanes fold in halves (TSR__RED_FOLD_LANES): for w = 8, 4, 2, 1,
 *      lane[j] = lane[j] (+) lane[j + w] for j < w; lane[0] is the
 *      chunk's value.
 *   4. The chunks combine in a pairwise tree by chunk index: the tree of
 *      chunks c .. c + n - 1 is the chunk itself when n == 1, else
 *      tree(c, p) (+) tree(c + p, n - p) with p = TSR__RED_SPLIT(n), the
 *      largest power of two below n. The same tree comes out of a binary
 *      counter (push each chunk's value at level 0; two values of one
 *      level merge, the earlier on the left, into one of the next; at the
 *      end fold the stack from the top: below (+) above), and out of
 *      level-by-level pairing (node i of level l+1 = node 2i (+) node
 *      2i+1 of level l, an odd last node moving up unchanged), which is
 *      how a GPU would run it. A block of 2^k whole chunks starting at a
 *      multiple of 2^k is one node of the tree, so threads (or
 *      work-groups) may each take such blocks, and the outputs, without
 *      changing a bit.
 *
 * An empty reduction (R == 0) is the identity. (+) is the operation's
 * combine in its accumulation type: float for float16/bfloat16/float32,
 * double for float64, complex64/complex128 parts, 64-bit wrapping
 * integers for bool and the integers; mean divides the sum (rounded to
 * its dtype) by the count afterwards. max and min propagate NaN and are
 * associative, and so are the integers' sums: their order changes no bit,
 * but they follow it all the same.
 *
 * Sums of real floating types are compensated: an accumulator is a pair
 * (s, e) of the accumulation type whose value is s + e; an element x goes
 * in by TSR__RED_TWO_SUM_ADD (s + x = t + r exactly, Knuth's two-sum:
 * s = t, e += r) and two accumulators meet by TSR__RED_TWO_SUM_MERGE (the
 * right one's s added so, then its e into e); the result is s + e
 * (TSR__RED_TWO_SUM_VALUE), rounded once to the result's dtype; where s is
 * infinite or NaN it is s, so infinities and NaNs come out as a plain sum
 * gives them. The sum of a pair of elements is rounded once, an error of
 * at most half a unit of the accumulation type in that sum: a float32
 * sum stays within eps * sum|x| / 2 plus about two units in the last
 * place of the exact sum whatever R (PyTorch 1.13's cascade sum errs
 * more, tests/ops/data/reduce.txt's "acc" rows), in float arithmetic
 * alone, which every OpenCL device has. A two-sum costs seven additions;
 * taking elements two at a time halves them, where they kept a float32
 * sum below the memory's speed on a core that runs one 32-byte addition
 * a cycle (an AMD EPYC of the first Zen generation: 11-13 GB/s in the
 * first-level cache, 21 with pairs). */
#ifndef TESSERA_KERNELS_REDUCE_ORDER_H
#define TESSERA_KERNELS_REDUCE_ORDER_H

/* Accumulator lanes inside a chunk, and a chunk's elements (a multiple of
 * the lanes: every chunk starts at lane 0). 16 lanes of 256 sequential
 * (compensated) additions each: the fold of the lanes, a chain of
 * dependent steps, costs 15 merges per 4096 elements. */
#define TSR__RED_LANES 16
#define TSR__RED_CHUNK 4096
/* Chunks per block that one thread (or work-group) takes whole when few
 * outputs reduce many elements: a node of the chunk tree (step 4). */
#define TSR__RED_BLOCK_LOG2 4
#define TSR__RED_BLOCK_CHUNKS (1 << TSR__RED_BLOCK_LOG2)
/* Neighbouring outputs a work-item of a device sums together when their
 * elements lie side by side in the input (a sum over dim 0 of a
 * row-major matrix: opencl/reduce.cl's column walk): groups of
 * COL_OUTPUTS, up to COL_WIDE of them at once (a run of 4 KiB of float32
 * per row of the walk). */
#define TSR__RED_COL_OUTPUTS 64
#define TSR__RED_COL_WIDE 1024
/* Bytes a device's two-phase reduction keeps per node of an output
 * (opencl/reduce.cl's tsr_r_acc: two accumulators of up to 16 bytes and
 * two counts, rounded up). */
#define TSR__RED_SLOT_BYTES 64u

/* The chunk tree's split of n >= 2 leaves: the largest power of two
 * strictly below n. */
#define TSR__RED_SPLIT(n) tsr__red_split((long)(n))
static inline long tsr__red_split(long n)
{
    long p = 1;
    while (p * 2 < n)
        p *= 2;
    return p;
}

/* s, e: lvalues of type T, the accumulator; x: an element (T). s + x is
 * t + r exactly (Knuth's two-sum); r goes into e. No branch: e may turn
 * NaN once s is infinite, and TSR__RED_TWO_SUM_VALUE then ignores it.
 * TSR__RED_TWO_SUM_ADD_BY takes three of the subtractions as SUB(a, b),
 * which must be b - a rounded once (the cpu's AVX2 loops: a fused
 * multiply-add, cpu_reduce_ops.c); s + x stays an addition.
 * TSR__RED_TWO_SUM_ADD_BY2 also takes e's addition as ADD(e, r), which
 * must be e + r rounded once (the same loops: another multiply-add, in
 * every other vector). */
#define TSR__RED_SUB(a, b) ((b) - (a))
#define TSR__RED_ADD(a, b) ((a) + (b))
#define TSR__RED_TWO_SUM_ADD_BY2(s, e, x, T, SUB, ADD)              \
    do {                                                            \
        T tsr__x = (x);                                             \
        T tsr__t = (s) + tsr__x;                                    \
        T tsr__b = SUB((s), tsr__t);                                \
        T tsr__r = ((s)-SUB(tsr__b, tsr__t)) + SUB(tsr__b, tsr__x); \
        (e) = ADD((e), tsr__r);                                     \
        (s) = tsr__t;                                               \
    } while (0)
#define TSR__RED_TWO_SUM_ADD_BY(s, e, x, T, SUB) \
    TSR__RED_TWO_SUM_ADD_BY2(s, e, x, T, SUB, TSR__RED_ADD)
#define TSR__RED_TWO_SUM_ADD(s, e, x, T) TSR__RED_TWO_SUM_ADD_BY(s, e, x, T, TSR__RED_SUB)
/* (s, e) += (s2, e2): s2 added as an element, then e2 into e. */
#define TSR__RED_TWO_SUM_MERGE(s, e, s2, e2, T) \
    do {                                        \
        TSR__RED_TWO_SUM_ADD(s, e, s2, T);      \
        (e) = (e) + (e2);                       \
    } while (0)
/* The accumulator's value: s + e, or s itself when s is infinite or NaN
 * (s never depends on e, and is finite only if every s before it was, so
 * e is then a finite sum of exact errors). */
#define TSR__RED_TWO_SUM_VALUE(s, e) ((s) - (s) == 0 ? (s) + (e) : (s))

/* Step 3: folds lane[0 .. LANES) into lane[0]; COMBINE(a, b) is the
 * operation's (+) on two accumulators (an expression). */
#define TSR__RED_FOLD_LANES(lane, COMBINE)                                         \
    do {                                                                           \
        for (int tsr__w = TSR__RED_LANES / 2; tsr__w >= 1; tsr__w /= 2)            \
            for (int tsr__j = 0; tsr__j < tsr__w; tsr__j++)                        \
                (lane)[tsr__j] = COMBINE((lane)[tsr__j], (lane)[tsr__j + tsr__w]); \
    } while (0)

#endif /* TESSERA_KERNELS_REDUCE_ORDER_H */
