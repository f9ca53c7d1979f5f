/* Checks of the half-precision keys, f16 (IEEE 754 binary16) and bf16 (bfloat16), which C passes
 * as their uint16_t bits: keys alone in both orders, split pairs and argsort against a reference
 * written here (the bits ordered by IEEE totalOrder, ties by position), on inputs rich in NaNs of
 * both signs, infinities, zeros of both signs and subnormals; then argsort and keys on a sorter
 * with NaN last. Included by test_gpusort.c after argsort_checks.h (check, why, splitmix,
 * largest_size, ranked, cmp_ranked_asc, cmp_ranked_desc). */
#ifndef GPUSORT_HALF_CHECKS_H
#define GPUSORT_HALF_CHECKS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;
    uint16_t inf; /* +inf: the bits above it (sign bit cleared) are NaNs */
    const uint16_t *specials;
    size_t num_specials;
    gpusort_status (*keys)(const gpusort_sorter *, uint16_t *, size_t, gpusort_order, gpusort_algorithm);
    gpusort_status (*pairs)(const gpusort_sorter *, uint16_t *, uint32_t *, size_t, gpusort_order,
                            gpusort_algorithm);
    gpusort_status (*argsort)(const gpusort_sorter *, const uint16_t *, size_t, uint64_t *, gpusort_order);
} half_type;

/* Quiet, signalling and all-ones NaNs of both signs, +-inf, +-0, the smallest and largest
 * subnormals, the smallest normal, +-1, +-max. */
static const uint16_t F16_SPECIALS[] = {0x7E00, 0x7C01, 0x7FFF, 0xFE00, 0xFC01, 0xFFFF, 0x7C00, 0xFC00, 0x0000, 0x8000,
                                        0x0001, 0x03FF, 0x8001, 0x83FF, 0x0400, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF};
static const uint16_t BF16_SPECIALS[] = {0x7FC0, 0x7F81, 0x7FFF, 0xFFC0, 0xFF81, 0xFFFF, 0x7F80, 0xFF80, 0x0000, 0x8000,
                                         0x0001, 0x007F, 0x8001, 0x807F, 0x0080, 0x3F80, 0xBF80, 0x7F7F, 0xFF7F};

static const half_type HALF_TYPES[] = {
    {"f16", 0x7C00, F16_SPECIALS, sizeof F16_SPECIALS / sizeof F16_SPECIALS[0], gpusort_sort_keys_f16,
     gpusort_sort_pairs_f16, gpusort_argsort_f16},
    {"bf16", 0x7F80, BF16_SPECIALS, sizeof BF16_SPECIALS / sizeof BF16_SPECIALS[0], gpusort_sort_keys_bf16,
     gpusort_sort_pairs_bf16, gpusort_argsort_bf16},
};
#define NHALF_TYPES (sizeof HALF_TYPES / sizeof HALF_TYPES[0])

static const size_t HALF_SIZES[] = {0, 1, 2, 3, 17, 255, 256, 257, 4099, 65537};
#define NHALF_SIZES (sizeof HALF_SIZES / sizeof HALF_SIZES[0])

/* IEEE totalOrder on the bits: negatives reversed below the positives. */
static uint64_t half_total_rank(uint16_t b) { return (b & 0x8000u) ? (uint16_t)~b : (uint16_t)(b ^ 0x8000u); }

static int half_is_nan(const half_type *t, uint16_t b) { return (b & 0x7FFFu) > t->inf; }

/* The rank that sorts ascending into the NaN-last order of `order`: NaNs after every value (one
 * rank for all), -0.0 the same value as +0.0. */
static uint64_t half_nan_last_rank(const half_type *t, uint16_t b, gpusort_order order) {
    if (half_is_nan(t, b))
        return 0x10000u;
    uint64_t r = half_total_rank(b == 0x8000u ? 0 : b);
    return order == GPUSORT_ASCENDING ? r : 0xFFFFu - r;
}

/* The stable permutation of `keys` in `order`, in total order or (`nan_last`) NaN last. */
static ranked *half_reference(const half_type *t, const uint16_t *keys, size_t n, gpusort_order order, int nan_last) {
    ranked *ref = malloc(n * sizeof *ref + 1);
    for (size_t i = 0; ref && i < n; i++)
        ref[i] = (ranked){nan_last ? half_nan_last_rank(t, keys[i], order) : half_total_rank(keys[i]), i};
    if (ref)
        qsort(ref, n, sizeof *ref, nan_last || order == GPUSORT_ASCENDING ? cmp_ranked_asc : cmp_ranked_desc);
    return ref;
}

/* Half the keys from the specials, a quarter random bits, a quarter a few repeated values (ties). */
static void half_input(const half_type *t, uint16_t *keys, size_t n, uint64_t *rng) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix(rng);
        if (r & 1)
            keys[i] = t->specials[(r >> 8) % t->num_specials];
        else if (r & 2)
            keys[i] = (uint16_t)(r >> 16);
        else
            keys[i] = t->specials[8 + (r >> 8) % 4]; /* +-0.0 and two subnormals */
    }
}

enum half_mode { HALF_KEYS, HALF_PAIRS, HALF_ARGSORT };

/* One call of `mode` on a seeded input, checked bit for bit against the reference; a description
 * of the failure, or NULL. `nan_last`: `s` orders floats NaN last. */
static const char *half_case(const half_type *t, enum half_mode mode, const gpusort_sorter *s, gpusort_order order,
                             int nan_last, size_t n, uint64_t *rng) {
    uint16_t *keys = malloc(n * 2 + 2), *orig = malloc(n * 2 + 2);
    uint32_t *values = malloc(n * 4 + 4);
    uint64_t *out = malloc(n * 8 + 8);
    const char *bad = NULL;
    gpusort_status st;
    half_input(t, keys, n, rng);
    memcpy(orig, keys, n * 2);
    for (size_t i = 0; i < n; i++)
        values[i] = (uint32_t)i;
    out[n] = UINT64_MAX;
    ranked *ref = half_reference(t, keys, n, order, nan_last);
    if (mode == HALF_KEYS)
        st = t->keys(s, keys, n, order, GPUSORT_ALGORITHM_AUTO);
    else if (mode == HALF_PAIRS)
        st = t->pairs(s, keys, values, n, order, GPUSORT_ALGORITHM_AUTO);
    else
        st = t->argsort(s, keys, n, out, order);
    if (st != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d (%s)", (int)st, gpusort_status_str((int)st));
        bad = why;
    } else if (mode == HALF_ARGSORT && (memcmp(keys, orig, n * 2) != 0 || out[n] != UINT64_MAX)) {
        bad = "the keys changed, or out[n] was written";
    }
    for (size_t i = 0; i < n && !bad; i++) {
        size_t at = ref[i].at;
        if (mode == HALF_ARGSORT ? out[i] != at : keys[i] != orig[at]) {
            snprintf(why, sizeof why, "position %zu holds 0x%04x, the stable order 0x%04x (input %zu)", i,
                     (unsigned)(mode == HALF_ARGSORT ? orig[out[i] < n ? out[i] : 0] : keys[i]), (unsigned)orig[at], at);
            bad = why;
        } else if (mode == HALF_PAIRS && values[i] != at) {
            snprintf(why, sizeof why, "value %u at %zu, the stable order has %zu", (unsigned)values[i], i, at);
            bad = why;
        }
    }
    if (bad && bad != why) {
        snprintf(why, sizeof why, "%s", bad);
        bad = why;
    }
    if (bad) {
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, " (n = %zu)", n);
    }
    free(keys);
    free(orig);
    free(values);
    free(out);
    free(ref);
    return bad;
}

/* Ascending, spelled out: -NaN, -inf, -1, the largest negative subnormal, -0, +0, the smallest
 * subnormal, 1, +inf, +NaN; so that the reference's map is checked too. */
static void half_literal_checks(const gpusort_sorter *s, const char *sname) {
    static const uint16_t F16_IN[] = {0x7E00, 0x3C00, 0x8000, 0xFC00, 0x0001, 0xFE00, 0x0000, 0x7C00, 0x8001, 0xBC00};
    static const uint16_t F16_ASC[] = {0xFE00, 0xFC00, 0xBC00, 0x8001, 0x8000, 0x0000, 0x0001, 0x3C00, 0x7C00, 0x7E00};
    static const uint16_t BF16_IN[] = {0x7FC0, 0x3F80, 0x8000, 0xFF80, 0x0001, 0xFFC0, 0x0000, 0x7F80, 0x8001, 0xBF80};
    static const uint16_t BF16_ASC[] = {0xFFC0, 0xFF80, 0xBF80, 0x8001, 0x8000, 0x0000, 0x0001, 0x3F80, 0x7F80, 0x7FC0};
    const uint16_t *in[] = {F16_IN, BF16_IN}, *asc[] = {F16_ASC, BF16_ASC};
    enum { N = sizeof F16_IN / sizeof F16_IN[0] };
    for (size_t ti = 0; ti < NHALF_TYPES; ti++) {
        uint16_t k[N], desc[N];
        int ok = 1;
        for (size_t i = 0; i < N; i++)
            desc[i] = asc[ti][N - 1 - i];
        memcpy(k, in[ti], sizeof k);
        ok &= HALF_TYPES[ti].keys(s, k, N, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO) == GPUSORT_OK &&
              memcmp(k, asc[ti], sizeof k) == 0;
        memcpy(k, in[ti], sizeof k);
        ok &= HALF_TYPES[ti].keys(s, k, N, GPUSORT_DESCENDING, GPUSORT_ALGORITHM_AUTO) == GPUSORT_OK &&
              memcmp(k, desc, sizeof k) == 0;
        check(ok, "sort keys %s (%s sorter): -NaN -inf -1 -sub -0 +0 +sub 1 +inf +NaN ascending, reversed descending",
              HALF_TYPES[ti].name, sname);
    }
}

static void half_sort_checks(const gpusort_sorter *s, const char *sname) {
    static const char *MODES[] = {"sort keys", "sort pairs", "argsort"};
    static const enum half_mode NAN_LAST_MODES[] = {HALF_KEYS, HALF_ARGSORT};
    uint64_t rng = 20270216;
    half_literal_checks(s, sname);
    for (size_t ti = 0; ti < NHALF_TYPES; ti++)
        for (int m = HALF_KEYS; m <= HALF_ARGSORT; m++)
            for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
                const char *bad = NULL;
                for (size_t si = 0; si < NHALF_SIZES && HALF_SIZES[si] <= largest_size(s) && !bad; si++)
                    bad = half_case(&HALF_TYPES[ti], (enum half_mode)m, s, order, 0, HALF_SIZES[si], &rng);
                check(!bad, "%s %s %s (%s sorter): IEEE totalOrder with NaN, inf, -0.0, subnormals, stable%s%s",
                      MODES[m], HALF_TYPES[ti].name, order ? "descending" : "ascending", sname, bad ? ": " : "",
                      bad ? bad : "");
            }

    /* A sorter with NaN last: argsort and keys follow it, -0.0 == +0.0 (kept in input order); the
     * pair sorts, which keep total order, refuse it. */
    gpusort_sorter *nl = NULL;
    gpusort_status st = gpusort_sorter_with_float_order(s, GPUSORT_FLOAT_ORDER_NAN_LAST, &nl);
    check(st == GPUSORT_OK && nl != NULL, "a NaN-last sorter from the %s sorter", sname);
    if (nl == NULL)
        return;
    for (size_t ti = 0; ti < NHALF_TYPES; ti++) {
        for (size_t mi = 0; mi < 2; mi++)
            for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
                const enum half_mode m = NAN_LAST_MODES[mi];
                const char *bad = NULL;
                for (size_t si = 0; si < NHALF_SIZES && HALF_SIZES[si] <= largest_size(s) && !bad; si++)
                    bad = half_case(&HALF_TYPES[ti], m, nl, order, 1, HALF_SIZES[si], &rng);
                check(!bad, "%s %s %s (%s sorter, NaN last): NaNs last, -0.0 == +0.0, stable%s%s", MODES[m],
                      HALF_TYPES[ti].name, order ? "descending" : "ascending", sname, bad ? ": " : "",
                      bad ? bad : "");
            }
        uint16_t k[2] = {0x8000, 0x0000};
        uint32_t v[2] = {0, 1};
        st = HALF_TYPES[ti].pairs(nl, k, v, 2, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
        check(st == GPUSORT_INVALID_ARGUMENT && k[0] == 0x8000 && v[0] == 0,
              "sort pairs %s on a NaN-last sorter: GPUSORT_INVALID_ARGUMENT, arrays untouched", HALF_TYPES[ti].name);
    }
    gpusort_sorter_free(nl);
}

#endif
