/* The refusals of gpusort_lexsort, gpusort_lexsort_u32 and gpusort_lexsort_device (each with the
 * output untouched and a message naming the argument), the header's examples, and what a sorter's
 * float order does to the other sorts. Included by lexsort_checks.h. */
#ifndef GPUSORT_LEXSORT_ERROR_CHECKS_H
#define GPUSORT_LEXSORT_ERROR_CHECKS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Whether out (4 indices) still holds the 7s these checks fill it with. */
static int lex_untouched(const uint64_t *out) {
    return out[0] == 7 && out[1] == 7 && out[2] == 7 && out[3] == 7;
}

/* Whether a lexsort call was refused as invalid, naming `words`, with out untouched. */
static int lex_refused(gpusort_status st, const char *words, const uint64_t *out) {
    return st == GPUSORT_INVALID_ARGUMENT && last_error_contains(words) && lex_untouched(out);
}

static void lexsort_error_checks(const gpusort_sorter *cpu) {
    _Alignas(8) uint32_t k[4] = {3, 1, 2, 0};
    uint8_t mask[4] = {0, 1, 0, 0};
    uint64_t out[5] = {7, 7, 7, 7, 7};
    uint32_t out32[4] = {7, 7, 7, 7};
    const gpusort_column good = {.keys = k, .key_type = GPUSORT_KEY_U32};
    gpusort_column two[2] = {good, good};
    void *top = (void *)TOP_PAGE;
    int ok;

    check(lex_refused(gpusort_lexsort(cpu, NULL, 2, 4, out), "columns is NULL", out),
          "lexsort: NULL columns with num_columns 2 is GPUSORT_INVALID_ARGUMENT, out untouched");
    check(lex_refused(gpusort_lexsort(NULL, &good, 0, 4, out), "num_columns is 0", out) &&
              lex_refused(gpusort_lexsort(NULL, NULL, 0, 0, out), "num_columns is 0", out),
          "lexsort: no columns is GPUSORT_INVALID_ARGUMENT, even without rows");
    two[1].keys = NULL;
    check(lex_refused(gpusort_lexsort(cpu, two, 2, 4, out), "columns[1].keys is NULL", out),
          "lexsort: NULL keys in columns[1] with 4 rows is GPUSORT_INVALID_ARGUMENT naming it");
    two[1] = good;
    static const struct {
        gpusort_key_type key;
        gpusort_order order;
        gpusort_float_order floats;
        gpusort_null_placement nulls;
        const char *words;
    } enums[] = {
        {12, 0, 0, 0, "columns[1]: key type 12"},
        {UINT32_MAX, 0, 0, 0, "columns[1]: key type 4294967295"},
        {GPUSORT_KEY_U32, 2, 0, 0, "columns[1]: order 2"},
        {GPUSORT_KEY_F64, 0, 5, 0, "columns[1]: float order 5"},
        {GPUSORT_KEY_U32, 0, UINT32_MAX, 0, "columns[1]: float order 4294967295"},
        {GPUSORT_KEY_U32, 0, 0, 2, "columns[1]: null placement 2"},
    };
    for (size_t i = 0; i < sizeof enums / sizeof enums[0]; i++) {
        two[1] = (gpusort_column){k, NULL, enums[i].key, enums[i].order, enums[i].floats, enums[i].nulls, 0};
        ok = lex_refused(gpusort_lexsort(cpu, two, 2, 4, out), enums[i].words, out);
        ok &= lex_refused(gpusort_lexsort(NULL, two, 2, 0, NULL), enums[i].words, out);
        ok &= gpusort_lexsort_u32(NULL, two, 2, 4, out32) == GPUSORT_INVALID_ARGUMENT && out32[0] == 7;
        ok &= gpusort_lexsort_device(cpu, two, 2, 4, out, NULL) == GPUSORT_INVALID_ARGUMENT && lex_untouched(out);
        check(ok, "lexsort (host, uint32_t, device): \"%s\" is GPUSORT_INVALID_ARGUMENT, also without rows",
              enums[i].words);
    }
    two[1] = good;

    /* Static: `out` with these lengths would reach a descriptor on the stack (an overlap, refused first). */
    static gpusort_column far;
    far = (gpusort_column){.keys = top, .key_type = GPUSORT_KEY_U32};
    ok = refused(gpusort_lexsort(NULL, &far, 1, 0x1000 / 4, out), "columns[0].keys");
    far.key_type = GPUSORT_KEY_U8;
    ok &= refused(gpusort_lexsort(NULL, &far, 1, TESTER_LEN, out), "columns[0].keys");
    far = (gpusort_column){.keys = k, .nulls = (const uint8_t *)top + 0xFFF, .key_type = GPUSORT_KEY_U32};
    ok &= refused(gpusort_lexsort(cpu, &far, 1, 4, out), "columns[0].nulls");
    ok &= refused(gpusort_lexsort(cpu, &good, 1, 0x1000 / 8, (uint64_t *)top), "out");
    ok &= refused(gpusort_lexsort(cpu, (const gpusort_column *)top, 0x1000 / sizeof good + 1, 4, out), "columns");
    check(ok && lex_untouched(out),
          "lexsort: keys, nulls, out or descriptors past the end of the address space are GPUSORT_INVALID_ARGUMENT");
    check(lex_refused(gpusort_lexsort(cpu, &good, 1, 4, NULL), "out is NULL", out) &&
              lex_refused(gpusort_lexsort(cpu, &good, 1, 2, (uint64_t *)((char *)out + 4)), "out is not aligned", out),
          "lexsort: a NULL or misaligned out is GPUSORT_INVALID_ARGUMENT");
    far = (gpusort_column){.keys = (const char *)k + 2, .key_type = GPUSORT_KEY_U32};
    check(lex_refused(gpusort_lexsort(cpu, &far, 1, 1, out), "columns[0].keys is not aligned", out),
          "lexsort: misaligned keys are GPUSORT_INVALID_ARGUMENT");
    far = (gpusort_column){.keys = out + 1, .key_type = GPUSORT_KEY_U64};
    ok = lex_refused(gpusort_lexsort(cpu, &far, 1, 3, out), "columns[0].keys and out overlap", out);
    far = (gpusort_column){.keys = k, .nulls = (const uint8_t *)(out + 3), .key_type = GPUSORT_KEY_U32};
    ok &= lex_refused(gpusort_lexsort(cpu, &far, 1, 4, out), "columns[0].nulls and out overlap", out);
    ok &= lex_refused(gpusort_lexsort(cpu, (const gpusort_column *)out, 1, 1, out), "descriptors and out overlap", out);
    check(ok, "lexsort: out over keys, a null mask or the descriptors is GPUSORT_INVALID_ARGUMENT, nothing written");

    check(gpusort_lexsort(NULL, (gpusort_column[]){{.key_type = GPUSORT_KEY_F64}}, 1, 0, NULL) == GPUSORT_OK &&
              gpusort_lexsort_u32(cpu, &good, 1, 1, out32) == GPUSORT_OK && out32[0] == 0 && out32[1] == 7,
          "lexsort: no rows with NULL arrays is GPUSORT_OK; one row writes index 0 and nothing past it");
    out32[0] = 7;
    two[1] = (gpusort_column){.keys = k, .nulls = mask, .key_type = GPUSORT_KEY_U32, .order = GPUSORT_DESCENDING,
                              .null_placement = GPUSORT_NULLS_FIRST};
    check(gpusort_lexsort(cpu, two, 2, 4, out) == GPUSORT_OK && out[0] == 3 && out[1] == 1 && out[2] == 2 &&
              out[3] == 0 && out[4] == 7,
          "lexsort: two columns over one array (one with a null mask) sort, and the call after the refusals works");

    /* The header's example. */
    uint16_t year[] = {2024, 2023, 2024, 2023};
    float price[] = {9.5f, 3.0f, 12.0f, 3.0f};
    gpusort_column by[2] = {{.keys = year, .key_type = GPUSORT_KEY_U16},
                            {.keys = price, .key_type = GPUSORT_KEY_F32, .order = GPUSORT_DESCENDING}};
    uint64_t idx[4];
    check(gpusort_lexsort(NULL, by, 2, 4, idx) == GPUSORT_OK && idx[0] == 1 && idx[1] == 3 && idx[2] == 2 &&
              idx[3] == 0,
          "lexsort: the header's example (year ascending, price descending): 1 3 2 0");
}

/* gpusort_sorter_with_float_order: its refusals, and the sorts it changes or refuses. */
static void float_order_checks(const gpusort_sorter *cpu) {
    gpusort_sorter *h = (gpusort_sorter *)&h; /* sentinel: must stay untouched on failure */
    check(gpusort_sorter_with_float_order(cpu, 5, &h) == GPUSORT_INVALID_ARGUMENT && h == (gpusort_sorter *)&h &&
              last_error_contains("float order 5"),
          "sorter_with_float_order: 5 is GPUSORT_INVALID_ARGUMENT naming it, *out untouched");
    check(gpusort_sorter_with_float_order(NULL, GPUSORT_FLOAT_ORDER_NAN_LAST, NULL) == GPUSORT_INVALID_ARGUMENT,
          "sorter_with_float_order: a NULL out is GPUSORT_INVALID_ARGUMENT");
    h = NULL;
    check(gpusort_sorter_with_float_order(NULL, GPUSORT_FLOAT_ORDER_NAN_LAST, &h) == GPUSORT_OK && h != NULL,
          "sorter_with_float_order: NaN last, from the default sorter");

    /* NumPy's order; the zeros and NaNs keep their input order, bit for bit. */
    float x[8] = {0.0f, NAN, -0.0f, -1.0f, -NAN, 0.0f, 2.0f, -0.0f};
    uint32_t bits[8], want[8];
    const float wantf[8] = {-1.0f, 0.0f, -0.0f, 0.0f, -0.0f, 2.0f, NAN, -NAN};
    gpusort_status st = gpusort_sort_keys_f32(h, x, 8, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
    memcpy(bits, x, sizeof bits);
    memcpy(want, wantf, sizeof want);
    check(st == GPUSORT_OK && memcmp(bits, want, sizeof bits) == 0,
          "sort_keys_f32, NaN last: -1 0 -0 0 -0 2 NaN -NaN (equal keys in input order, bit for bit)");
    double d[4] = {NAN, 1.0, -0.0, 0.0};
    uint64_t idx[4] = {9, 9, 9, 9};
    st = gpusort_argsort_f64(h, d, 4, idx, GPUSORT_DESCENDING);
    check(st == GPUSORT_OK && idx[0] == 1 && idx[1] == 2 && idx[2] == 3 && idx[3] == 0,
          "argsort_f64, NaN last, descending (the header's example): 1 2 3 0");

    float k[2] = {2.0f, 1.0f}, best[1] = {9.0f};
    uint32_t v[2] = {0, 1}, ku[2] = {2, 1};
    const size_t offsets[2] = {0, 2};
    int ok = gpusort_sort_pairs_f32(h, k, v, 2, GPUSORT_ASCENDING, 0) == GPUSORT_INVALID_ARGUMENT &&
             last_error_contains("total order");
    ok &= gpusort_sort_segments_f32(h, k, v, 2, offsets, 2, GPUSORT_ASCENDING) == GPUSORT_INVALID_ARGUMENT;
    ok &= gpusort_top_k_f32(h, k, 2, 1, best, NULL, GPUSORT_ASCENDING) == GPUSORT_INVALID_ARGUMENT;
    ok &= gpusort_sort_records(h, k, 2, 4, 0, GPUSORT_KEY_F32, GPUSORT_ASCENDING) == GPUSORT_INVALID_ARGUMENT;
    check(ok && k[0] == 2.0f && v[0] == 0 && best[0] == 9.0f,
          "NaN last: float pairs, segments, top-k and records are GPUSORT_INVALID_ARGUMENT, nothing written");
    check(gpusort_sort_pairs_u32(h, ku, v, 2, GPUSORT_ASCENDING, 0) == GPUSORT_OK && ku[0] == 1 && v[0] == 1,
          "NaN last: a sort of integer keys is unchanged");
    gpusort_sorter *total = NULL;
    check(gpusort_sorter_with_float_order(h, GPUSORT_FLOAT_ORDER_DEFAULT, &total) == GPUSORT_OK &&
              gpusort_sort_pairs_f32(total, k, v, 2, GPUSORT_ASCENDING, 0) == GPUSORT_OK && k[0] == 1.0f,
          "sorter_with_float_order(DEFAULT) of a NaN-last sorter is total order again");
    gpusort_sorter_free(total);
    gpusort_sorter_free(h);
}

/* gpusort_lexsort_device without device memory: a CPU sorter refuses, no rows succeed, the default
 * sorter refuses host memory (no GPU: GPUSORT_UNSUPPORTED; a GPU: the driver's check). */
static void lexsort_device_checks(const gpusort_sorter *cpu) {
    uint32_t k[4] = {3, 1, 2, 0};
    uint64_t out[4] = {7, 7, 7, 7};
    const gpusort_column c = {.keys = k, .key_type = GPUSORT_KEY_U32};
    check(gpusort_lexsort_device(cpu, &c, 1, 4, out, NULL) == GPUSORT_UNSUPPORTED && lex_untouched(out),
          "lexsort_device: a cpu sorter is GPUSORT_UNSUPPORTED, out untouched");
    check(gpusort_lexsort_device(cpu, &c, 1, 0, NULL, NULL) == GPUSORT_OK,
          "lexsort_device: no rows succeed on any sorter without looking at anything");
    check(lex_refused(gpusort_lexsort_device(NULL, &c, 0, 4, out, NULL), "num_columns is 0", out) &&
              lex_refused(gpusort_lexsort_device(NULL, NULL, 1, 4, out, NULL), "columns is NULL", out),
          "lexsort_device: no columns or NULL descriptors are GPUSORT_INVALID_ARGUMENT");
    gpusort_status st = gpusort_lexsort_device(NULL, &c, 1, 4, out, NULL);
    check((st == GPUSORT_UNSUPPORTED || (st == GPUSORT_INVALID_ARGUMENT && last_error_contains("device memory"))) &&
              lex_untouched(out),
          "lexsort_device: host memory through the default sorter is refused (status %d), out untouched", (int)st);
}

static void lexsort_checks(const gpusort_sorter *cpu) {
    lexsort_error_checks(cpu);
    float_order_checks(cpu);
    lexsort_device_checks(cpu);
}

#endif
