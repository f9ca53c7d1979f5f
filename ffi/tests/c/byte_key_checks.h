/* Byte-string keys: GPUSORT_KEY_BYTES columns of gpusort_lexsort (against qsort over memcmp with
 * the row index as the last key, i.e. the stable order) and gpusort_sort_records_by_bytes (a
 * struct's char array), and their refusals. Included by test_gpusort.c. */

/* The rows being compared by the qsort reference: `width` bytes each at `rows`. */
static const unsigned char *byte_rows;
static size_t byte_width;

static int byte_row_cmp(const void *a, const void *b) {
    uint64_t i = *(const uint64_t *)a, j = *(const uint64_t *)b;
    int c = memcmp(byte_rows + i * byte_width, byte_rows + j * byte_width, byte_width);
    return c ? c : (i > j) - (i < j);
}

/* n rows of `width` bytes from few distinct values with a shared prefix, sorted on `s` by one
 * byte column starting at an odd address; the indices against the stable reference. */
static void byte_column_check(const gpusort_sorter *s, const char *sname, size_t n, size_t width) {
    unsigned char *store = malloc(n * width + 1);
    uint64_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
    uint64_t seed = n * 31 + width;
    for (size_t i = 0; i < n * width; i++)
        store[1 + i] = (i % width) + 1 < width ? 'p' : (unsigned char)(splitmix(&seed) % 5 * 60);
    for (size_t i = 0; i < n; i++)
        want[i] = i;
    byte_rows = store + 1;
    byte_width = width;
    qsort(want, n, sizeof *want, byte_row_cmp);
    gpusort_column c = {.keys = store + 1, .key_type = GPUSORT_KEY_BYTES, .key_bytes = width};
    gpusort_status st = gpusort_lexsort(s, &c, 1, n, got);
    check(st == GPUSORT_OK && memcmp(got, want, n * sizeof *got) == 0,
          "lexsort %s: %zu byte strings of %zu bytes at an odd address, in memcmp order, stable", sname, n, width);
    free(store);
    free(got);
    free(want);
}

struct named {
    uint32_t id;
    char name[6];
};

static void byte_key_checks(const gpusort_sorter *cpu, const gpusort_sorter *gpu) {
    const gpusort_sorter *sorters[3] = {NULL, cpu, gpu};
    const char *names[3] = {"default", "cpu", "cuda"};
    for (int s = 0; s < 3; s++) {
        if (s == 2 && !gpu)
            break;
        const size_t sizes[] = {0, 1, 2, 7, 127, 128, 129, 4099, 100003};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            byte_column_check(sorters[s], names[s], sizes[i], 3);
            byte_column_check(sorters[s], names[s], sizes[i], 16);
        }
    }

    /* The header's example: year, then names as char[4]. */
    uint16_t year[] = {2024, 2023, 2024, 2023};
    const char names4[4][4] = {"pea", "plm", "fig", "fig"};
    gpusort_column by[2] = {{.keys = year, .key_type = GPUSORT_KEY_U16},
                            {.keys = names4, .key_type = GPUSORT_KEY_BYTES, .key_bytes = 4}};
    uint32_t idx[4];
    check(gpusort_lexsort_u32(NULL, by, 2, 4, idx) == GPUSORT_OK && idx[0] == 3 && idx[1] == 1 && idx[2] == 2 &&
              idx[3] == 0,
          "lexsort: a year column, then a char[4] column: 3 1 2 0");

    struct named rows[4] = {{0, "pear"}, {1, "fig"}, {2, "apple"}, {3, "fig"}};
    gpusort_status st = gpusort_sort_records_by_bytes(NULL, rows, 4, sizeof rows[0], offsetof(struct named, name),
                                                      sizeof rows[0].name, GPUSORT_DESCENDING);
    check(st == GPUSORT_OK && rows[0].id == 0 && rows[1].id == 1 && rows[2].id == 3 && rows[3].id == 2 &&
              strcmp(rows[3].name, "apple") == 0,
          "sort_records_by_bytes by a char[6] field, descending: ids 0 1 3 2 (ties stable), fields intact");

    uint64_t out[4] = {7, 7, 7, 7};
    gpusort_column bad = {.keys = names4, .key_type = GPUSORT_KEY_BYTES};
    int ok = gpusort_lexsort(cpu, &bad, 1, 4, out) == GPUSORT_INVALID_ARGUMENT && last_error_contains("key_bytes 0");
    bad.key_bytes = GPUSORT_MAX_KEY_BYTES + 1;
    ok &= gpusort_lexsort(cpu, &bad, 1, 4, out) == GPUSORT_INVALID_ARGUMENT && last_error_contains("key_bytes 4097");
    bad = (gpusort_column){.keys = year, .key_type = GPUSORT_KEY_U16, .key_bytes = 4};
    ok &= gpusort_lexsort(cpu, &bad, 1, 4, out) == GPUSORT_INVALID_ARGUMENT && last_error_contains("key_bytes 4");
    ok &= gpusort_sort_records_by_bytes(cpu, rows, 4, sizeof rows[0], 9, 4, GPUSORT_ASCENDING) ==
              GPUSORT_INVALID_ARGUMENT &&
          last_error_contains("runs past the end of a record");
    ok &= gpusort_sort_records_by_bytes(cpu, rows, 4, sizeof rows[0], 4, 0, GPUSORT_ASCENDING) ==
              GPUSORT_INVALID_ARGUMENT &&
          last_error_contains("key_bytes 0");
    check(ok && out[0] == 7 && out[3] == 7 && rows[0].id == 0 && rows[3].id == 2,
          "byte keys: key_bytes 0 or past GPUSORT_MAX_KEY_BYTES, key_bytes on a number column and a key past the "
          "record are GPUSORT_INVALID_ARGUMENT, nothing written");
}
