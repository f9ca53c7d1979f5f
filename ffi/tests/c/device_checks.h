/* Checks of the device-array entry points (gpusort_sort_device_keys, _pairs, _segments,
 * gpusort_top_k_device, gpusort_argsort_device) that need no GPU: a CPU sorter refuses them with GPUSORT_UNSUPPORTED,
 * unknown options are GPUSORT_INVALID_ARGUMENT before any backend is asked, fewer than two keys
 * succeed untouched, and host memory passed as a device array (of every key width) is refused
 * (by the CPU sorter, or by the driver's check where a GPU is) with the array untouched. Sorts of real device memory are tested from Rust (ffi/src/device.rs), which can
 * allocate it. Included by test_gpusort.c after argsort_checks.h (check, last_error_contains). */
#ifndef GPUSORT_DEVICE_CHECKS_H
#define GPUSORT_DEVICE_CHECKS_H

#include <stdint.h>
#include <string.h>

static void device_checks(const gpusort_sorter *cpu) {
    uint32_t k[4] = {3, 1, 2, 0}, v[4] = {0, 1, 2, 3};
    const uint32_t k0[4] = {3, 1, 2, 0}, v0[4] = {0, 1, 2, 3};
    uint64_t offsets[2] = {0, 4}, idx[2] = {7, 7};
    uint32_t out[2] = {9, 9};
    gpusort_status st;

    st = gpusort_sort_device_keys(cpu, GPUSORT_KEY_U32, k, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO, NULL);
    check(st == GPUSORT_UNSUPPORTED && last_error_contains("CUDA device") && memcmp(k, k0, sizeof k) == 0,
          "device keys: a cpu sorter is GPUSORT_UNSUPPORTED, naming the missing device, keys untouched");
    st = gpusort_sort_device_pairs(cpu, GPUSORT_KEY_F32, k, v, 4, GPUSORT_DESCENDING, GPUSORT_ALGORITHM_RADIX, NULL);
    check(st == GPUSORT_UNSUPPORTED && memcmp(k, k0, sizeof k) == 0 && memcmp(v, v0, sizeof v) == 0,
          "device pairs: a cpu sorter is GPUSORT_UNSUPPORTED, arrays untouched");
    st = gpusort_sort_device_segments(cpu, GPUSORT_KEY_I32, k, v, 4, offsets, 2, GPUSORT_ASCENDING, NULL);
    check(st == GPUSORT_UNSUPPORTED && memcmp(k, k0, sizeof k) == 0,
          "device segments: a cpu sorter is GPUSORT_UNSUPPORTED, arrays untouched");
    st = gpusort_top_k_device(cpu, GPUSORT_KEY_U32, k, 4, 2, out, idx, GPUSORT_ASCENDING, NULL);
    check(st == GPUSORT_UNSUPPORTED && out[0] == 9 && idx[0] == 7,
          "device top-k: a cpu sorter is GPUSORT_UNSUPPORTED, outputs untouched");

    st = gpusort_argsort_device(cpu, GPUSORT_KEY_U32, k, 4, idx, GPUSORT_ASCENDING, NULL);
    check(st == GPUSORT_UNSUPPORTED && idx[0] == 7 && memcmp(k, k0, sizeof k) == 0,
          "device argsort: a cpu sorter is GPUSORT_UNSUPPORTED, keys and indices untouched");
    check(gpusort_argsort_device(cpu, GPUSORT_KEY_F64, NULL, 0, NULL, GPUSORT_DESCENDING, NULL) == GPUSORT_OK,
          "device argsort: no keys succeed on any sorter without looking at anything");

    st = gpusort_sort_device_keys(NULL, GPUSORT_KEY_BF16 + 1, k, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO, NULL);
    check(st == GPUSORT_INVALID_ARGUMENT && last_error_contains("key type 12"),
          "device keys: key type 12 (one past the last) is GPUSORT_INVALID_ARGUMENT, named in the message");
    st = gpusort_sort_device_keys(NULL, GPUSORT_KEY_U32, k, 4, 2, GPUSORT_ALGORITHM_AUTO, NULL);
    check(st == GPUSORT_INVALID_ARGUMENT, "device keys: order 2 is GPUSORT_INVALID_ARGUMENT");
    st = gpusort_sort_device_pairs(NULL, GPUSORT_KEY_U32, k, v, 4, GPUSORT_ASCENDING, 4, NULL);
    check(st == GPUSORT_INVALID_ARGUMENT, "device pairs: algorithm 4 is GPUSORT_INVALID_ARGUMENT");
    st = gpusort_top_k_device(NULL, GPUSORT_KEY_U32, k, 4, 5, out, idx, GPUSORT_ASCENDING, NULL);
    check(st == GPUSORT_INVALID_ARGUMENT && out[0] == 9, "device top-k: k = 5 of 4 keys is GPUSORT_INVALID_ARGUMENT");

    check(gpusort_sort_device_keys(cpu, GPUSORT_KEY_U64, NULL, 0, GPUSORT_ASCENDING, 0, NULL) == GPUSORT_OK &&
              gpusort_sort_device_pairs(cpu, GPUSORT_KEY_U32, k, v, 1, GPUSORT_ASCENDING, 0, NULL) == GPUSORT_OK &&
              gpusort_top_k_device(cpu, GPUSORT_KEY_U32, k, 4, 0, NULL, NULL, GPUSORT_ASCENDING, NULL) == GPUSORT_OK &&
              memcmp(k, k0, sizeof k) == 0,
          "device arrays: fewer than two keys, or k = 0, succeed on any sorter without looking at anything");

    /* The default sorter: no GPU means GPUSORT_UNSUPPORTED; with one, the driver says the keys
     * are host memory. Either way nothing is written. */
    st = gpusort_sort_device_keys(NULL, GPUSORT_KEY_U32, k, 4, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO, NULL);
    check((st == GPUSORT_UNSUPPORTED || (st == GPUSORT_INVALID_ARGUMENT && last_error_contains("device memory"))) &&
              memcmp(k, k0, sizeof k) == 0,
          "device keys: host memory through the default sorter is refused (status %d), keys untouched", (int)st);
    st = gpusort_argsort_device(NULL, GPUSORT_KEY_U32, k, 2, idx, GPUSORT_ASCENDING, NULL);
    check((st == GPUSORT_UNSUPPORTED || (st == GPUSORT_INVALID_ARGUMENT && last_error_contains("device memory"))) &&
              idx[0] == 7 && idx[1] == 7,
          "device argsort: host memory through the default sorter is refused (status %d), indices untouched", (int)st);
    /* Small and half-precision keys go the same way. */
    static const gpusort_key_type SMALL[] = {GPUSORT_KEY_U16, GPUSORT_KEY_I16, GPUSORT_KEY_U8,
                                             GPUSORT_KEY_I8,  GPUSORT_KEY_F16, GPUSORT_KEY_BF16};
    for (size_t i = 0; i < sizeof SMALL / sizeof SMALL[0]; i++) {
        st = gpusort_sort_device_keys(NULL, SMALL[i], k, 4, GPUSORT_DESCENDING, GPUSORT_ALGORITHM_AUTO, NULL);
        gpusort_status st2 = gpusort_argsort_device(NULL, SMALL[i], k, 2, idx, GPUSORT_ASCENDING, NULL);
        check((st == GPUSORT_UNSUPPORTED || (st == GPUSORT_INVALID_ARGUMENT && last_error_contains("device memory"))) &&
                  (st2 == GPUSORT_UNSUPPORTED || st2 == GPUSORT_INVALID_ARGUMENT) && memcmp(k, k0, sizeof k) == 0 &&
                  idx[0] == 7 && idx[1] == 7,
              "device keys and argsort, key type %u: host memory through the default sorter is refused (status %d, "
              "%d), nothing written",
              (unsigned)SMALL[i], (int)st, (int)st2);
    }
}

#endif
