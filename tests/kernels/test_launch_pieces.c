/* A launch's NDRange in pieces (core/kernel.h): however many work-items a
 * launch has, no one enqueue covers more than TSR__KERNEL_PIECE_ITEMS
 * (2^46 work-items in one enqueue made PoCL trap) nor more than about
 * TSR__KERNEL_PIECE_ELEMENTS elements (a piece is the device's time one
 * session gets before another's turn), and the pieces cover the NDRange
 * exactly. */
#include <string.h>

#include "core/kernel.h"
#include "kernels/launch.h"
#include "test.h"

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* A float32 add of `ndim` sizes, every operand strided (no fast walk). */
static tsr__kernel strided_add(int ndim, const int64_t *sizes)
{
    tsr__kernel k = {.op = TSR__KOP_ADD, .common = TSR_FLOAT32, .ndim = ndim, .noperands = 3};
    memcpy(k.sizes, sizes, (size_t)ndim * sizeof *sizes);
    for (int i = 0; i < 3; i++) {
        k.operands[i].dtype = TSR_FLOAT32;
        for (int d = 0; d < ndim; d++)
            k.operands[i].strides[d] = 3 + i + d;
    }
    return k;
}

static void check_pieces(const tsr__kernel *k, uint64_t want_pieces)
{
    tsr__kernel_geometry g;
    tsr__kernel_launch_geometry(k, 4, 0, &g);
    uint64_t items = 1, pieces = 1;
    for (int d = 0; d < 3; d++) {
        ASSERT_TRUE(g.step[d] >= 1);
        ASSERT_TRUE(g.step[d] <= g.global[d] || g.global[d] == 0);
        ASSERT_TRUE(g.step[d] <= TSR__KERNEL_PIECE_ITEMS);
        items *= g.step[d];
        pieces *= ceil_div(g.global[d], g.step[d]);
    }
    ASSERT_TRUE(items <= TSR__KERNEL_PIECE_ITEMS);
    uint64_t block = (uint64_t)g.block[0] * g.block[1];
    ASSERT_TRUE(items * block <=
                (block > TSR__KERNEL_PIECE_ELEMENTS ? block : TSR__KERNEL_PIECE_ELEMENTS));
    ASSERT_UEQ(g.pieces, pieces);
    if (want_pieces)
        ASSERT_UEQ(g.pieces, want_pieces);
}

int main(void)
{
    int64_t small[2] = {3, 5};
    tsr__kernel k = strided_add(2, small);
    check_pieces(&k, 1);
    /* 2^34 outer indices of one element each: 4096 pieces of 2^22 */
    int64_t tall[3] = {INT64_C(1) << 34, 1, 1};
    k = strided_add(3, tall);
    check_pieces(&k, 4096);
    /* 2^23 x 2^23 strided: tiles of 32 x 32, 2^36 work-items, 4096 a
     * piece */
    int64_t square[2] = {INT64_C(1) << 23, INT64_C(1) << 23};
    k = strided_add(2, square);
    check_pieces(&k, UINT64_C(1) << 24);
    /* a row of 2^26 contiguous elements: 16 pieces */
    int64_t row[1] = {INT64_C(1) << 26};
    k = strided_add(1, row);
    for (int i = 0; i < 3; i++)
        k.operands[i].strides[0] = 1;
    check_pieces(&k, 16);
    /* long rows, many of them, and outer dimensions */
    int64_t wide[5] = {1 << 12, 1 << 11, 7, 1 << 13, 1 << 20};
    k = strided_add(5, wide);
    check_pieces(&k, 0);
    TEST_DONE();
}
