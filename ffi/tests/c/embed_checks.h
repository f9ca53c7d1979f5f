/* Checks of the calls for programs that embed device sorts (gpusort_prepare,
 * gpusort_device_scratch_bytes, gpusort_*_scratch) that need no GPU: a CPU sorter has nothing to
 * prepare and refuses the rest with GPUSORT_UNSUPPORTED, unknown options and a NULL output are
 * GPUSORT_INVALID_ARGUMENT with the output untouched, and host memory passed as keys or scratch
 * is refused with the keys untouched. Sorts of real device memory are tested from Rust
 * (ffi/src/embed/tests.rs). Included by test_gpusort.c after device_checks.h. */
#ifndef GPUSORT_EMBED_CHECKS_H
#define GPUSORT_EMBED_CHECKS_H

#include <stdint.h>
#include <string.h>

static void embed_checks(const gpusort_sorter *cpu) {
    uint32_t k[4] = {3, 1, 2, 0}, v[4] = {0, 1, 2, 3};
    const uint32_t k0[4] = {3, 1, 2, 0};
    uint64_t idx[4] = {7, 7, 7, 7};
    unsigned char scratch[4096];
    size_t bytes = 5;
    gpusort_status st;

    check(gpusort_prepare(cpu) == GPUSORT_OK, "prepare: a cpu sorter has nothing to load");
    st = gpusort_device_scratch_bytes(cpu, GPUSORT_CALL_KEYS, GPUSORT_KEY_U32, 1000, GPUSORT_ASCENDING,
                                      GPUSORT_ALGORITHM_AUTO, &bytes);
    check(st == GPUSORT_UNSUPPORTED && bytes == 5, "scratch bytes: a cpu sorter is GPUSORT_UNSUPPORTED, *bytes untouched");
    st = gpusort_device_scratch_bytes(cpu, 3, GPUSORT_KEY_U32, 1000, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO, &bytes);
    check(st == GPUSORT_INVALID_ARGUMENT && last_error_contains("call 3") && bytes == 5,
          "scratch bytes: call 3 is GPUSORT_INVALID_ARGUMENT, named in the message");
    st = gpusort_device_scratch_bytes(cpu, GPUSORT_CALL_ARGSORT, GPUSORT_KEY_F32, 1000, GPUSORT_ASCENDING,
                                      GPUSORT_ALGORITHM_AUTO, NULL);
    check(st == GPUSORT_INVALID_ARGUMENT, "scratch bytes: a NULL output is GPUSORT_INVALID_ARGUMENT");

    st = gpusort_sort_device_keys_scratch(cpu, GPUSORT_KEY_U32, k, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO,
                                          scratch, sizeof scratch, NULL);
    check(st == GPUSORT_UNSUPPORTED && memcmp(k, k0, sizeof k) == 0,
          "keys on scratch: a cpu sorter is GPUSORT_UNSUPPORTED, keys untouched");
    st = gpusort_sort_device_pairs_scratch(cpu, GPUSORT_KEY_U32, k, v, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO,
                                           scratch, sizeof scratch, NULL);
    check(st == GPUSORT_UNSUPPORTED && memcmp(k, k0, sizeof k) == 0,
          "pairs on scratch: a cpu sorter is GPUSORT_UNSUPPORTED, keys untouched");
    st = gpusort_argsort_device_scratch(cpu, GPUSORT_KEY_U32, k, 4, idx, GPUSORT_ASCENDING, scratch, sizeof scratch,
                                        NULL);
    check(st == GPUSORT_UNSUPPORTED && idx[0] == 7, "argsort on scratch: a cpu sorter is GPUSORT_UNSUPPORTED");
    st = gpusort_top_k_scratch_bytes(cpu, GPUSORT_KEY_U32, 1000, 10, GPUSORT_ASCENDING, &bytes);
    check(st == GPUSORT_UNSUPPORTED && bytes == 5, "top-k scratch bytes: a cpu sorter is GPUSORT_UNSUPPORTED");
    st = gpusort_top_k_device_scratch(cpu, GPUSORT_KEY_U32, k, 4, 2, v, idx, GPUSORT_ASCENDING, scratch,
                                      sizeof scratch, NULL);
    check(st == GPUSORT_UNSUPPORTED && idx[0] == 7 && v[0] == 0, "top-k on scratch: a cpu sorter is GPUSORT_UNSUPPORTED");

    /* The default sorter: no GPU means GPUSORT_UNSUPPORTED; with one, the driver says the keys
     * are host memory. Either way nothing is written. */
    st = gpusort_sort_device_keys_scratch(NULL, GPUSORT_KEY_U32, k, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO,
                                          scratch, sizeof scratch, NULL);
    check((st == GPUSORT_UNSUPPORTED || st == GPUSORT_INVALID_ARGUMENT) && memcmp(k, k0, sizeof k) == 0,
          "keys on scratch: host memory through the default sorter is refused (status %d), keys untouched", (int)st);
}

#endif
