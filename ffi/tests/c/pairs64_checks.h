/* Checks of gpusort_sort_pairs_<type>_u64 (split pairs with 64-bit values): every key type, both
 * orders, the edge sizes and input patterns of the pair checks, each result compared element for
 * element with the stable reference (qsort of (rank, index)), so keys are sorted, every value is
 * still beside its key with all 64 bits, and equal keys keep their input order; then a sorting
 * network asked of a CPU sorter and overlapping arrays, each refused with the arrays untouched.
 * Included by test_gpusort.c after argsort_checks.h (check, last_error_contains, TYPES, SIZES,
 * PATTERN_NAMES, rank_for, get_raw, put_raw, splitmix, ranked, reference). */
#ifndef GPUSORT_PAIRS64_CHECKS_H
#define GPUSORT_PAIRS64_CHECKS_H

#include <stddef.h>
#include <stdint.h>

typedef gpusort_status (*pairs64_fn)(const gpusort_sorter *, void *, uint64_t *, size_t, gpusort_order,
                                     gpusort_algorithm);

#define PAIRS64_WRAP(T, CT)                                                                                   \
    static gpusort_status pairs64_##T(const gpusort_sorter *s, void *k, uint64_t *v, size_t n, gpusort_order o, \
                                      gpusort_algorithm a) {                                                \
        return gpusort_sort_pairs_##T##_u64(s, (CT *)k, v, n, o, a);                                          \
    }
PAIRS64_WRAP(u32, uint32_t)
PAIRS64_WRAP(i32, int32_t)
PAIRS64_WRAP(f32, float)
PAIRS64_WRAP(u64, uint64_t)
PAIRS64_WRAP(i64, int64_t)
PAIRS64_WRAP(f64, double)
PAIRS64_WRAP(u16, uint16_t)
PAIRS64_WRAP(i16, int16_t)
PAIRS64_WRAP(u8, uint8_t)
PAIRS64_WRAP(i8, int8_t)

/* By key type name, looked up in TYPES: a key type added there without a _u64 function here is
 * simply not checked by this file. */
static const struct {
    const char *name;
    pairs64_fn sort;
} PAIRS64[] = {{"u32", pairs64_u32}, {"i32", pairs64_i32}, {"f32", pairs64_f32},
               {"u64", pairs64_u64}, {"i64", pairs64_i64}, {"f64", pairs64_f64},
               {"u16", pairs64_u16}, {"i16", pairs64_i16}, {"u8", pairs64_u8},
               {"i8", pairs64_i8}};
#define NPAIRS64 (sizeof PAIRS64 / sizeof PAIRS64[0])

static const key_type *pairs64_key_type(const char *name) {
    for (size_t ti = 0; ti < NTYPES; ti++)
        if (strcmp(TYPES[ti].name, name) == 0)
            return &TYPES[ti];
    return NULL;
}

/* One sort of seeded keys with values whose high half is random and low half the input index;
 * a description of the failure, or NULL. */
static const char *pairs64_case(size_t pi, const gpusort_sorter *s, gpusort_order order, gpusort_algorithm alg,
                                int pattern, size_t n, uint64_t *rng) {
    const key_type *t = pairs64_key_type(PAIRS64[pi].name);
    void *keys = malloc(n * t->size + 8), *orig = malloc(n * t->size + 8);
    uint64_t *values = malloc(n * 8 + 8), *orig_values = malloc(n * 8 + 8);
    const char *bad = NULL;
    for (size_t i = 0; i < n; i++) {
        put_raw(t, keys, i, t->raw_of(rank_for(t, pattern, i, n, rng)));
        values[i] = (splitmix(rng) << 32) | (uint64_t)i;
    }
    memcpy(orig, keys, n * t->size);
    memcpy(orig_values, values, n * 8);
    ranked *ref = reference(t, orig, n, order);
    gpusort_status st = PAIRS64[pi].sort(s, keys, values, n, order, alg);
    if (st != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d (%s)", (int)st, gpusort_status_str((int)st));
        bad = why;
    }
    for (size_t i = 0; i < n && !bad; i++) {
        size_t at = ref[i].at;
        if (get_raw(t, keys, i) != get_raw(t, orig, at) || values[i] != orig_values[at]) {
            snprintf(why, sizeof why, "pair %zu is not input pair %zu of the stable order (value from %zu)", i, at,
                     (size_t)(values[i] & 0xFFFFFFFFu));
            bad = why;
        }
    }
    if (bad) {
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, " (n = %zu, %s)", n, PATTERN_NAMES[pattern]);
    }
    free(keys);
    free(orig);
    free(values);
    free(orig_values);
    free(ref);
    return bad;
}

/* Every key type and order on sorter `s` (named `sname`) with algorithm `alg`. */
static void pairs64_sort_checks(const gpusort_sorter *s, const char *sname, gpusort_algorithm alg) {
    uint64_t rng = 20261125 + alg;
    for (size_t pi = 0; pi < NPAIRS64; pi++) {
        if (!pairs64_key_type(PAIRS64[pi].name)) {
            check(0, "pairs64_checks.h: key type %s is not in TYPES", PAIRS64[pi].name);
            continue;
        }
        for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
            const char *bad = NULL;
            for (size_t si = 0; si < NSIZES && SIZES[si] <= largest_size(s) && !bad; si++)
                for (int p = 0; p < PATTERNS && !bad; p++)
                    bad = pairs64_case(pi, s, order, alg, p, SIZES[si], &rng);
            check(!bad, "sort pairs %s keys, u64 values, %s %s (%s sorter): the stable order, all 64 bits%s%s",
                  PAIRS64[pi].name, order ? "descending" : "ascending", ALG_NAMES[alg], sname, bad ? ": " : "",
                  bad ? bad : "");
        }
    }
}

static void pairs64_error_checks(const gpusort_sorter *cpu) {
    uint32_t k[4] = {3, 1, 2, 0};
    uint64_t v[4] = {30, 10, 20, 0};
    gpusort_status st = gpusort_sort_pairs_u32_u64(cpu, k, v, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_BITONIC);
    check(st == GPUSORT_UNSUPPORTED && k[0] == 3 && v[0] == 30,
          "pairs u32/u64: a sorting network on the cpu sorter is GPUSORT_UNSUPPORTED, arrays untouched");
    uint64_t buf[4] = {4, 3, 2, 1};
    st = gpusort_sort_pairs_u64_u64(cpu, buf, buf + 1, 3, GPUSORT_ASCENDING, 0);
    check(st == GPUSORT_INVALID_ARGUMENT && last_error_contains("overlap") && buf[0] == 4 && buf[3] == 1,
          "pairs u64/u64: overlapping key and value arrays are GPUSORT_INVALID_ARGUMENT, untouched");
    st = gpusort_sort_pairs_f64_u64(cpu, NULL, v, 2, GPUSORT_ASCENDING, 0);
    check(st == GPUSORT_INVALID_ARGUMENT && v[0] == 30, "pairs f64/u64: NULL keys with len 2 are refused");
    st = gpusort_sort_pairs_i32_u64(cpu, NULL, NULL, 0, GPUSORT_DESCENDING, 0);
    check(st == GPUSORT_OK, "pairs i32/u64: NULL arrays of length 0 succeed");
    st = gpusort_sort_pairs_u32_u64(cpu, k, v, 4, 7, 0);
    check(st == GPUSORT_INVALID_ARGUMENT && k[0] == 3 && v[0] == 30, "pairs u32/u64: an unknown order is refused");
}

#endif
