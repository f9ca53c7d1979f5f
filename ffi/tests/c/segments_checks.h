/* Checks of gpusort_sort_segments_<type>: every key type, both orders, with values and keys only,
 * edge sizes, input patterns and ways of cutting the array into segments (one segment, rows of
 * 1, 2, 2^k - 1, 2^k, 2^k + 1 and prime lengths, random cuts with empty segments first, inside
 * and last) against a reference (each segment qsorted by (rank, index): the index breaks ties,
 * which is what stability means), then the bad arguments, each refused with nothing written.
 * Included by test_gpusort.c after argsort_checks.h (check, last_error_contains, TYPES,
 * rank_for, ranked, cmp_ranked_asc/desc, ARG_SIZES, refused, TOP_PAGE). */
#ifndef GPUSORT_SEGMENTS_CHECKS_H
#define GPUSORT_SEGMENTS_CHECKS_H

#include <stddef.h>
#include <stdint.h>

typedef gpusort_status (*segments_fn)(const gpusort_sorter *, void *, uint32_t *, size_t, const size_t *, size_t,
                                      gpusort_order);

#define SEGMENTS_WRAP(T, CT)                                                                                  \
    static gpusort_status segments_##T(const gpusort_sorter *s, void *k, uint32_t *v, size_t n,             \
                                       const size_t *off, size_t num_off, gpusort_order o) {                 \
        return gpusort_sort_segments_##T(s, (CT *)k, v, n, off, num_off, o);                                  \
    }
SEGMENTS_WRAP(u32, uint32_t)
SEGMENTS_WRAP(i32, int32_t)
SEGMENTS_WRAP(f32, float)
SEGMENTS_WRAP(u64, uint64_t)
SEGMENTS_WRAP(i64, int64_t)
SEGMENTS_WRAP(f64, double)
SEGMENTS_WRAP(u16, uint16_t)
SEGMENTS_WRAP(i16, int16_t)
SEGMENTS_WRAP(u8, uint8_t)
SEGMENTS_WRAP(i8, int8_t)

/* In the order of TYPES. */
static const segments_fn SEGMENTS[] = {segments_u32, segments_i32, segments_f32, segments_u64, segments_i64,
                                       segments_f64, segments_u16, segments_i16, segments_u8,  segments_i8};

/* Ways to cut n keys: a positive value is a row length (the last row shorter), ONE_SEGMENT the
 * whole array, RANDOM_CUTS random offsets with repeats (empty segments, also first and last). */
enum { ONE_SEGMENT = 0, RANDOM_CUTS = -1 };
static const long CUTS[] = {ONE_SEGMENT, RANDOM_CUTS, 1, 2, 3, 7, 16, 17, 255, 256, 257, 1009};
#define NCUTS (sizeof CUTS / sizeof CUTS[0])

static const char *cut_name(long cut) {
    static char name[48];
    if (cut == ONE_SEGMENT)
        return "one segment";
    if (cut == RANDOM_CUTS)
        return "random cuts, empty segments";
    snprintf(name, sizeof name, "rows of %ld", cut);
    return name;
}

/* The offsets of `cut` for n keys into off (room for n + 3); returns how many. */
static size_t make_offsets(long cut, size_t n, size_t *off, uint64_t *rng) {
    size_t m = 0;
    off[m++] = 0;
    if (cut == RANDOM_CUTS) {
        off[m++] = 0; /* an empty first segment */
        size_t at = 0;
        while (at < n) {
            uint64_t r = splitmix(rng);
            /* A quarter of the cuts repeat the last offset: an empty segment inside. */
            at += (r & 3) == 0 ? 0 : (size_t)((r >> 2) % (n / 8 + 2));
            off[m++] = at < n ? at : n;
            if (m == n + 2) /* room for the closing n, n */
                break;
        }
        off[m - 1] = n;
        off[m++] = n; /* an empty last segment */
        return m;
    }
    size_t step = cut == ONE_SEGMENT ? (n ? n : 1) : (size_t)cut;
    for (size_t at = step; at < n; at += step)
        off[m++] = at;
    if (n > 0)
        off[m++] = n;
    return m;
}

/* One segmented sort of a seeded input, checked; a description of the failure, or NULL. */
static const char *segments_case(size_t ti, const gpusort_sorter *s, gpusort_order order, int with_values,
                                 long cut, int pattern, size_t n, uint64_t *rng) {
    const key_type *t = &TYPES[ti];
    void *keys = malloc(n * t->size + 8), *orig = malloc(n * t->size + 8);
    uint32_t *values = malloc((n + 1) * sizeof *values);
    size_t *off = malloc((n + 3) * sizeof *off);
    ranked *ref = malloc(n * sizeof *ref + 1);
    const char *bad = NULL;
    for (size_t i = 0; i < n; i++) {
        put_raw(t, keys, i, t->raw_of(rank_for(t, pattern, i, n, rng)));
        values[i] = (uint32_t)i;
        ref[i] = (ranked){t->rank_of(get_raw(t, keys, i)), i};
    }
    values[n] = UINT32_MAX;
    memcpy(orig, keys, n * t->size);
    size_t m = make_offsets(cut, n, off, rng);
    for (size_t g = 0; g + 1 < m; g++)
        qsort(ref + off[g], off[g + 1] - off[g], sizeof *ref,
              order == GPUSORT_ASCENDING ? cmp_ranked_asc : cmp_ranked_desc);
    gpusort_status st = SEGMENTS[ti](s, keys, with_values ? values : NULL, n, off, m, order);
    if (st != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d (%s)", (int)st, gpusort_status_str((int)st));
        bad = why;
    } else if (values[n] != UINT32_MAX) {
        bad = "wrote past values[n - 1]";
    }
    for (size_t i = 0; i < n && !bad; i++) {
        if (get_raw(t, keys, i) != get_raw(t, orig, ref[i].at)) {
            snprintf(why, sizeof why, "key %zu is not input key %zu of the stable order of its segment", i,
                     ref[i].at);
            bad = why;
        } else if (with_values ? values[i] != ref[i].at : values[i] != i) {
            snprintf(why, sizeof why, "value %zu is %u, not %zu", i, (unsigned)values[i],
                     with_values ? ref[i].at : i);
            bad = why;
        }
    }
    if (bad && bad != why) {
        snprintf(why, sizeof why, "%s", bad);
        bad = why;
    }
    if (bad) {
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, " (n = %zu, %s, %zu offsets, %s)", n, PATTERN_NAMES[pattern], m,
                 cut_name(cut));
    }
    free(keys);
    free(orig);
    free(values);
    free(off);
    free(ref);
    return bad;
}

/* Every key type and order, with values and keys only, every size, pattern and cut, on `s`. */
static void segments_sort_checks(const gpusort_sorter *s, const char *sname) {
    uint64_t rng = 20260715;
    for (size_t ti = 0; ti < NTYPES; ti++) {
        for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
            for (int with_values = 1; with_values >= 0; with_values--) {
                const char *bad = NULL;
                for (size_t si = 0; si < NARG_SIZES && ARG_SIZES[si] <= largest_size(s) && !bad; si++)
                    for (size_t ci = 0; ci < NCUTS && !bad; ci++)
                        for (int p = 0; p < PATTERNS && !bad; p++)
                            bad = segments_case(ti, s, order, with_values, CUTS[ci], p, ARG_SIZES[si], &rng);
                check(!bad, "sort_segments %s %s, %s (%s sorter): each segment in stable order%s%s%s",
                      TYPES[ti].name, order ? "descending" : "ascending", with_values ? "with values" : "keys only",
                      sname, with_values ? ", values attached" : ", values NULL", bad ? ": " : "", bad ? bad : "");
            }
        }
    }
}

/* The example of the header's gpusort_sort_segments_u32 comment. */
static void segments_example_check(void) {
    uint32_t keys[] = {3, 1, 2, 9, 7, 5}, rows[] = {0, 1, 2, 3, 4, 5};
    const size_t offsets[] = {0, 3, 5, 6};
    const uint32_t k1[] = {1, 2, 3, 7, 9, 5}, r1[] = {1, 2, 0, 4, 3, 5}, k2[] = {3, 2, 1, 9, 7, 5};
    int ok = gpusort_sort_segments_u32(NULL, keys, rows, 6, offsets, 4, GPUSORT_ASCENDING) == GPUSORT_OK &&
             memcmp(keys, k1, sizeof keys) == 0 && memcmp(rows, r1, sizeof rows) == 0;
    ok &= gpusort_sort_segments_u32(NULL, keys, NULL, 6, offsets, 4, GPUSORT_DESCENDING) == GPUSORT_OK &&
          memcmp(keys, k2, sizeof keys) == 0 && memcmp(rows, r1, sizeof rows) == 0;
    check(ok, "sort_segments, the header's example: 1 2 3 | 7 9 | 5 with rows 1 2 0 | 4 3 | 5, then keys only "
              "descending");
}

/* A refused segmented sort: the status, a message holding `words`. */
static int segments_refused(gpusort_status st, const char *words) {
    return st == GPUSORT_INVALID_ARGUMENT && last_error_contains(words);
}

static void segments_error_checks(const gpusort_sorter *cpu) {
    _Alignas(8) uint32_t k[8] = {3, 1, 2, 0, 7, 5, 6, 4}; /* 8 u32 keys or 4 8-byte ones */
    uint32_t v[4] = {0, 1, 2, 3};
    const uint32_t k0[8] = {3, 1, 2, 0, 7, 5, 6, 4}, v0[4] = {0, 1, 2, 3};
    void *top = (void *)TOP_PAGE;
    struct {
        size_t off[4], num;
        const char *words, *what;
    } bad[] = {
        {{0}, 0, "empty", "no offsets"},
        {{1, 4}, 2, "start at 1", "a first offset of 1"},
        {{0, 3}, 2, "end at 3", "a last offset short of n"},
        {{0, 5}, 2, "end at 5", "a last offset past n"},
        {{0, 3, 2, 4}, 4, "fall from 3 to 2", "falling offsets"},
        {{0, SIZE_MAX, 4}, 3, "fall from", "an offset of SIZE_MAX"},
    };
    for (size_t ti = 0; ti < NTYPES; ti++) {
        segments_fn f = SEGMENTS[ti];
        const size_t n = 4, whole[2] = {0, 4};
        int ok = 1;
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
            for (int with_values = 0; with_values < 2; with_values++) {
                int one = segments_refused(f(with_values ? cpu : NULL, k, with_values ? v : NULL, n, bad[b].off,
                                             bad[b].num, GPUSORT_ASCENDING),
                                           bad[b].words);
                if (!one)
                    printf("     (%s, %s: refused wrongly)\n", bad[b].what, with_values ? "with values" : "keys only");
                ok &= one;
            }
        ok &= segments_refused(f(cpu, k, v, n, NULL, 2, GPUSORT_ASCENDING), "offsets is NULL");
        ok &= segments_refused(f(cpu, k, v, n, NULL, 0, GPUSORT_ASCENDING), "empty");
        ok &= segments_refused(f(NULL, NULL, v, n, whole, 2, GPUSORT_ASCENDING), "keys is NULL");
        ok &= segments_refused(f(NULL, k, v, n, whole, 2, 2), "order 2");
        ok &= segments_refused(f(NULL, k, (uint32_t *)k, n, whole, 2, GPUSORT_ASCENDING), "overlap");
        ok &= segments_refused(f(NULL, (void *)whole, v, 2, whole, 2, GPUSORT_ASCENDING), "overlap");
        ok &= refused(f(NULL, top, v, TESTER_LEN, whole, 2, GPUSORT_ASCENDING), "keys");
        ok &= refused(f(NULL, top, NULL, 0x1000 / TYPES[ti].size, whole, 2, GPUSORT_DESCENDING), "keys");
        ok &= refused(f(cpu, k, (uint32_t *)top, 0x1000 / 4, whole, 2, GPUSORT_ASCENDING), "values");
        ok &= refused(f(cpu, k, v, n, (const size_t *)top, 0x1000 / sizeof(size_t), GPUSORT_ASCENDING), "offsets");
        check(ok && memcmp(k, k0, sizeof k) == 0 && memcmp(v, v0, sizeof v) == 0,
              "sort_segments %s: bad offsets (none, not from 0, not to n, falling), NULL with n > 0, a bad order, "
              "overlapping arrays, arrays past the address space: GPUSORT_INVALID_ARGUMENT, keys and values "
              "untouched",
              TYPES[ti].name);
        const size_t zero[1] = {0}, empties[3] = {0, 0, 0};
        ok = f(NULL, NULL, NULL, 0, zero, 1, GPUSORT_ASCENDING) == GPUSORT_OK &&
             f(cpu, NULL, NULL, 0, empties, 3, GPUSORT_DESCENDING) == GPUSORT_OK &&
             f(cpu, k, v, 0, zero, 1, GPUSORT_ASCENDING) == GPUSORT_OK &&
             segments_refused(f(NULL, NULL, NULL, 0, NULL, 0, GPUSORT_ASCENDING), "empty") &&
             segments_refused(f(NULL, NULL, NULL, 0, whole, 2, GPUSORT_ASCENDING), "end at 4");
        check(ok && memcmp(k, k0, sizeof k) == 0, "sort_segments %s, n = 0 with NULL arrays: GPUSORT_OK with the "
                                                  "offsets {0} or {0, 0, 0}, GPUSORT_INVALID_ARGUMENT without offsets",
              TYPES[ti].name);
    }
    const size_t whole[2] = {0, 4};
    check(gpusort_sort_segments_u32(cpu, k, v, 4, whole, 2, GPUSORT_ASCENDING) == GPUSORT_OK && k[0] == 0 &&
              k[3] == 3 && v[0] == 3 && v[3] == 0 && k[4] == 7,
          "sort_segments after the refused calls works, and only the n keys given");
}

static void segments_checks(const gpusort_sorter *cpu) {
    segments_example_check();
    segments_error_checks(cpu);
}

#endif
