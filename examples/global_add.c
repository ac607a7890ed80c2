/* global_add: the README's global-tensor example (libtessera-mpi), run as
 * `mpirun -np 4 ./global_add`. Every rank holds two rows of an 8x4 float32
 * tensor x, split over the ranks (OneFlow's S(0)); y = x + x stays split;
 * g = y^T @ y, with y's row blocks transposed as the column blocks of y^T
 * (S(1)), comes out as a partial sum (P: each rank's rows' share); and
 * to_global reduces it to broadcast (an all-reduce), so that every rank
 * holds the whole 4x4 result. Rank 0 prints OneFlow's reprs and the result
 * and checks it against the same arithmetic done alone. On failure the
 * library's message goes to standard error and the rank exits 1.
 * tests/api/check_readme_client.sh keeps the README's copy equal to all
 * that follows this comment. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <tessera/global.h>
#include <tessera/tessera.h>

#define ROWS 8
#define COLS 4

static int rank;

/* A global tensor's placement and sbp reprs (128 bytes each). */
static void reprs(const tsr_global_tensor *g, char *placement, char *sbp)
{
    const tsr_placement *p = tsr_global_tensor_placement(g);
    tsr_placement_repr(p, placement, 128);
    tsr_sbp_tuple_repr(tsr_global_tensor_sbp(g), tsr_placement_ndim(p), sbp, 128);
}

/* A global tensor's shape, placement and sbp, as OneFlow prints them. */
static void show(const char *name, const tsr_global_tensor *g)
{
    const int64_t *size = tsr_global_tensor_sizes(g);
    char placement[128], sbp[128];
    reprs(g, placement, sbp);
    if (rank == 0)
        printf("%-12s oneflow.Size([%" PRId64 ", %" PRId64 "]) placement=%s sbp=%s\n", name,
               size[0], size[1], placement, sbp);
}

/* The end of OneFlow's repr of a global tensor, after its data (whose last
 * line is `column` characters long): placement, sbp and dtype, each
 * moved to a line of its own, under the data, where it would pass 80
 * columns. */
static void suffixes(const tsr_global_tensor *g, int column)
{
    char placement[128], sbp[128], text[3][160];
    reprs(g, placement, sbp);
    snprintf(text[0], sizeof text[0], "placement=%s", placement);
    snprintf(text[1], sizeof text[1], "sbp=%s", sbp);
    snprintf(text[2], sizeof text[2], "dtype=oneflow.%s",
             tsr_dtype_name(tsr_global_tensor_dtype(g)));
    for (int k = 0; k < 3; k++) {
        int len = (int)strlen(text[k]);
        bool wrap = column + 2 + len > 80;
        printf("%s%s", wrap ? ",\n       " : ", ", text[k]);
        column = wrap ? 7 + len : column + 2 + len;
    }
    puts(")");
}

int main(void)
{
    tsr_global_env *env = NULL;
    tsr_placement *p = NULL;
    tsr_tensor *rows = NULL, *y_rows = NULL, *yt_cols = NULL, *mine = NULL;
    tsr_global_tensor *x = NULL, *y = NULL, *yt = NULL, *g = NULL, *gb = NULL;
    tsr_sbp s0 = tsr_sbp_split(0), s1 = tsr_sbp_split(1), b = tsr_sbp_broadcast();
    const int64_t shape[2] = {ROWS, COLS};
    int64_t size[2], offset[2];
    float data[ROWS * COLS], got[COLS * COLS];
    tsr_op add;
    int rc = 1;

    /* MPI_Init when needed; every rank of the job, on its cpu. */
    if (tsr_global_env_open(NULL, &env) != TSR_OK ||
        tsr_global_env_all_device_placement(env, TSR_DEVICE_CPU, &p) != TSR_OK)
        goto fail;
    rank = tsr_global_env_rank(env);

    /* This rank's rows of x under S(0) (OneFlow's split: 2 of 8 rows on 4
     * ranks), filled from the logical index: x[i][j] = 4i + j. */
    if (tsr_global_shard_geometry(2, shape, p, &s0, tsr_placement_index_of(p, rank), size,
                                  offset) != TSR_OK)
        goto fail;
    for (int64_t i = 0; i < size[0]; i++)
        for (int64_t j = 0; j < COLS; j++)
            data[i * COLS + j] = (float)((offset[0] + i) * COLS + j);
    if (tsr_tensor_from_data(NULL, 2, size, TSR_FLOAT32, data, NULL, &rows) != TSR_OK ||
        tsr_global_tensor_from_local(env, rows, p, &s0, &x) != TSR_OK || /* to_global */
        tsr_op_from_name("add", &add) != TSR_OK ||
        tsr_global_elementwise(add, (const tsr_global_tensor *[]){x, x}, 2, &y) != TSR_OK)
        goto fail; /* S(0) + S(0) -> S(0): each rank adds its own rows */
    show("x", x);
    show("y = x + x", y);

    /* y^T split along dim 1 is each rank's rows of y transposed (a view),
     * and S(1) @ S(0) -> P: every rank multiplies its blocks, and the
     * logical g is the sum of the four products. */
    y_rows = tsr_global_tensor_to_local(y);
    if (tsr_tensor_t(y_rows, &yt_cols) != TSR_OK ||
        tsr_global_tensor_from_local(env, yt_cols, p, &s1, &yt) != TSR_OK ||
        tsr_global_matmul(yt, y, &g) != TSR_OK)
        goto fail;
    show("y^T", yt);
    show("g = y^T @ y", g);

    /* P -> B: an all-reduce; every rank now holds the whole g. */
    if (tsr_global_tensor_to_global(g, p, &b, &gb) != TSR_OK)
        goto fail;
    show("g (reduced)", gb);
    mine = tsr_global_tensor_to_local(gb);
    if (tsr_tensor_copy_to_host(mine, got, sizeof got) != TSR_OK)
        goto fail;
    rc = 0;
    if (rank == 0) {
        /* The same on one rank: g[j][k] = sum over i of y[i][j] * y[i][k]. */
        int column = 0; /* the length of the line printed last */
        for (int j = 0; j < COLS; j++) {
            column = printf("%s", j ? "        [" : "tensor([[");
            for (int k = 0; k < COLS; k++) {
                float want = 0;
                for (int i = 0; i < ROWS; i++)
                    want += (float)(2 * (COLS * i + j)) * (float)(2 * (COLS * i + k));
                if (got[j * COLS + k] != want)
                    rc = 1;
                column += printf("%s%5.0f.", k ? ", " : "", got[j * COLS + k]);
            }
            column += printf("]%s", j < COLS - 1 ? ",\n" : "]");
        }
        suffixes(gb, column);
        puts(rc ? "mismatch: g differs from one rank's y^T @ y" : "ok: g equals y^T @ y");
    }
    goto out;
fail:
    fprintf(stderr, "global_add: rank %d: %s\n", rank, tsr_last_error());
out:
    tsr_tensor_release(mine); /* all of these accept NULL */
    tsr_tensor_release(yt_cols);
    tsr_tensor_release(y_rows);
    tsr_tensor_release(rows);
    tsr_global_tensor_release(gb);
    tsr_global_tensor_release(g);
    tsr_global_tensor_release(yt);
    tsr_global_tensor_release(y);
    tsr_global_tensor_release(x);
    tsr_placement_destroy(p);
    tsr_global_env_close(env); /* MPI_Finalize if it initialised MPI */
    return rc;
}
