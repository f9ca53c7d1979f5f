/* Checks of gpusort_lexsort, gpusort_lexsort_u32, gpusort_lexsort_device and the float order of a
 * sorter (gpusort_sorter_with_float_order): tables of mixed key types, orders, float orders and
 * null masks at edge sizes and input patterns against a reference (qsort with a comparator over the
 * columns, the row index breaking the last tie: a stable sort), then every bad argument, refused
 * with the output untouched. Included by test_gpusort.c after argsort_checks.h (check,
 * last_error_contains, TYPES, rank_for, ARG_SIZES, refused, TOP_PAGE, TESTER_LEN). */
#ifndef GPUSORT_LEXSORT_CHECKS_H
#define GPUSORT_LEXSORT_CHECKS_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Two patterns past test_gpusort.c's: float specials (NaNs of both signs and a payload, zeros of
 * both signs, infinities), and random keys whose first third of rows are null. */
enum { LEX_SPECIAL = PATTERNS, LEX_NULL_ROWS, LEX_PATTERNS };
static const char *LEX_PATTERN_NAMES[] = {"random",  "few distinct", "all equal",           "sorted",
                                          "reverse", "extremes",     "NaN, -0.0, inf", "null first rows"};

/* One column of a test table: TYPES[ti] keys, its order and float order, and nulls (0: none,
 * else GPUSORT_NULLS_* + 1). */
typedef struct {
    size_t ti;
    gpusort_order order;
    gpusort_float_order floats;
    int nulls;
} col_shape;

enum { U32, I32, F32, U64, I64, F64, U16, I16, U8, I8 }; /* positions in TYPES */
#define NAN_LAST GPUSORT_FLOAT_ORDER_NAN_LAST
#define NULLS_FIRST (GPUSORT_NULLS_FIRST + 1)
#define NULLS_LAST (GPUSORT_NULLS_LAST + 1)

/* Two u32 (one packed key), mixed widths over several words, 64-bit keys with nulls (65 bits),
 * every float order and null placement. Unused trailing columns have ti = 99. */
static const col_shape LEX_TABLES[][3] = {
    {{U32, 0, 0, 0}, {U32, 1, 0, 0}, {99, 0, 0, 0}},
    {{F32, 0, NAN_LAST, 0}, {I64, 1, 0, 0}, {99, 0, 0, 0}},
    {{U8, 1, 0, NULLS_FIRST}, {F64, 0, GPUSORT_FLOAT_ORDER_NAN_LARGEST, NULLS_LAST}, {I16, 0, 0, 0}},
    {{U64, 0, 0, 0}, {U64, 1, 0, NULLS_LAST}, {99, 0, 0, 0}},
    {{I8, 0, 0, 0}, {U16, 1, 0, 0}, {F32, 1, GPUSORT_FLOAT_ORDER_NAN_FIRST, NULLS_FIRST}},
    {{F64, 1, GPUSORT_FLOAT_ORDER_TOTAL, NULLS_LAST}, {I32, 0, 0, NULLS_FIRST}, {99, 0, 0, 0}},
    {{F32, 1, GPUSORT_FLOAT_ORDER_NAN_LARGEST, 0}, {F64, 0, 0, 0}, {U8, 0, 0, NULLS_LAST}},
};
#define NLEX_TABLES (sizeof LEX_TABLES / sizeof LEX_TABLES[0])

typedef struct {
    const key_type *t;
    void *keys;
    unsigned char *nulls;
    gpusort_column d; /* the descriptor given to the library */
} lex_col;

/* The reference comparator's table (qsort takes no context) and the sorter's float order. */
static const lex_col *lex_cols;
static size_t lex_ncols;
static gpusort_float_order lex_sorter_floats;

static int raw_is_nan(const key_type *t, uint64_t raw) {
    return t->size == 4 ? (raw & 0x7FFFFFFFu) > 0x7F800000u
                        : (raw & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull;
}

/* Rows i and j in one column, from the definitions: nulls at their place in both orders, then
 * (outside total order) NaN at its place and -0.0 equal to +0.0, then the column's order. */
static int col_cmp(const lex_col *c, size_t i, size_t j) {
    if (c->nulls && (c->nulls[i] || c->nulls[j])) {
        int after = c->d.null_placement == GPUSORT_NULLS_LAST;
        return c->nulls[i] && c->nulls[j] ? 0 : (c->nulls[i] ? (after ? 1 : -1) : (after ? -1 : 1));
    }
    uint64_t ri = get_raw(c->t, c->keys, i), rj = get_raw(c->t, c->keys, j);
    int desc = c->d.order == GPUSORT_DESCENDING;
    gpusort_float_order f = c->d.float_order ? c->d.float_order : lex_sorter_floats;
    int is_float = c->t->rank_of == f32_rank || c->t->rank_of == f64_rank;
    if (is_float && f > GPUSORT_FLOAT_ORDER_TOTAL) {
        int ni = raw_is_nan(c->t, ri), nj = raw_is_nan(c->t, rj);
        int nan_after = f == GPUSORT_FLOAT_ORDER_NAN_FIRST ? 0 : f == GPUSORT_FLOAT_ORDER_NAN_LARGEST ? !desc : 1;
        if (ni || nj)
            return ni && nj ? 0 : (ni ? (nan_after ? 1 : -1) : (nan_after ? -1 : 1));
        uint64_t sign = c->t->size == 4 ? 0x80000000u : 0x8000000000000000ull;
        ri = ri == sign ? 0 : ri; /* -0.0 is +0.0 */
        rj = rj == sign ? 0 : rj;
    }
    uint64_t ki = c->t->rank_of(ri), kj = c->t->rank_of(rj);
    int r = (ki > kj) - (ki < kj);
    return desc ? -r : r;
}

static int lex_cmp(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    for (size_t c = 0; c < lex_ncols; c++) {
        int r = col_cmp(&lex_cols[c], i, j);
        if (r)
            return r;
    }
    return (i > j) - (i < j);
}

static uint64_t special_raw(const key_type *t, uint64_t r) {
    static const uint32_t f[] = {0x7FC00000u, 0xFFC00000u, 0x7FC00001u, 0x80000000u, 0,
                                 0x7F800000u, 0xFF800000u, 0x3FC00000u, 0xBFC00000u};
    static const uint64_t d[] = {0x7FF8000000000000ull, 0xFFF8000000000000ull, 0x7FF8000000000001ull,
                                 0x8000000000000000ull, 0,
                                 0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x3FF8000000000000ull,
                                 0xBFF8000000000000ull};
    return t->size == 4 ? f[r % 9] : d[r % 9];
}

/* Column j of a table: n rows of `shape` in pattern p + j. */
static void lex_fill(lex_col *c, const col_shape *shape, int p, size_t n, uint64_t *rng) {
    const key_type *t = &TYPES[shape->ti];
    int is_float = t->rank_of == f32_rank || t->rank_of == f64_rank;
    c->t = t;
    c->keys = malloc(n * t->size + 8);
    c->nulls = shape->nulls ? malloc(n + 1) : NULL;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix(rng);
        if (p == LEX_SPECIAL && is_float)
            put_raw(t, c->keys, i, special_raw(t, r));
        else
            put_raw(t, c->keys, i, t->raw_of(rank_for(t, p < PATTERNS ? p : RANDOM, i, n, rng)));
        if (c->nulls)
            c->nulls[i] = p == LEX_NULL_ROWS ? i < n / 3 : (i >= n - n / 4 || i % 5 == 2);
    }
    c->d = (gpusort_column){.keys = c->keys,
                            .nulls = c->nulls,
                            .key_type = KEY_TYPES[shape->ti],
                            .order = shape->order,
                            .float_order = shape->floats,
                            .null_placement = shape->nulls ? (gpusort_null_placement)(shape->nulls - 1) : 0};
}

/* One lexsort of a table (both index widths) on `s`, whose float order is `sorter_floats`,
 * checked; a description of the failure, or NULL. */
static const char *lex_case(const gpusort_sorter *s, gpusort_float_order sorter_floats, const col_shape *shapes,
                            size_t ncols, int p, size_t n, uint64_t *rng) {
    lex_col cols[3];
    gpusort_column d[3];
    size_t *ref = malloc((n + 1) * sizeof *ref);
    uint64_t *out = malloc((n + 1) * sizeof *out);
    uint32_t *out32 = malloc((n + 1) * sizeof *out32);
    const char *bad = NULL;
    for (size_t c = 0; c < ncols; c++) {
        lex_fill(&cols[c], &shapes[c], (p + (int)c) % LEX_PATTERNS, n, rng);
        d[c] = cols[c].d;
    }
    for (size_t i = 0; i <= n; i++) {
        ref[i] = i;
        out[i] = UINT64_MAX;
        out32[i] = UINT32_MAX;
    }
    lex_cols = cols, lex_ncols = ncols, lex_sorter_floats = sorter_floats;
    qsort(ref, n, sizeof *ref, lex_cmp);
    gpusort_status st = gpusort_lexsort(s, d, ncols, n, out);
    gpusort_status st32 = gpusort_lexsort_u32(s, d, ncols, n, out32);
    if (st != GPUSORT_OK || st32 != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d / %d (%s)", (int)st, (int)st32, gpusort_status_str((int)(st ? st : st32)));
        bad = why;
    } else if (out[n] != UINT64_MAX || out32[n] != UINT32_MAX) {
        bad = "wrote past out[n - 1]";
    }
    for (size_t i = 0; i < n && !bad; i++) {
        if (out[i] != ref[i] || out32[i] != ref[i]) {
            snprintf(why, sizeof why, "out[%zu] = %llu (uint32_t: %lu), the stable order has %zu", i,
                     (unsigned long long)out[i], (unsigned long)out32[i], ref[i]);
            bad = why;
        }
    }
    bad = case_failure(why, sizeof why, bad, " (n = %zu, %s)", n, LEX_PATTERN_NAMES[p]);
    for (size_t c = 0; c < ncols; c++) {
        free(cols[c].keys);
        free(cols[c].nulls);
    }
    free(ref);
    free(out);
    free(out32);
    return bad;
}

/* Every pattern and size (to largest_size(s)) of one table; the check's line names it. */
static void lex_table_check(const gpusort_sorter *s, const char *sname, gpusort_float_order sorter_floats,
                            const col_shape *shapes, size_t ncols, uint64_t *rng) {
    static const char *FLOAT_NAMES[] = {"", " total order", " NaN last", " NaN first", " NaN largest"};
    char what[160] = "";
    const char *bad = NULL;
    for (size_t c = 0; c < ncols; c++) {
        size_t used = strlen(what);
        snprintf(what + used, sizeof what - used, "%s%s %s%s%s", c ? ", " : "", TYPES[shapes[c].ti].name,
                 shapes[c].order ? "desc" : "asc", FLOAT_NAMES[shapes[c].floats],
                 shapes[c].nulls ? (shapes[c].nulls == NULLS_FIRST ? " nulls first" : " nulls last") : "");
    }
    for (size_t si = 0; si < NARG_SIZES && ARG_SIZES[si] <= largest_size(s) && !bad; si++)
        for (int p = 0; p < LEX_PATTERNS && !bad; p++)
            bad = lex_case(s, sorter_floats, shapes, ncols, p, ARG_SIZES[si], rng);
    check(!bad, "lexsort (%s) (%s sorter%s): the stable order, both index widths%s%s", what, sname,
          FLOAT_NAMES[sorter_floats], bad ? ": " : "", bad ? bad : "");
}

static void lexsort_sort_checks(const gpusort_sorter *s, const char *sname) {
    uint64_t rng = 20260075;
    for (size_t ti = 0; ti < NTYPES; ti++)
        for (gpusort_order o = GPUSORT_ASCENDING; o <= GPUSORT_DESCENDING; o++) {
            col_shape one = {ti, o, 0, 0};
            lex_table_check(s, sname, 0, &one, 1, &rng);
        }
    for (size_t t = 0; t < NLEX_TABLES; t++) {
        size_t ncols = LEX_TABLES[t][2].ti == 99 ? 2 : 3;
        lex_table_check(s, sname, 0, LEX_TABLES[t], ncols, &rng);
    }
    /* A sorter's float order reaches the float columns that name none. */
    for (gpusort_float_order f = GPUSORT_FLOAT_ORDER_NAN_LAST; f <= GPUSORT_FLOAT_ORDER_NAN_LARGEST; f++) {
        gpusort_sorter *h = NULL;
        const col_shape cols[3] = {{F32, 1, 0, NULLS_FIRST}, {F64, 0, 0, 0}, {F32, 0, GPUSORT_FLOAT_ORDER_TOTAL, 0}};
        check(gpusort_sorter_with_float_order(s, f, &h) == GPUSORT_OK && h != NULL,
              "gpusort_sorter_with_float_order(%s sorter, %u)", sname, (unsigned)f);
        lex_table_check(h, sname, f, cols, 3, &rng);
        gpusort_sorter_free(h);
    }
}

#include "lexsort_error_checks.h"

#endif
