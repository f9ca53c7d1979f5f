/* Checks of gpusort_top_k_<type>: every key type, both orders, edge sizes, input patterns and
 * values of k (0, 1, 2, n/2, n - 1, n, and around the 4096 where the selection changes method)
 * against a reference (the first k of a qsort of (rank, index): the index breaks ties, which is
 * what a stable sort means, so ties at the k-th key go to the earliest positions), with and
 * without indices, then the bad arguments, each refused with the outputs untouched. Included by
 * test_gpusort.c after argsort_checks.h (check, last_error_contains, TYPES, rank_for, ranked,
 * reference, refused, TOP_PAGE, TESTER_LEN). */
#ifndef GPUSORT_TOPK_CHECKS_H
#define GPUSORT_TOPK_CHECKS_H

#include <stddef.h>
#include <stdint.h>

typedef gpusort_status (*topk_fn)(const gpusort_sorter *, const void *, size_t, size_t, void *, uint64_t *,
                                  gpusort_order);

#define TOPK_WRAP(T, CT)                                                                                      \
    static gpusort_status topk_##T(const gpusort_sorter *s, const void *k, size_t n, size_t kk, void *out,  \
                                   uint64_t *idx, gpusort_order o) {                                        \
        return gpusort_top_k_##T(s, (const CT *)k, n, kk, (CT *)out, idx, o);                                \
    }
TOPK_WRAP(u32, uint32_t)
TOPK_WRAP(i32, int32_t)
TOPK_WRAP(f32, float)
TOPK_WRAP(u64, uint64_t)
TOPK_WRAP(i64, int64_t)
TOPK_WRAP(f64, double)
TOPK_WRAP(u16, uint16_t)
TOPK_WRAP(i16, int16_t)
TOPK_WRAP(u8, uint8_t)
TOPK_WRAP(i8, int8_t)

/* In the order of TYPES. */
static const topk_fn TOPKS[] = {topk_u32, topk_i32, topk_f32, topk_u64, topk_i64,
                                topk_f64, topk_u16, topk_i16, topk_u8,  topk_i8};

/* 0, 1, 2, primes, a few thousand, and one size past 4096 * 16 for the large-k paths. */
static const size_t TOPK_SIZES[] = {0, 1, 2, 3, 7, 97, 1009, 4099, 65537};
#define NTOPK_SIZES (sizeof TOPK_SIZES / sizeof TOPK_SIZES[0])

/* The values of k tried for n keys into ks (room for 8); returns how many, each at most n. */
static size_t topk_ks(size_t n, size_t *ks) {
    const size_t want[8] = {0, 1, 2, n / 2, n ? n - 1 : 0, n, 4096, 4097};
    size_t m = 0;
    for (size_t i = 0; i < 8; i++) {
        int seen = want[i] > n;
        for (size_t j = 0; j < m && !seen; j++)
            seen = ks[j] == want[i];
        if (!seen)
            ks[m++] = want[i];
    }
    return m;
}

/* One top-k of `keys` (n of them, with `ref` their stable order), checked; a description of the
 * failure, or NULL. Sentinels past the k outputs catch writes beyond them. */
static const char *topk_case(size_t ti, const gpusort_sorter *s, gpusort_order order, const void *keys,
                             const void *orig, const ranked *ref, size_t n, size_t k, int with_indices) {
    const key_type *t = &TYPES[ti];
    void *out = malloc((k + 1) * t->size);
    uint64_t *idx = malloc((k + 1) * sizeof *idx);
    const uint64_t fill = 0xA5A5A5A5A5A5A5A5u;
    const char *bad = NULL;
    for (size_t i = 0; i <= k; i++) {
        put_raw(t, out, i, fill);
        idx[i] = UINT64_MAX;
    }
    gpusort_status st = TOPKS[ti](s, keys, n, k, out, with_indices ? idx : NULL, order);
    if (st != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d (%s)", (int)st, gpusort_status_str((int)st));
        bad = why;
    } else if (memcmp(keys, orig, n * t->size) != 0) {
        bad = "the keys changed";
    } else if (get_raw(t, out, k) != get_raw(t, &fill, 0) || idx[k] != UINT64_MAX) {
        bad = "wrote past the k-th output";
    } else if (!with_indices && k > 0 && idx[0] != UINT64_MAX) {
        bad = "wrote indices with out_indices NULL";
    }
    for (size_t i = 0; i < k && !bad; i++) {
        if (get_raw(t, out, i) != get_raw(t, keys, ref[i].at)) {
            snprintf(why, sizeof why, "out_keys[%zu] is not input key %zu, the %zu-th of the stable order", i,
                     ref[i].at, i);
            bad = why;
        } else if (with_indices && idx[i] != ref[i].at) {
            snprintf(why, sizeof why, "out_indices[%zu] = %llu, the stable order has %zu", i,
                     (unsigned long long)idx[i], ref[i].at);
            bad = why;
        }
    }
    if (bad && bad != why) {
        snprintf(why, sizeof why, "%s", bad);
        bad = why;
    }
    free(out);
    free(idx);
    return bad;
}

/* Every k of one seeded input of n keys in `pattern`; a description of the first failure, or NULL. */
static const char *topk_input(size_t ti, const gpusort_sorter *s, gpusort_order order, int pattern, size_t n,
                              uint64_t *rng) {
    const key_type *t = &TYPES[ti];
    void *keys = malloc(n * t->size + 8), *orig = malloc(n * t->size + 8);
    size_t ks[8], m = topk_ks(n, ks);
    const char *bad = NULL;
    for (size_t i = 0; i < n; i++)
        put_raw(t, keys, i, t->raw_of(rank_for(t, pattern, i, n, rng)));
    memcpy(orig, keys, n * t->size);
    ranked *ref = reference(t, keys, n, order);
    for (size_t j = 0; j < m && !bad; j++) {
        /* Keys only for one k in three: the same selection, nothing written to indices. */
        int with_indices = j % 3 != 1;
        bad = topk_case(ti, s, order, keys, orig, ref, n, ks[j], with_indices);
        if (bad) {
            size_t used = strlen(why);
            snprintf(why + used, sizeof why - used, " (n = %zu, k = %zu, %s%s)", n, ks[j], PATTERN_NAMES[pattern],
                     with_indices ? "" : ", out_indices NULL");
        }
    }
    free(keys);
    free(orig);
    free(ref);
    return bad;
}

/* Every key type and order, every size, pattern and k, on sorter `s` (named `sname`). */
static void topk_sort_checks(const gpusort_sorter *s, const char *sname) {
    uint64_t rng = 20261125;
    for (size_t ti = 0; ti < NTYPES; ti++) {
        for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
            const char *bad = NULL;
            for (size_t si = 0; si < NTOPK_SIZES && TOPK_SIZES[si] <= largest_size(s) && !bad; si++)
                for (int p = 0; p < PATTERNS && !bad; p++)
                    bad = topk_input(ti, s, order, p, TOPK_SIZES[si], &rng);
            check(!bad, "top_k %s %s (%s sorter): the first k of the stable order, keys untouched%s%s", TYPES[ti].name,
                  order ? "descending" : "ascending", sname, bad ? ": " : "", bad ? bad : "");
        }
    }
}

/* The example of the header's gpusort_top_k_u32 comment. */
static void topk_example_check(void) {
    const uint32_t keys[] = {30, 10, 30, 20, 10};
    uint32_t best[3];
    uint64_t at[3];
    int ok = gpusort_top_k_u32(NULL, keys, 5, 3, best, at, GPUSORT_ASCENDING) == GPUSORT_OK && best[0] == 10 &&
             best[1] == 10 && best[2] == 20 && at[0] == 1 && at[1] == 4 && at[2] == 3;
    ok &= gpusort_top_k_u32(NULL, keys, 5, 1, best, NULL, GPUSORT_DESCENDING) == GPUSORT_OK && best[0] == 30 &&
          best[1] == 10 && at[0] == 1;
    check(ok, "top_k, the header's example: 10 10 20 at 1 4 3, then the largest alone, 30");
}

/* A refused top-k: the status, a message holding `words`. */
static int topk_refused(gpusort_status st, const char *words) {
    return st == GPUSORT_INVALID_ARGUMENT && last_error_contains(words);
}

static void topk_error_checks(const gpusort_sorter *cpu) {
    _Alignas(8) const uint32_t k[8] = {3, 1, 2, 0, 7, 5, 6, 4}; /* 8 u32 keys or 4 8-byte ones */
    _Alignas(8) uint32_t out[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    uint64_t idx[4] = {9, 9, 9, 9};
    const uint32_t out0[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    const uint64_t idx0[4] = {9, 9, 9, 9};
    static uint64_t big[1024]; /* keys enough for k up to a page of outputs */
    void *top = (void *)TOP_PAGE;
    for (size_t ti = 0; ti < NTYPES; ti++) {
        topk_fn f = TOPKS[ti];
        const size_t n = 4, page = 0x1000 / TYPES[ti].size;
        int ok = topk_refused(f(cpu, k, n, n + 1, out, idx, GPUSORT_ASCENDING), "k is 5 but there are 4 keys");
        ok &= topk_refused(f(NULL, k, n, SIZE_MAX, out, idx, GPUSORT_DESCENDING), "k is");
        ok &= topk_refused(f(NULL, NULL, 0, 1, out, idx, GPUSORT_ASCENDING), "k is 1 but there are 0 keys");
        ok &= topk_refused(f(NULL, k, n, n + 1, NULL, NULL, GPUSORT_ASCENDING), "k is 5");
        ok &= topk_refused(f(cpu, NULL, n, 2, out, idx, GPUSORT_ASCENDING), "keys is NULL");
        ok &= topk_refused(f(cpu, k, n, 2, NULL, idx, GPUSORT_ASCENDING), "out_keys is NULL");
        ok &= topk_refused(f(NULL, k, n, 2, out, idx, 2), "order 2");
        ok &= topk_refused(f(NULL, k, n, 2, (void *)k, idx, GPUSORT_ASCENDING), "overlap");
        ok &= topk_refused(f(NULL, k, n, 2, out, (uint64_t *)k, GPUSORT_ASCENDING), "overlap");
        ok &= topk_refused(f(NULL, k, n, 2, out, (uint64_t *)out, GPUSORT_ASCENDING), "overlap");
        /* One byte off is misaligned for every key type but the 8-bit ones. */
        if (TYPES[ti].size > 1)
            ok &= topk_refused(f(NULL, k, n, 1, (char *)out + 1, idx, GPUSORT_ASCENDING), "out_keys is not aligned");
        ok &= refused(f(NULL, top, TESTER_LEN, 1, out, idx, GPUSORT_ASCENDING), "keys");
        ok &= refused(f(cpu, top, page, 0, out, idx, GPUSORT_DESCENDING), "keys");
        ok &= refused(f(cpu, big, page, page, top, NULL, GPUSORT_ASCENDING), "out_keys");
        ok &= refused(f(NULL, big, 0x1000 / 8, 0x1000 / 8, big + 512, (uint64_t *)top, GPUSORT_ASCENDING),
                      "out_indices");
        check(ok && memcmp(out, out0, sizeof out) == 0 && memcmp(idx, idx0, sizeof idx) == 0,
              "top_k %s: k > n (SIZE_MAX too), NULL with n or k > 0, a bad order, overlapping or misaligned arrays, "
              "arrays past the address space: GPUSORT_INVALID_ARGUMENT, outputs untouched",
              TYPES[ti].name);
        ok = f(NULL, NULL, 0, 0, NULL, NULL, GPUSORT_ASCENDING) == GPUSORT_OK &&
             f(cpu, k, n, 0, NULL, NULL, GPUSORT_DESCENDING) == GPUSORT_OK &&
             f(cpu, k, n, 0, out, idx, GPUSORT_ASCENDING) == GPUSORT_OK;
        check(ok && memcmp(out, out0, sizeof out) == 0 && memcmp(idx, idx0, sizeof idx) == 0,
              "top_k %s, k = 0 (n = 0 or 4, NULL outputs too): GPUSORT_OK, nothing written", TYPES[ti].name);
        ok = f(cpu, k, 1, 1, out, idx, GPUSORT_DESCENDING) == GPUSORT_OK && idx[0] == 0 && idx[1] == 9 &&
             memcmp(out, k, TYPES[ti].size) == 0 && memcmp((char *)out + TYPES[ti].size, (const char *)out0 + TYPES[ti].size, 4) == 0;
        memcpy(out, out0, sizeof out);
        idx[0] = 9;
        check(ok, "top_k %s, n = k = 1: the key and index 0, nothing past them", TYPES[ti].name);
    }
    check(gpusort_top_k_u32(cpu, k, 8, 3, out, idx, GPUSORT_DESCENDING) == GPUSORT_OK && out[0] == 7 &&
              out[1] == 6 && out[2] == 5 && out[3] == 9 && idx[0] == 4 && idx[1] == 6 && idx[2] == 5 && idx[3] == 9,
          "top_k after the refused calls works, and writes only k outputs");
}

static void topk_checks(const gpusort_sorter *cpu) {
    topk_example_check();
    topk_error_checks(cpu);
}

#endif
