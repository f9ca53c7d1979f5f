/* Checks of what real programs and hostile callers do (issue 26): arrays that run past the end
 * of the address space. Included by test_gpusort.c after its helpers (check,
 * last_error_contains, TYPES), so that the tests stay one translation unit, built by ci/ffi.sh
 * as before. */
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

#endif
