/* Checks of gpusort_argsort_<type> and gpusort_sort_records: every key type, both orders, edge
 * sizes and input patterns against a reference (qsort of (rank, index): the index breaks ties,
 * which is what stability means), then the bad arguments, each refused with nothing written.
 * Included by test_gpusort.c after its helpers (check, last_error_contains, TYPES, rank_for). */
#ifndef GPUSORT_ARGSORT_CHECKS_H
#define GPUSORT_ARGSORT_CHECKS_H

#include <stddef.h>
#include <stdint.h>

typedef gpusort_status (*argsort_fn)(const gpusort_sorter *, const void *, size_t, uint64_t *, gpusort_order);

#define ARGSORT_WRAP(T, CT)                                                                                   \
    static gpusort_status argsort_##T(const gpusort_sorter *s, const void *k, size_t n, uint64_t *out,       \
                                      gpusort_order o) {                                                     \
        return gpusort_argsort_##T(s, (const CT *)k, n, out, o);                                             \
    }
ARGSORT_WRAP(u32, uint32_t)
ARGSORT_WRAP(i32, int32_t)
ARGSORT_WRAP(f32, float)
ARGSORT_WRAP(u64, uint64_t)
ARGSORT_WRAP(i64, int64_t)
ARGSORT_WRAP(f64, double)
ARGSORT_WRAP(u16, uint16_t)
ARGSORT_WRAP(i16, int16_t)
ARGSORT_WRAP(u8, uint8_t)
ARGSORT_WRAP(i8, int8_t)

/* In the order of TYPES. */
static const argsort_fn ARGSORTS[] = {argsort_u32, argsort_i32, argsort_f32, argsort_u64, argsort_i64,
                                      argsort_f64, argsort_u16, argsort_i16, argsort_u8,  argsort_i8};
static const gpusort_key_type KEY_TYPES[] = {GPUSORT_KEY_U32, GPUSORT_KEY_I32, GPUSORT_KEY_F32, GPUSORT_KEY_U64,
                                             GPUSORT_KEY_I64, GPUSORT_KEY_F64, GPUSORT_KEY_U16, GPUSORT_KEY_I16,
                                             GPUSORT_KEY_U8,  GPUSORT_KEY_I8};

/* 0, 1, 2, 2^k - 1, 2^k, 2^k + 1, primes. */
static const size_t ARG_SIZES[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 255, 256, 257, 1009, 4095, 4096, 4097, 65536, 65537};
#define NARG_SIZES (sizeof ARG_SIZES / sizeof ARG_SIZES[0])

typedef struct {
    uint64_t rank;
    size_t at;
} ranked;

static int cmp_ranked_asc(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* Largest rank first; equal ranks still by increasing position. */
static int cmp_ranked_desc(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank > y->rank ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

/* The stable permutation of keys[0..n) in `order`, by qsort: ref[i].at. */
static ranked *reference(const key_type *t, const void *keys, size_t n, gpusort_order order) {
    ranked *ref = malloc(n * sizeof *ref + 1);
    for (size_t i = 0; ref && i < n; i++)
        ref[i] = (ranked){t->rank_of(get_raw(t, keys, i)), i};
    if (ref)
        qsort(ref, n, sizeof *ref, order == GPUSORT_ASCENDING ? cmp_ranked_asc : cmp_ranked_desc);
    return ref;
}

/* One argsort of a seeded input, checked; a description of the failure, or NULL. */
static const char *argsort_case(size_t ti, const gpusort_sorter *s, gpusort_order order, int pattern, size_t n,
                                uint64_t *rng) {
    const key_type *t = &TYPES[ti];
    void *keys = malloc(n * t->size + 8), *orig = malloc(n * t->size + 8);
    uint64_t *out = malloc((n + 1) * sizeof *out);
    const char *bad = NULL;
    for (size_t i = 0; i < n; i++)
        put_raw(t, keys, i, t->raw_of(rank_for(t, pattern, i, n, rng)));
    memcpy(orig, keys, n * t->size);
    for (size_t i = 0; i <= n; i++)
        out[i] = UINT64_MAX;
    ranked *ref = reference(t, keys, n, order);
    gpusort_status st = ARGSORTS[ti](s, keys, n, out, order);
    if (st != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d (%s)", (int)st, gpusort_status_str((int)st));
        bad = why;
    } else if (memcmp(keys, orig, n * t->size) != 0) {
        bad = "the keys changed";
    } else if (out[n] != UINT64_MAX) {
        bad = "wrote past out[n - 1]";
    }
    for (size_t i = 0; i < n && !bad; i++) {
        if (out[i] != ref[i].at) {
            snprintf(why, sizeof why, "out[%zu] = %llu, the stable permutation has %zu", i,
                     (unsigned long long)out[i], ref[i].at);
            bad = why;
        }
    }
    if (bad && bad != why) {
        snprintf(why, sizeof why, "%s", bad);
        bad = why;
    }
    if (bad) {
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, " (n = %zu, %s)", n, PATTERN_NAMES[pattern]);
    }
    free(keys);
    free(orig);
    free(out);
    free(ref);
    return bad;
}

/* Record layouts: the key where a C struct or a packed row would put it. */
typedef struct {
    const char *name;
    size_t fixed_size; /* record_size; 0: the key's size + `extra` */
    size_t extra;
    size_t offset; /* key_offset; SIZE_MAX: the last bytes of the record */
} layout;

static const layout LAYOUTS[] = {
    {"key only", 0, 0, 0},
    {"packed, key at offset 1 (unaligned) of 11/15 bytes", 0, 7, 1},
    {"key at offset 8 of 16 bytes", 16, 0, 8},
    {"key last in 24 bytes", 24, 0, SIZE_MAX},
};
#define NLAYOUTS (sizeof LAYOUTS / sizeof LAYOUTS[0])

/* One records sort of a seeded input, checked byte for byte against the reference order. */
static const char *records_case(size_t ti, const layout *l, const gpusort_sorter *s, gpusort_order order, int pattern,
                                size_t n, uint64_t *rng) {
    const key_type *t = &TYPES[ti];
    size_t size = l->fixed_size ? l->fixed_size : t->size + l->extra;
    size_t offset = l->offset == SIZE_MAX ? size - t->size : l->offset;
    unsigned char *recs = malloc(n * size + 1), *orig = malloc(n * size + 1);
    void *keys = malloc(n * t->size + 8);
    const char *bad = NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char *r = recs + i * size;
        for (size_t b = 0; b < size; b++) /* payload: the position, spread over every byte */
            r[b] = (unsigned char)((i >> (8 * (b % 3))) ^ (b * 37));
        put_raw(t, keys, i, t->raw_of(rank_for(t, pattern, i, n, rng)));
        memcpy(r + offset, (char *)keys + i * t->size, t->size);
    }
    memcpy(orig, recs, n * size);
    ranked *ref = reference(t, keys, n, order);
    gpusort_status st = gpusort_sort_records(s, recs, n, size, offset, KEY_TYPES[ti], order);
    if (st != GPUSORT_OK) {
        snprintf(why, sizeof why, "status %d (%s)", (int)st, gpusort_status_str((int)st));
        bad = why;
    }
    for (size_t i = 0; i < n && !bad; i++) {
        if (memcmp(recs + i * size, orig + ref[i].at * size, size) != 0) {
            snprintf(why, sizeof why, "record %zu is not input record %zu, whole", i, ref[i].at);
            bad = why;
        }
    }
    if (bad) {
        size_t used = strlen(why);
        snprintf(why + used, sizeof why - used, " (n = %zu, %s, record_size %zu, key_offset %zu)", n,
                 PATTERN_NAMES[pattern], size, offset);
    }
    free(recs);
    free(orig);
    free(keys);
    free(ref);
    return bad;
}

/* Every key type and order, every size and pattern, on sorter `s` (named `sname`). */
static void argsort_sort_checks(const gpusort_sorter *s, const char *sname) {
    uint64_t rng = 20260601;
    for (size_t ti = 0; ti < NTYPES; ti++) {
        for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
            const char *oname = order ? "descending" : "ascending";
            const char *bad = NULL;
            for (size_t si = 0; si < NARG_SIZES && ARG_SIZES[si] <= largest_size(s) && !bad; si++)
                for (int p = 0; p < PATTERNS && !bad; p++)
                    bad = argsort_case(ti, s, order, p, ARG_SIZES[si], &rng);
            check(!bad, "argsort %s %s (%s sorter): the stable permutation, keys untouched%s%s", TYPES[ti].name,
                  oname, sname, bad ? ": " : "", bad ? bad : "");
            for (size_t li = 0; li < NLAYOUTS; li++) {
                bad = NULL;
                for (size_t si = 0; si < NARG_SIZES && ARG_SIZES[si] <= largest_size(s) && !bad; si++)
                    for (int p = 0; p < PATTERNS && !bad; p++)
                        bad = records_case(ti, &LAYOUTS[li], s, order, p, ARG_SIZES[si], &rng);
                check(!bad, "sort_records %s %s, %s (%s sorter): records in stable order, moved whole%s%s",
                      TYPES[ti].name, oname, LAYOUTS[li].name, sname, bad ? ": " : "", bad ? bad : "");
            }
        }
    }
}

/* The example of the header's gpusort_sort_records comment, with a struct's padding. */
struct row {
    uint32_t id;
    double score;
    char name[4];
};

static void records_example_check(void) {
    struct row rows[4] = {{0, 2.5, "ann"}, {1, -1.0, "bob"}, {2, 2.5, "cat"}, {3, 0.0, "dan"}};
    gpusort_status st = gpusort_sort_records(NULL, rows, 4, sizeof rows[0], offsetof(struct row, score),
                                             GPUSORT_KEY_F64, GPUSORT_DESCENDING);
    check(st == GPUSORT_OK && rows[0].id == 0 && rows[1].id == 2 && rows[2].id == 3 && rows[3].id == 1 &&
              strcmp(rows[1].name, "cat") == 0 && rows[3].score == -1.0,
          "sort_records of a C struct by its double field (offsetof), descending: ids 0 2 3 1, fields intact");
}

static void argsort_error_checks(const gpusort_sorter *cpu) {
    _Alignas(8) const uint32_t k[4] = {3, 1, 2, 0}; /* read as 8-byte keys too */
    uint64_t out[5] = {7, 7, 7, 7, 7};
    const uint64_t out0[5] = {7, 7, 7, 7, 7};
    void *top = (void *)TOP_PAGE;

    for (size_t ti = 0; ti < NTYPES; ti++) {
        argsort_fn f = ARGSORTS[ti];
        int ok = f(cpu, NULL, 3, out, GPUSORT_ASCENDING) == GPUSORT_INVALID_ARGUMENT &&
                 last_error_contains("keys is NULL");
        ok &= f(NULL, k, 2, NULL, GPUSORT_ASCENDING) == GPUSORT_INVALID_ARGUMENT && last_error_contains("out is NULL");
        ok &= f(NULL, NULL, 0, NULL, GPUSORT_DESCENDING) == GPUSORT_OK;
        ok &= f(cpu, k, 0, out, GPUSORT_ASCENDING) == GPUSORT_OK;
        ok &= f(NULL, k, 2, out, 2) == GPUSORT_INVALID_ARGUMENT && last_error_contains("order 2");
        ok &= refused(f(NULL, top, 0x1000 / TYPES[ti].size, out, GPUSORT_ASCENDING), "keys");
        ok &= refused(f(NULL, top, TESTER_LEN, out, GPUSORT_ASCENDING), "keys");
        ok &= refused(f(cpu, k, 0x1000 / 8, (uint64_t *)top, GPUSORT_ASCENDING), "out");
        check(ok && memcmp(out, out0, sizeof out) == 0,
              "argsort %s: NULL with n > 0, a bad order, arrays past the address space: GPUSORT_INVALID_ARGUMENT, "
              "out untouched; n = 0 (NULL too): GPUSORT_OK",
              TYPES[ti].name);
        ok = f(cpu, k, 1, out, GPUSORT_DESCENDING) == GPUSORT_OK && out[0] == 0 && out[1] == 7;
        out[0] = 7;
        check(ok, "argsort %s, n = 1: out[0] = 0, nothing past it", TYPES[ti].name);
    }
    /* 16 bytes of keys inside the 40 bytes of out */
    check(gpusort_argsort_u32(NULL, (const uint32_t *)(out + 1), 4, out, GPUSORT_ASCENDING) ==
                  GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("overlap") && memcmp(out, out0, sizeof out) == 0,
          "argsort: keys inside out are GPUSORT_INVALID_ARGUMENT, nothing written");
    check(gpusort_argsort_u32(NULL, k, 2, (uint64_t *)((char *)out + 4), GPUSORT_ASCENDING) ==
                  GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("aligned") && memcmp(out, out0, sizeof out) == 0,
          "argsort: a misaligned out is GPUSORT_INVALID_ARGUMENT");
    check(gpusort_argsort_u32(cpu, k, 4, out, GPUSORT_ASCENDING) == GPUSORT_OK && out[0] == 3 && out[3] == 0 &&
              out[4] == 7,
          "argsort after the refused calls works");
}

/* A refused records call: the status, a message holding `words`, and the records unchanged. */
static int records_refused(gpusort_status st, const char *words, const unsigned char *recs, const unsigned char *orig) {
    return st == GPUSORT_INVALID_ARGUMENT && last_error_contains(words) && memcmp(recs, orig, 64) == 0;
}

static void records_error_checks(const gpusort_sorter *cpu) {
    unsigned char recs[64], orig[64];
    for (int i = 0; i < 64; i++)
        recs[i] = orig[i] = (unsigned char)(200 - i * 3);
    struct {
        size_t n, size, offset;
        gpusort_key_type key;
        gpusort_order order;
        const char *words, *what;
    } bad[] = {
        {8, 0, 0, GPUSORT_KEY_U32, 0, "record_size is 0", "record_size 0"},
        {0, 0, 0, GPUSORT_KEY_U32, 0, "record_size is 0", "record_size 0 with n = 0"},
        {8, 8, 5, GPUSORT_KEY_U32, 0, "runs past the end of a record", "a u32 key at offset 5 of 8 bytes"},
        {8, 8, 1, GPUSORT_KEY_F64, 0, "runs past the end of a record", "an f64 key at offset 1 of 8 bytes"},
        {4, 16, SIZE_MAX, GPUSORT_KEY_I64, 0, "key_offset", "key_offset SIZE_MAX (key_offset + size overflows)"},
        {0, 4, 1, GPUSORT_KEY_I32, 0, "runs past the end of a record", "a key past the record with n = 0"},
        {8, 8, 0, GPUSORT_KEY_BF16 + 1, 0, "key type 12", "key type 12 (one past the last)"},
        {8, 8, 0, UINT32_MAX, 0, "key type 4294967295", "key type UINT32_MAX"},
        {8, 8, 0, GPUSORT_KEY_U64, 2, "order 2", "order 2"},
        {SIZE_MAX / 4, 8, 0, GPUSORT_KEY_U32, 0, "len * record_size", "n * record_size overflows"},
        {SIZE_MAX / 16 + 1, 8, 0, GPUSORT_KEY_U32, 0, "len * record_size", "n * record_size past PTRDIFF_MAX"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gpusort_status st = gpusort_sort_records(cpu, recs, bad[i].n, bad[i].size, bad[i].offset, bad[i].key,
                                                 bad[i].order);
        check(records_refused(st, bad[i].words, recs, orig),
              "sort_records, %s: GPUSORT_INVALID_ARGUMENT naming it, records untouched", bad[i].what);
    }
    check(gpusort_sort_records(NULL, NULL, 3, 8, 0, GPUSORT_KEY_U32, 0) == GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("records is NULL"),
          "sort_records: NULL records with n = 3 is GPUSORT_INVALID_ARGUMENT");
    check(refused(gpusort_sort_records(NULL, (void *)TOP_PAGE, 0x1000 / 8, 8, 0, GPUSORT_KEY_U32, 0), "records") &&
              refused(gpusort_sort_records(cpu, (void *)TOP_PAGE, TESTER_LEN, 4, 0, GPUSORT_KEY_F32, 0), "records"),
          "sort_records at the top page, lengths past its end: GPUSORT_INVALID_ARGUMENT");
    check(gpusort_sort_records(NULL, NULL, 0, 8, 4, GPUSORT_KEY_F32, GPUSORT_DESCENDING) == GPUSORT_OK &&
              gpusort_sort_records(cpu, recs, 0, 8, 0, GPUSORT_KEY_U64, 0) == GPUSORT_OK &&
              gpusort_sort_records(cpu, recs, 1, 64, 56, GPUSORT_KEY_U64, 0) == GPUSORT_OK &&
              memcmp(recs, orig, 64) == 0,
          "sort_records, n = 0 (NULL too) and n = 1: GPUSORT_OK, nothing changed");
    /* Eight records of 8 bytes, u32 keys at offset 3 (unaligned): the bytes fall from first to
     * last, so do the keys, and an ascending sort reverses the records. */
    check(gpusort_sort_records(cpu, recs, 8, 8, 3, GPUSORT_KEY_U32, GPUSORT_ASCENDING) == GPUSORT_OK &&
              memcmp(recs, orig + 56, 8) == 0 && memcmp(recs + 56, orig, 8) == 0,
          "sort_records after the refused calls works (8-byte records, unaligned keys)");
}

static void argsort_checks(const gpusort_sorter *cpu) {
    records_example_check();
    argsort_error_checks(cpu);
    records_error_checks(cpu);
}

#endif
