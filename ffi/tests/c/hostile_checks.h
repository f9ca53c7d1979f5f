/* Checks of what real programs and hostile callers do: arrays that run past the end
 * of the address space, lengths 0 and 1 with every algorithm on every backend, and giving memory
 * back. Included by test_gpusort.c after its helpers (check, last_error_contains, TYPES), so
 * that the tests stay one translation unit, built by ci/ffi.sh as before. */
#ifndef GPUSORT_HOSTILE_CHECKS_H
#define GPUSORT_HOSTILE_CHECKS_H

#include <stdint.h>

/* ---- pointer plus length past the end of the address space ---- */

/* The last page of the address space: with these lengths an array there would wrap past 0. */
#define TOP_PAGE (UINTPTR_MAX & ~(uintptr_t)0xFFF)
#if SIZE_MAX > 0xFFFFFFFFu
#define TESTER_LEN ((size_t)1 << 40) /* the hostile tester's length */
#else
#define TESTER_LEN (SIZE_MAX / 64)
#endif

static int refused(gpusort_status st, const char *what) {
    char needle[32];
    snprintf(needle, sizeof needle, "%s at 0x", what);
    return st == GPUSORT_INVALID_ARGUMENT && last_error_contains(needle) && last_error_contains("address space");
}

static void wrap_checks(const gpusort_sorter *cpu) {
    uint32_t k[4] = {3, 1, 2, 0}, v[4] = {0, 1, 2, 3};
    const uint32_t k0[4] = {3, 1, 2, 0}, v0[4] = {0, 1, 2, 3};
    void *top = (void *)TOP_PAGE;
    for (int pass = 0; pass < 2; pass++) {
        const gpusort_sorter *s = pass ? cpu : NULL;
        const char *sname = pass ? "cpu" : "default";
        for (size_t ti = 0; ti < 4; ti++) {
            const key_type *t = &TYPES[ti];
            /* The last length runs one element past the top page, so ends exactly at 2^64. */
            const size_t key_lens[3] = {TESTER_LEN, SIZE_MAX / 64, 0x1000 / t->size};
            const size_t value_lens[3] = {TESTER_LEN, SIZE_MAX / 64, 0x1000 / 4};
            int keys_ok = 1, pairs_keys_ok = 1, pairs_values_ok = 1;
            for (int li = 0; li < 3; li++) {
                keys_ok &= refused(t->keys(s, top, key_lens[li], GPUSORT_ASCENDING, 0), "keys");
                pairs_keys_ok &= refused(t->pairs(s, top, v, key_lens[li], GPUSORT_ASCENDING, 0), "keys");
                /* keys k look valid for any length; they must not be touched */
                pairs_values_ok &= refused(t->pairs(s, k, (uint32_t *)top, value_lens[li], GPUSORT_ASCENDING, 0),
                                           "values");
            }
            check(keys_ok, "keys %s at the top page, lengths past its end (%s sorter): GPUSORT_INVALID_ARGUMENT",
                  t->name, sname);
            check(pairs_keys_ok && memcmp(v, v0, sizeof v) == 0,
                  "pairs %s, keys at the top page (%s sorter): GPUSORT_INVALID_ARGUMENT, values untouched", t->name,
                  sname);
            check(pairs_values_ok && memcmp(k, k0, sizeof k) == 0,
                  "pairs %s, values at the top page (%s sorter): GPUSORT_INVALID_ARGUMENT, keys untouched", t->name,
                  sname);
        }
        int kvp_ok = 1;
        const size_t kvp_lens[3] = {TESTER_LEN, SIZE_MAX / 64, 0x1000 / 8};
        for (int li = 0; li < 3; li++)
            kvp_ok &= refused(gpusort_sort_kvp(s, (gpusort_kvp *)top, kvp_lens[li], GPUSORT_ASCENDING, 0), "data");
        check(kvp_ok, "kvp at the top page, lengths past its end (%s sorter): GPUSORT_INVALID_ARGUMENT", sname);
    }
    check(gpusort_sort_keys_u32(cpu, k, 4, GPUSORT_ASCENDING, 0) == GPUSORT_OK && k[0] == 0 && k[3] == 3,
          "a sort after the refused ones works");
}

/* ---- lengths 0 and 1: nothing to sort, so every algorithm succeeds on every backend ---- */

static void tiny_length_checks(const gpusort_sorter *cpu) {
    gpusort_sorter *autos = NULL;
    check(gpusort_sorter_new(GPUSORT_BACKEND_AUTO, &autos) == GPUSORT_OK, "open an auto sorter");
    const gpusort_sorter *sorters[3] = {cpu, autos, NULL};
    const char *names[3] = {"cpu", "auto", "default"};
    for (int si = 0; si < 3; si++) {
        for (gpusort_algorithm alg = GPUSORT_ALGORITHM_AUTO; alg <= GPUSORT_ALGORITHM_ODD_EVEN_MERGE; alg++) {
            const gpusort_sorter *s = sorters[si];
            int ok = 1;
            for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
                for (size_t ti = 0; ti < 4; ti++) {
                    const key_type *t = &TYPES[ti];
                    uint64_t keys[2] = {0x1122334455667788u, 7}; /* [1] must stay: only n elements are ours */
                    uint32_t values[2] = {9, 8};
                    ok &= t->keys(s, NULL, 0, order, alg) == GPUSORT_OK;
                    ok &= t->pairs(s, NULL, NULL, 0, order, alg) == GPUSORT_OK;
                    ok &= t->keys(s, keys, 0, order, alg) == GPUSORT_OK;
                    ok &= t->keys(s, keys, 1, order, alg) == GPUSORT_OK;
                    ok &= t->pairs(s, keys, values, 1, order, alg) == GPUSORT_OK;
                    ok &= keys[0] == 0x1122334455667788u && keys[1] == 7 && values[0] == 9 && values[1] == 8;
                }
                gpusort_kvp kvp[2] = {{5, 6}, {1, 2}};
                ok &= gpusort_sort_kvp(s, NULL, 0, order, alg) == GPUSORT_OK;
                ok &= gpusort_sort_kvp(s, kvp, 1, order, alg) == GPUSORT_OK;
                ok &= kvp[0].key == 5 && kvp[0].value == 6 && kvp[1].key == 1;
            }
            check(ok, "%s with n = 0 (NULL too) and n = 1 (%s sorter): GPUSORT_OK, data unchanged", ALG_NAMES[alg],
                  names[si]);
        }
    }
    gpusort_sorter_free(autos);
}

/* ---- giving memory back ---- */

/* Resident set size in bytes, from /proc (0 where there is none). */
static size_t resident_bytes(void) {
    unsigned long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    int n = fscanf(f, "%lu %lu", &pages, &resident);
    fclose(f);
    return n == 2 ? (size_t)resident * 4096 : 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static void release_checks(const gpusort_sorter *cpu) {
    gpusort_sorter *autos = NULL;
    check(gpusort_sorter_new(GPUSORT_BACKEND_AUTO, &autos) == GPUSORT_OK, "open an auto sorter");
    check(gpusort_release_memory(NULL) == GPUSORT_OK && gpusort_release_memory(cpu) == GPUSORT_OK &&
              gpusort_release_memory(autos) == GPUSORT_OK,
          "gpusort_release_memory: GPUSORT_OK for the default, a cpu and an auto sorter");

    /* The CPU scratch a large pair sort keeps for the next one (as large as the data, 48 MiB
     * here, where the allocator maps it on its own) goes back to the system. */
    enum { N = 6 << 20 };
    gpusort_kvp *pairs = malloc((size_t)N * sizeof *pairs);
    uint64_t rng = 26;
    int sorted = pairs != NULL;
    for (size_t i = 0; sorted && i < N; i++)
        pairs[i] = (gpusort_kvp){(uint32_t)splitmix(&rng), (uint32_t)i};
    sorted = sorted && gpusort_sort_kvp(cpu, pairs, N, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_RADIX) == GPUSORT_OK;
    for (size_t i = 1; sorted && i < N; i++)
        sorted = pairs[i - 1].key <= pairs[i].key;
    size_t before = resident_bytes();
    gpusort_status st = gpusort_release_memory(cpu);
    size_t after = resident_bytes();
    check(sorted && st == GPUSORT_OK, "sort 6M pairs on the cpu sorter, then gpusort_release_memory: GPUSORT_OK");
#ifdef UNDER_ASAN
    printf("skip the resident-memory check under AddressSanitizer (its allocator keeps freed memory)\n");
    (void)before;
    (void)after;
#else
    check(before > 0 && after + (32u << 20) <= before,
          "gpusort_release_memory gave the sort's scratch back: resident %zu MiB -> %zu MiB", before >> 20,
          after >> 20);
#endif
    /* Sorting goes on after a release, allocating again. */
    for (size_t i = 0; pairs && i < N; i++)
        pairs[i] = (gpusort_kvp){(uint32_t)(N - i), (uint32_t)i};
    check(pairs && gpusort_sort_kvp(autos, pairs, N, GPUSORT_ASCENDING, 0) == GPUSORT_OK && pairs[0].key == 1 &&
              pairs[N - 1].key == N && gpusort_release_memory(NULL) == GPUSORT_OK,
          "sorts work after a release, and releasing again is fine");
    free(pairs);
    gpusort_sorter_free(autos);
}

#endif
