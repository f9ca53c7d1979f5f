/* Tests of the gpusort C API: every sort entry point on seeded data (checked here: sorted,
 * a permutation with every value still attached to its key, stable where promised) and every
 * error path (hostile callers: hostile_checks.h; argsort and records: argsort_checks.h; segmented
 * sorts: segments_checks.h; top-k: topk_checks.h; multi-key sorts and float orders: lexsort_checks.h;
 * half-precision keys: half_checks.h; file sorts: file_checks.h; byte-string keys: byte_key_checks.h). Prints one line per check and ends
 * with "N passed, M failed"; exits nonzero on any failure. Build: see ci/ffi.sh. */
/* POSIX, for file_checks.h's temporary folder (mkdtemp, readdir, unlink, rmdir). */
#define _POSIX_C_SOURCE 200809L
#include "gpusort.h"
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>


static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* ---- key types: each maps its raw bits to an unsigned "rank" that orders like the key ---- */

typedef gpusort_status (*keys_fn)(const gpusort_sorter *, void *, size_t, gpusort_order, gpusort_algorithm);
typedef gpusort_status (*pairs_fn)(const gpusort_sorter *, void *, uint32_t *, size_t, gpusort_order,
                                   gpusort_algorithm);

typedef struct {
    const char *name;
    size_t size;
    uint64_t max_rank;
    uint64_t (*rank_of)(uint64_t raw);
    uint64_t (*raw_of)(uint64_t rank);
    keys_fn keys;
    pairs_fn pairs;
} key_type;

static uint64_t ident(uint64_t x) { return x; }
static uint64_t i32_rank(uint64_t raw) { return (uint32_t)raw ^ 0x80000000u; }
/* IEEE totalOrder: flip all bits of negatives, the sign bit of positives. */
static uint64_t f32_rank(uint64_t raw) {
    uint32_t b = (uint32_t)raw;
    return (b & 0x80000000u) ? (uint32_t)~b : (b ^ 0x80000000u);
}
static uint64_t f32_raw(uint64_t rank) {
    uint32_t r = (uint32_t)rank;
    return (r & 0x80000000u) ? (r ^ 0x80000000u) : (uint32_t)~r;
}

static uint64_t i64_rank(uint64_t raw) { return raw ^ 0x8000000000000000ull; }
static uint64_t f64_rank(uint64_t b) { return (b & 0x8000000000000000ull) ? ~b : (b ^ 0x8000000000000000ull); }
static uint64_t f64_raw(uint64_t r) { return (r & 0x8000000000000000ull) ? (r ^ 0x8000000000000000ull) : ~r; }
/* Small signed keys: the sign bit flipped, as for int32_t. */
static uint64_t i16_rank(uint64_t raw) { return (uint16_t)raw ^ 0x8000u; }
static uint64_t i8_rank(uint64_t raw) { return (uint8_t)raw ^ 0x80u; }

#define WRAP(T, CT)                                                                                           \
    static gpusort_status keys_##T(const gpusort_sorter *s, void *k, size_t n, gpusort_order o,            \
                                   gpusort_algorithm a) {                                                   \
        return gpusort_sort_keys_##T(s, (CT *)k, n, o, a);                                                  \
    }                                                                                                       \
    static gpusort_status pairs_##T(const gpusort_sorter *s, void *k, uint32_t *v, size_t n, gpusort_order o, \
                                    gpusort_algorithm a) {                                                  \
        return gpusort_sort_pairs_##T(s, (CT *)k, v, n, o, a);                                              \
    }
WRAP(u32, uint32_t)
WRAP(i32, int32_t)
WRAP(f32, float)
WRAP(u64, uint64_t)
WRAP(i64, int64_t)
WRAP(f64, double)
WRAP(u16, uint16_t)
WRAP(i16, int16_t)
WRAP(u8, uint8_t)
WRAP(i8, int8_t)

static const key_type TYPES[] = {
    {"u32", 4, 0xFFFFFFFFu, ident, ident, keys_u32, pairs_u32},
    {"i32", 4, 0xFFFFFFFFu, i32_rank, i32_rank, keys_i32, pairs_i32},
    {"f32", 4, 0xFFFFFFFFu, f32_rank, f32_raw, keys_f32, pairs_f32},
    {"u64", 8, UINT64_MAX, ident, ident, keys_u64, pairs_u64},
    {"i64", 8, UINT64_MAX, i64_rank, i64_rank, keys_i64, pairs_i64},
    {"f64", 8, UINT64_MAX, f64_rank, f64_raw, keys_f64, pairs_f64},
    {"u16", 2, 0xFFFFu, ident, ident, keys_u16, pairs_u16},
    {"i16", 2, 0xFFFFu, i16_rank, i16_rank, keys_i16, pairs_i16},
    {"u8", 1, 0xFFu, ident, ident, keys_u8, pairs_u8},
    {"i8", 1, 0xFFu, i8_rank, i8_rank, keys_i8, pairs_i8},
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

static uint64_t get_raw(const key_type *t, const void *base, size_t i) {
    if (t->size == 1)
        return ((const uint8_t *)base)[i];
    if (t->size == 2) {
        uint16_t x;
        memcpy(&x, (const char *)base + i * 2, 2);
        return x;
    }
    if (t->size == 4) {
        uint32_t x;
        memcpy(&x, (const char *)base + i * 4, 4);
        return x;
    }
    uint64_t x;
    memcpy(&x, (const char *)base + i * 8, 8);
    return x;
}

static void put_raw(const key_type *t, void *base, size_t i, uint64_t raw) {
    if (t->size == 1) {
        ((uint8_t *)base)[i] = (uint8_t)raw;
    } else if (t->size == 2) {
        uint16_t x = (uint16_t)raw;
        memcpy((char *)base + i * 2, &x, 2);
    } else if (t->size == 4) {
        uint32_t x = (uint32_t)raw;
        memcpy((char *)base + i * 4, &x, 4);
    } else {
        memcpy((char *)base + i * 8, &raw, 8);
    }
}

enum { RANDOM, FEW, EQUAL, SORTED, REVERSE, EXTREMES, PATTERNS };
static const char *PATTERN_NAMES[] = {"random", "few distinct", "all equal", "sorted", "reverse", "extremes"};
static const size_t SIZES[] = {0, 1, 2, 3, 7, 8, 9, 31, 32, 33, 97, 255, 256, 257, 1000, 4099, 65536, 65537};
#define NSIZES (sizeof SIZES / sizeof SIZES[0])

/* The largest size a sweep on sorter `s` tests. The checks here are at the interface: sizes past
 * 4099 pick the GPU's paths, so they run on sorters that reach a GPU (the cuda one, and the default
 * one where a GPU is usable). The CPU backend's large sizes are the Rust suites'; in CI the library
 * here is unoptimised, and they took most of this program's four minutes. Without a GPU the
 * default sorter is the cpu one, whose sweep takes every size to 4099: the default's stops at 257,
 * as does the sanitizer run's (ci/ffi.sh sets GPUSORT_C_TEST_QUICK=1), whose checks are of memory
 * at the interface. The size tables are ascending. */
static int gpu_usable;
static const gpusort_sorter *cpu_sorter;
static size_t largest_size(const gpusort_sorter *s) {
    const char *quick = getenv("GPUSORT_C_TEST_QUICK");
    if ((quick && quick[0] == '1') || (s == NULL && !gpu_usable))
        return 257;
    return gpu_usable && s != cpu_sorter ? SIZE_MAX : 4099;
}

/* A rank for element i of n in a pattern; for f32 the mid rank 0x80000000 is +0.0, one below -0.0.
 * Small keys (16 and 8 bits) take the middle of their own range and wrap: their "sorted" and
 * "reverse" inputs past 2^16 / 2^8 / 3 keys are sorted runs. */
static uint64_t rank_for(const key_type *t, int pattern, size_t i, size_t n, uint64_t *rng) {
    const int small = t->size < 4;
    const uint64_t mid = small ? (t->max_rank >> 1) + 1 : 0x80000000u, r = splitmix(rng);
    uint64_t rank;
    switch (pattern) {
    case RANDOM: rank = t->max_rank == UINT64_MAX ? r : (r & t->max_rank); break;
    case FEW: {
        const uint64_t few[5] = {0, mid - 1, mid, mid + 1, t->max_rank};
        rank = few[r % 5];
        break;
    }
    case EQUAL: rank = mid + 12345; break;
    case SORTED: rank = mid + 3 * (uint64_t)i; break;
    case REVERSE: rank = mid + 3 * (uint64_t)(n - i); break;
    default: rank = (r & 1) ? t->max_rank : 0;
    }
    return small ? rank & t->max_rank : rank;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* ---- one sort call checked against its input; returns a description of the failure or NULL ---- */

enum mode { KEYS, PAIRS, KVP };
static char why[320];

static const char *run_case(const key_type *t, enum mode mode, const gpusort_sorter *s, gpusort_order order,
                            gpusort_algorithm alg, int pattern, size_t n, uint64_t *rng) {
    void *keys = malloc(n * t->size + 8), *orig = malloc(n * t->size + 8);
    uint32_t *values = malloc(n * 4 + 4);
    gpusort_kvp *kvp = malloc(n * sizeof(gpusort_kvp) + 8);
    uint64_t *ref = malloc(n * 8 + 8);
    unsigned char *seen = calloc(n + 1, 1);
    const char *bad = NULL;
    gpusort_status st;
    size_t i;
    for (i = 0; i < n; i++) {
        put_raw(t, keys, i, t->raw_of(rank_for(t, pattern, i, n, rng)));
        values[i] = (uint32_t)i;
        kvp[i].key = (uint32_t)get_raw(t, keys, i);
        kvp[i].value = (uint32_t)i;
        ref[i] = t->rank_of(get_raw(t, keys, i));
    }
    memcpy(orig, keys, n * t->size);
    if (mode == KEYS)
        st = t->keys(s, keys, n, order, alg);
    else if (mode == PAIRS)
        st = t->pairs(s, keys, values, n, order, alg);
    else {
        st = gpusort_sort_kvp(s, kvp, n, order, alg);
        for (i = 0; i < n; i++) {
            put_raw(t, keys, i, kvp[i].key);
            values[i] = kvp[i].value;
        }
    }
    if (st != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d (%s)", (int)st, gpusort_status_str((int)st));
        bad = why;
        goto done;
    }
    qsort(ref, n, 8, cmp_u64);
    for (i = 0; i < n && !bad; i++) {
        uint64_t got = t->rank_of(get_raw(t, keys, i));
        uint64_t want = order == GPUSORT_ASCENDING ? ref[i] : ref[n - 1 - i];
        if (got != want) {
            snprintf(why, sizeof why, "key %zu is not the %zu-th in order", i, i);
            bad = why;
        } else if (mode != KEYS) {
            uint32_t v = values[i];
            if (v >= n || seen[v]) {
                snprintf(why, sizeof why, "value %u at %zu is not from a permutation", (unsigned)v, i);
                bad = why;
            } else if (get_raw(t, orig, v) != get_raw(t, keys, i)) {
                snprintf(why, sizeof why, "value %u at %zu left its key", (unsigned)v, i);
                bad = why;
            } else if ((alg == GPUSORT_ALGORITHM_AUTO || alg == GPUSORT_ALGORITHM_RADIX) && i > 0 &&
                       t->rank_of(get_raw(t, keys, i - 1)) == got && values[i - 1] > v) {
                snprintf(why, sizeof why, "unstable at %zu: equal keys with values %u then %u", i,
                         (unsigned)values[i - 1], (unsigned)v);
                bad = why;
            }
            seen[v] = 1;
        }
    }
done:
    if (bad) {
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, " (n = %zu, %s)", n, PATTERN_NAMES[pattern]);
    }
    free(keys);
    free(orig);
    free(values);
    free(kvp);
    free(ref);
    free(seen);
    return bad;
}

static const char *ALG_NAMES[] = {"auto", "radix", "bitonic", "odd-even merge"};

/* Every mode, key type and order with algorithm `alg` on sorter `s` (named `sname`). */
static void sort_checks(const gpusort_sorter *s, const char *sname, gpusort_algorithm alg) {
    static const char *MODE_NAMES[] = {"keys", "pairs", "kvp"};
    int stable = alg == GPUSORT_ALGORITHM_AUTO || alg == GPUSORT_ALGORITHM_RADIX;
    uint64_t rng = 20261122 + alg;
    for (int m = KEYS; m <= KVP; m++) {
        for (size_t ti = 0; ti < (m == KVP ? 1 : NTYPES); ti++) {
            /* The GPU sorting networks take 32-bit keys; 64-bit keys are GPUSORT_UNSUPPORTED there. */
            if (!stable && TYPES[ti].size == 8) continue;
            for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
                const char *bad = NULL;
                for (size_t si = 0; si < NSIZES && SIZES[si] <= largest_size(s) && !bad; si++)
                    for (int p = 0; p < PATTERNS && !bad; p++)
                        bad = run_case(&TYPES[ti], (enum mode)m, s, order, alg, p, SIZES[si], &rng);
                check(!bad, "sort %s %s %s %s (%s sorter): sorted, permutation%s%s%s", MODE_NAMES[m], TYPES[ti].name,
                      order ? "descending" : "ascending", ALG_NAMES[alg], sname,
                      m == KEYS ? "" : (stable ? ", values attached, stable" : ", values attached"), bad ? ": " : "",
                      bad ? bad : "");
            }
        }
    }
}

/* ---- error paths ---- */

static int last_error_contains(const char *needle) {
    char buf[512];
    size_t n = 0;
    return gpusort_last_error_message(buf, sizeof buf, &n) == GPUSORT_OK && n == strlen(buf) &&
           strstr(buf, needle) != NULL;
}

static void error_checks(const gpusort_sorter *cpu) {
    uint32_t k[4] = {3, 1, 2, 0}, v[4] = {0, 1, 2, 3};
    const uint32_t k0[4] = {3, 1, 2, 0}, v0[4] = {0, 1, 2, 3};
    gpusort_kvp kvp[2] = {{2, 0}, {1, 1}};
    int32_t ki[2] = {1, -1};
    float kf[2] = {1.0f, -1.0f};
    uint64_t k64[2] = {2, 1};
    gpusort_status st;

    check(gpusort_sort_kvp(NULL, NULL, 5, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO) == GPUSORT_INVALID_ARGUMENT,
          "kvp: NULL data with n = 5 is GPUSORT_INVALID_ARGUMENT");
    check(last_error_contains("NULL"), "kvp: the last error message names the NULL pointer");
    for (size_t ti = 0; ti < NTYPES; ti++) {
        const key_type *t = &TYPES[ti];
        check(t->keys(cpu, NULL, 3, GPUSORT_ASCENDING, 0) == GPUSORT_INVALID_ARGUMENT,
              "keys %s: NULL keys with n = 3 is GPUSORT_INVALID_ARGUMENT", t->name);
        check(t->pairs(cpu, NULL, v, 3, GPUSORT_ASCENDING, 0) == GPUSORT_INVALID_ARGUMENT &&
                  memcmp(v, v0, sizeof v) == 0,
              "pairs %s: NULL keys with n = 3 is GPUSORT_INVALID_ARGUMENT, values untouched", t->name);
        check(t->pairs(cpu, k, NULL, 3, GPUSORT_ASCENDING, 0) == GPUSORT_INVALID_ARGUMENT &&
                  memcmp(k, k0, sizeof k) == 0,
              "pairs %s: NULL values with n = 3 is GPUSORT_INVALID_ARGUMENT, keys untouched", t->name);
        check(t->keys(NULL, NULL, 0, GPUSORT_DESCENDING, 0) == GPUSORT_OK &&
                  t->pairs(NULL, NULL, NULL, 0, GPUSORT_DESCENDING, 0) == GPUSORT_OK &&
                  t->keys(cpu, k, 0, GPUSORT_ASCENDING, 0) == GPUSORT_OK && memcmp(k, k0, sizeof k) == 0,
              "%s: n = 0 is GPUSORT_OK with NULL or real arrays, which stay untouched", t->name);
    }
    check(gpusort_sort_kvp(cpu, NULL, 0, GPUSORT_ASCENDING, 0) == GPUSORT_OK, "kvp: n = 0 with NULL is GPUSORT_OK");

    st = gpusort_sort_keys_u32(cpu, k, 4, 2, GPUSORT_ALGORITHM_AUTO);
    check(st == GPUSORT_INVALID_ARGUMENT && memcmp(k, k0, sizeof k) == 0,
          "order 2 is GPUSORT_INVALID_ARGUMENT and the keys keep their contents");
    check(last_error_contains("order 2"), "the last error message after a bad order names it");
    check(gpusort_sort_pairs_u32(NULL, k, v, 4, UINT32_MAX, 0) == GPUSORT_INVALID_ARGUMENT &&
              memcmp(k, k0, sizeof k) == 0 && memcmp(v, v0, sizeof v) == 0,
          "order UINT32_MAX on split pairs is GPUSORT_INVALID_ARGUMENT, both arrays untouched");
    check(gpusort_sort_kvp(NULL, NULL, 0, 7, 0) == GPUSORT_INVALID_ARGUMENT,
          "a bad order is rejected even when n = 0");
    check(gpusort_sort_kvp(NULL, kvp, 2, GPUSORT_ASCENDING, 4) == GPUSORT_INVALID_ARGUMENT && kvp[0].key == 2 &&
              last_error_contains("algorithm 4"),
          "algorithm 4 is GPUSORT_INVALID_ARGUMENT, data untouched, message names it");

    st = gpusort_sort_keys_u32(cpu, k, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_BITONIC);
    check(st == GPUSORT_UNSUPPORTED && memcmp(k, k0, sizeof k) == 0 && last_error_contains("cpu"),
          "bitonic on a CPU sorter is GPUSORT_UNSUPPORTED, keys untouched, message says why");
    st = gpusort_sort_pairs_u32(cpu, k, v, 4, GPUSORT_DESCENDING, GPUSORT_ALGORITHM_ODD_EVEN_MERGE);
    check(st == GPUSORT_UNSUPPORTED && memcmp(k, k0, sizeof k) == 0 && memcmp(v, v0, sizeof v) == 0,
          "odd-even merge on a CPU sorter is GPUSORT_UNSUPPORTED, both arrays untouched");

    check(gpusort_sort_keys_u32(cpu, k, SIZE_MAX, GPUSORT_ASCENDING, 0) == GPUSORT_INVALID_ARGUMENT &&
              memcmp(k, k0, sizeof k) == 0 && last_error_contains("address space"),
          "length SIZE_MAX is GPUSORT_INVALID_ARGUMENT, nothing touched");
    check(gpusort_sort_kvp(cpu, kvp, SIZE_MAX / 8 + 1, GPUSORT_ASCENDING, 0) == GPUSORT_INVALID_ARGUMENT &&
              kvp[0].key == 2,
          "kvp length SIZE_MAX / 8 + 1 (past PTRDIFF_MAX bytes) is GPUSORT_INVALID_ARGUMENT");
    check(gpusort_sort_pairs_u32(cpu, k, k + 1, 3, GPUSORT_ASCENDING, 0) == GPUSORT_INVALID_ARGUMENT &&
              memcmp(k, k0, sizeof k) == 0 && last_error_contains("overlap"),
          "overlapping key and value arrays are GPUSORT_INVALID_ARGUMENT");
    check(gpusort_sort_pairs_u32(cpu, k, k + 2, 2, GPUSORT_ASCENDING, 0) == GPUSORT_OK && k[0] == 1 && k[1] == 3 &&
              k[2] == 0 && k[3] == 2,
          "adjacent (non-overlapping) halves of one array are fine");
    memcpy(k, k0, sizeof k);

    check(gpusort_sort_keys_i32(NULL, ki, 2, GPUSORT_ASCENDING, 0) == GPUSORT_OK && ki[0] == -1 &&
              gpusort_sort_keys_f32(NULL, kf, 2, GPUSORT_ASCENDING, 0) == GPUSORT_OK && kf[0] == -1.0f &&
              gpusort_sort_keys_u64(NULL, k64, 2, GPUSORT_ASCENDING, 0) == GPUSORT_OK && k64[0] == 1,
          "a call after failures succeeds (no sticky error state)");

    /* sorter handles */
    gpusort_sorter *h = (gpusort_sorter *)&st; /* sentinel: must stay untouched on failure */
    check(gpusort_sorter_new(GPUSORT_BACKEND_CPU, NULL) == GPUSORT_INVALID_ARGUMENT && last_error_contains("NULL"),
          "gpusort_sorter_new with a NULL out pointer is GPUSORT_INVALID_ARGUMENT");
    check(gpusort_sorter_new(3, &h) == GPUSORT_INVALID_ARGUMENT && h == (gpusort_sorter *)&st &&
              last_error_contains("backend 3"),
          "backend 3 is GPUSORT_INVALID_ARGUMENT and *out is left alone");
    h = NULL;
    st = gpusort_sorter_new(GPUSORT_BACKEND_CUDA, &h);
    check((st == GPUSORT_OK && h != NULL) ||
              ((st == GPUSORT_NO_DRIVER || st == GPUSORT_NO_DEVICE || st == GPUSORT_UNSUPPORTED) && h == NULL &&
               last_error_contains(" ")),
          "backend cuda: %s (%s)", gpusort_status_str((int)st),
          st == GPUSORT_OK ? "a GPU is here" : "no usable GPU here, which is expected without one");
    gpusort_sorter_free(h);
    h = NULL;
    check(gpusort_sorter_new(GPUSORT_BACKEND_AUTO, &h) == GPUSORT_OK && h != NULL &&
              gpusort_sort_keys_u32(h, k, 4, GPUSORT_DESCENDING, 0) == GPUSORT_OK && k[0] == 3 && k[3] == 0,
          "an auto sorter always opens and sorts");
    gpusort_sorter_free(h);
    gpusort_sorter_free(NULL);
    check(1, "gpusort_sorter_free(NULL) is a no-op");

    /* describe */
    char big[512], small[8];
    size_t need = 0, need2 = 0, n0 = 0;
    /* the calls come before check(): its other arguments may be evaluated first */
    st = gpusort_describe(cpu, big, sizeof big, &need);
    check(st == GPUSORT_OK && need == strlen(big) && need > 0, "describe (cpu sorter): \"%s\"", big);
    memset(small, 'x', sizeof small);
    st = gpusort_describe(cpu, small, sizeof small, &need2);
    check(st == GPUSORT_BUFFER_TOO_SMALL && need2 == need && small[7] == '\0' && strlen(small) == 7 &&
              strncmp(small, big, 7) == 0,
          "describe into 8 bytes: GPUSORT_BUFFER_TOO_SMALL, NUL-terminated prefix \"%s\", needed %zu", small, need2);
    check(gpusort_describe(cpu, NULL, 0, &n0) == GPUSORT_BUFFER_TOO_SMALL && n0 == need,
          "describe with NULL, 0 reports the needed length");
    check(gpusort_describe(cpu, NULL, 4, NULL) == GPUSORT_INVALID_ARGUMENT, "describe with NULL, 4 is invalid");
    st = gpusort_describe(NULL, big, sizeof big, NULL);
    check(st == GPUSORT_OK && strlen(big) > 0, "describe (default sorter): \"%s\"", big);
    small[0] = 'x';
    check(gpusort_describe(NULL, small, 1, NULL) == GPUSORT_BUFFER_TOO_SMALL && small[0] == '\0',
          "describe into 1 byte writes just the NUL");

    /* last error */
    gpusort_sort_keys_u32(NULL, k, 4, 9, 0);
    char tiny[6];
    size_t full = 0, again = 0;
    st = gpusort_last_error_message(tiny, sizeof tiny, &full);
    check(st == GPUSORT_BUFFER_TOO_SMALL && strlen(tiny) == 5 && full > 5,
          "last error into 6 bytes: GPUSORT_BUFFER_TOO_SMALL, \"%s\", full length %zu", tiny, full);
    st = gpusort_last_error_message(big, sizeof big, &again);
    check(st == GPUSORT_OK && again == full && strstr(big, "order 9") != NULL,
          "reading the last error (even too small) keeps it: \"%s\"", big);
    check(gpusort_last_error_message(NULL, 3, NULL) == GPUSORT_INVALID_ARGUMENT && last_error_contains("order 9"),
          "last error with NULL, 3 is invalid and still keeps the message");

    /* status strings */
    const char *seen[GPUSORT_CANCELLED + 1];
    int distinct = 1;
    for (int s = 0; s <= GPUSORT_CANCELLED; s++) {
        seen[s] = gpusort_status_str(s);
        int ok = seen[s] != NULL && seen[s][0] != '\0' && strcmp(seen[s], "unknown status") != 0;
        for (int j = 0; j < s; j++)
            distinct &= strcmp(seen[j], seen[s]) != 0;
        check(ok, "gpusort_status_str(%d) = \"%s\"", s, seen[s] ? seen[s] : "(null)");
    }
    check(distinct, "the status strings are distinct");
    check(strcmp(gpusort_status_str(-1), "unknown status") == 0 &&
              strcmp(gpusort_status_str(GPUSORT_CANCELLED + 1), "unknown status") == 0,
          "gpusort_status_str of an unknown value is \"unknown status\"");
    check(gpusort_version() != NULL && strchr(gpusort_version(), '.') != NULL, "gpusort_version() = \"%s\"",
          gpusort_version());
}

#include "hostile_checks.h"
#include "argsort_checks.h"
#include "segments_checks.h"
#include "topk_checks.h"
#include "pairs64_checks.h"
#include "device_checks.h"
#include "embed_checks.h"
#include "lexsort_checks.h"
#include "half_checks.h"
#include "file_checks.h"
#include "byte_key_checks.h"

/* ---- one sorter shared by several threads; the last error stays per thread ---- */

typedef struct {
    const gpusort_sorter *sorter;
    int id, ok;
} worker;

static int work(void *arg) {
    worker *w = arg;
    uint64_t rng = 1000 + (uint64_t)w->id;
    enum { N = 3001 };
    static uint32_t keys[4][N], vals[4][N];
    uint32_t *k = keys[w->id], *v = vals[w->id];
    w->ok = 1;
    for (int round = 0; round < 20 && w->ok; round++) {
        for (int i = 0; i < N; i++) {
            k[i] = (uint32_t)(splitmix(&rng) % 1000);
            v[i] = (uint32_t)i;
        }
        if (gpusort_sort_pairs_u32(w->sorter, k, v, N, GPUSORT_ASCENDING, 0) != GPUSORT_OK)
            w->ok = 0;
        for (int i = 1; i < N && w->ok; i++)
            w->ok = k[i - 1] < k[i] || (k[i - 1] == k[i] && v[i - 1] < v[i]);
        if (w->id == 0) {
            w->ok &= gpusort_sort_keys_u32(w->sorter, k, N, 5, 0) == GPUSORT_INVALID_ARGUMENT;
            w->ok &= last_error_contains("order 5");
        }
    }
    if (w->id != 0) {
        char buf[8] = "x";
        size_t n = 1;
        w->ok &= gpusort_last_error_message(buf, sizeof buf, &n) == GPUSORT_OK && n == 0 && buf[0] == '\0';
    }
    return 0;
}

/* Gives memory back over and over while the workers sort. */
static int release_loop(void *arg) {
    worker *w = arg;
    w->ok = 1;
    for (int i = 0; i < 200; i++)
        w->ok &= gpusort_release_memory(w->sorter) == GPUSORT_OK;
    return 0;
}

static void thread_checks(const gpusort_sorter *cpu) {
    for (int pass = 0; pass < 2; pass++) {
        const gpusort_sorter *s = pass == 0 ? cpu : NULL;
        thrd_t t[5];
        worker w[5];
        int ok = 1;
        for (int i = 0; i < 5; i++) {
            w[i] = (worker){s, i, 0};
            ok &= thrd_create(&t[i], i < 4 ? work : release_loop, &w[i]) == thrd_success;
        }
        for (int i = 0; i < 5; i++) {
            thrd_join(t[i], NULL);
            ok &= w[i].ok;
        }
        check(ok, "4 threads share the %s sorter while a 5th releases memory: all sorts right, the last error "
                  "stays in its thread", s ? "cpu" : "default");
    }
}

int main(void) {
    gpusort_sorter *cpu = NULL;
    check(gpusort_sorter_new(GPUSORT_BACKEND_CPU, &cpu) == GPUSORT_OK && cpu != NULL, "open a cpu sorter");
    gpusort_sorter *gpu = NULL;
    gpu_usable = gpusort_sorter_new(GPUSORT_BACKEND_CUDA, &gpu) == GPUSORT_OK;
    cpu_sorter = cpu;
    sort_checks(NULL, "default", GPUSORT_ALGORITHM_AUTO);
    sort_checks(cpu, "cpu", GPUSORT_ALGORITHM_RADIX);
    argsort_sort_checks(NULL, "default");
    argsort_sort_checks(cpu, "cpu");
    segments_sort_checks(NULL, "default");
    segments_sort_checks(cpu, "cpu");
    topk_sort_checks(NULL, "default");
    topk_sort_checks(cpu, "cpu");
    lexsort_sort_checks(NULL, "default");
    lexsort_sort_checks(cpu, "cpu");
    pairs64_sort_checks(NULL, "default", GPUSORT_ALGORITHM_AUTO);
    pairs64_sort_checks(cpu, "cpu", GPUSORT_ALGORITHM_RADIX);
    half_sort_checks(NULL, "default");
    half_sort_checks(cpu, "cpu");
    if (gpu_usable) {
        for (gpusort_algorithm alg = GPUSORT_ALGORITHM_AUTO; alg <= GPUSORT_ALGORITHM_ODD_EVEN_MERGE; alg++)
            sort_checks(gpu, "cuda", alg);
        argsort_sort_checks(gpu, "cuda");
        segments_sort_checks(gpu, "cuda");
        topk_sort_checks(gpu, "cuda");
        lexsort_sort_checks(gpu, "cuda");
        for (gpusort_algorithm alg = GPUSORT_ALGORITHM_AUTO; alg <= GPUSORT_ALGORITHM_ODD_EVEN_MERGE; alg++)
            pairs64_sort_checks(gpu, "cuda", alg);
        half_sort_checks(gpu, "cuda");
    } else {
        printf("skip the CUDA sorter's checks: no usable GPU here\n");
    }
    byte_key_checks(cpu, gpu_usable ? gpu : NULL);
    if (gpu_usable) {
        gpusort_sorter_free(gpu);
    }
    error_checks(cpu);
    wrap_checks(cpu);
    tiny_length_checks(cpu);
    argsort_checks(cpu);
    segments_checks(cpu);
    topk_checks(cpu);
    pairs64_error_checks(cpu);
    device_checks(cpu);
    embed_checks(cpu);
    lexsort_checks(cpu);
    release_checks(cpu);
    file_checks(cpu);
    thread_checks(cpu);
    gpusort_sorter_free(cpu);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
