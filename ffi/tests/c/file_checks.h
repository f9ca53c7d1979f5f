/* Checks of gpusort_sort_file, gpusort_sort_file_with_progress and gpusort_check_file: files of
 * 100-byte records with 10-byte keys (the Sort Benchmark's) sorted with a 512 KiB memory limit,
 * which cuts them into many runs, checked here (sorted by memcmp of the keys, stable, each input
 * record once), in both orders; then the failures: a trailing partial record, a missing input,
 * NULL arguments and bad layouts, a cancelled sort, each leaving no output (or the old one). The
 * files live in a folder of their own (mkdtemp under $TMPDIR or /tmp), removed at the end.
 * Included by test_gpusort.c after its helpers (check, last_error_contains, splitmix); POSIX for
 * mkdtemp, readdir, unlink and rmdir (test_gpusort.c defines _POSIX_C_SOURCE). */
#ifndef GPUSORT_FILE_CHECKS_H
#define GPUSORT_FILE_CHECKS_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { FREC = 100, FKEY = 10, FRECORDS = 20000 };

static char file_dir[512];

/* `name` in the test's folder, in one of a few rotating buffers. */
static const char *file_path(const char *name) {
    static char paths[4][600];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", file_dir, name);
    return p;
}

static int write_file(const char *name, const unsigned char *data, size_t len) {
    FILE *f = fopen(file_path(name), "wb");
    if (!f)
        return 0;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* The whole file, or NULL (missing); its length in *len. */
static unsigned char *read_file(const char *name, size_t *len) {
    FILE *f = fopen(file_path(name), "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap *= 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
            }
            buf = bigger;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int file_exists(const char *name) {
    FILE *f = fopen(file_path(name), "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

/* The number of entries of the folder other than "." and ".."; files whose name does not start
 * with "in" or "out" (a partial output, a scratch folder) counted in *strays. */
static int folder_entries(int *strays) {
    DIR *d = opendir(file_dir);
    int n = 0;
    struct dirent *e;
    *strays = 0;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        *strays += strncmp(e->d_name, "in", 2) != 0 && strncmp(e->d_name, "out", 3) != 0;
    }
    if (d)
        closedir(d);
    return n;
}

/* FRECORDS records: random bytes, a third of the keys from four values (ties), the record's
 * number in its last four bytes. */
static unsigned char *file_records(void) {
    unsigned char *data = malloc((size_t)FRECORDS * FREC);
    uint64_t rng = 424242;
    for (size_t i = 0; data && i < FRECORDS; i++) {
        unsigned char *r = data + i * FREC;
        for (size_t b = 0; b < FREC; b++)
            r[b] = (unsigned char)splitmix(&rng);
        if (splitmix(&rng) % 3 == 0) {
            memset(r, 'k', FKEY);
            r[FKEY - 1] = (unsigned char)(splitmix(&rng) % 4);
        }
        uint32_t at = (uint32_t)i;
        memcpy(r + FREC - 4, &at, 4);
    }
    return data;
}

/* The output `out` (`len` bytes) against the input `in`: every record an input record (by the
 * number in its last bytes), each once, keys in `order` by memcmp, equal keys in input order. */
static const char *file_sorted_case(const unsigned char *in, const unsigned char *out, size_t len,
                                    gpusort_order order) {
    static char why[200];
    if (len != (size_t)FRECORDS * FREC) {
        snprintf(why, sizeof why, "the output holds %zu bytes, not %d", len, FRECORDS * FREC);
        return why;
    }
    unsigned char *seen = calloc(FRECORDS, 1);
    const char *bad = seen ? NULL : "out of memory";
    uint32_t prev = 0;
    for (size_t i = 0; i < FRECORDS && !bad; i++) {
        const unsigned char *r = out + i * FREC;
        uint32_t at;
        memcpy(&at, r + FREC - 4, 4);
        if (at >= FRECORDS || seen[at] || memcmp(r, in + (size_t)at * FREC, FREC) != 0) {
            snprintf(why, sizeof why, "record %zu is not an input record, or one seen before", i);
            bad = why;
            break;
        }
        seen[at] = 1;
        if (i > 0) {
            int c = memcmp(r - FREC, r, FKEY);
            if (order == GPUSORT_DESCENDING)
                c = -c;
            if (c > 0 || (c == 0 && prev > at)) {
                snprintf(why, sizeof why, "record %zu is out of order (or unstable) after the one before", i);
                bad = why;
            }
        }
        prev = at;
    }
    free(seen);
    return bad;
}

/* A progress callback: counts its calls in *(int *)user, stops in the first merge pass. */
static int stop_in_merge(const gpusort_file_progress *p, void *user) {
    int *calls = user;
    ++*calls;
    return p->phase == GPUSORT_FILE_PHASE_MERGE && p->merge_pass == 1;
}

static void file_checks(const gpusort_sorter *cpu) {
    const char *tmp = getenv("TMPDIR");
    snprintf(file_dir, sizeof file_dir, "%s/gpusort-c-test-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(file_dir)) {
        check(0, "file sorts: a folder for the test files (mkdtemp %s)", file_dir);
        return;
    }
    const gpusort_file_layout gray = {.record_size = FREC, .key_kind = GPUSORT_FILE_KEY_BYTES, .key_bytes = FKEY};
    unsigned char *data = file_records();
    check(data && write_file("in", data, (size_t)FRECORDS * FREC), "file sorts: %d records written to %s",
          FRECORDS, file_path("in"));

    /* Both orders, on the cpu sorter and the default one, a 512 KiB budget: many runs. */
    for (gpusort_order order = GPUSORT_ASCENDING; order <= GPUSORT_DESCENDING; order++) {
        const gpusort_sorter *s = order == GPUSORT_ASCENDING ? cpu : NULL;
        gpusort_file_report r;
        memset(&r, 0xAB, sizeof r);
        /* NULL temp_dir for one, the test's folder for the other: the scratch goes beside the output. */
        gpusort_status st = gpusort_sort_file(s, file_path("in"), file_path("out"), &gray, order, 512 << 10,
                                              order == GPUSORT_ASCENDING ? NULL : file_dir, &r);
        size_t len = 0;
        unsigned char *out = read_file("out", &len);
        const char *bad = st != GPUSORT_OK ? gpusort_status_str(st) : out ? file_sorted_case(data, out, len, order)
                                                                         : "no output";
        int strays = 0;
        check(!bad && r.records == FRECORDS && r.runs > 2 && r.merge_passes >= 1 && r.memory_budget == 512 << 10 &&
                  (r.backend == GPUSORT_BACKEND_CPU || r.backend == GPUSORT_BACKEND_CUDA) &&
                  folder_entries(&strays) == 2 && strays == 0,
              "sort_file %s (%s sorter, 512 KiB): 100-byte records sorted by their 10-byte keys, stable, each "
              "record once, %llu runs, %llu merge pass(es), nothing left beside%s%s",
              order ? "descending" : "ascending", s ? "cpu" : "default", (unsigned long long)r.runs,
              (unsigned long long)r.merge_passes, bad ? ": " : "", bad ? bad : "");
        free(out);
        gpusort_file_check in_check = {0}, out_check = {0};
        st = gpusort_check_file(s, file_path("in"), &gray, order, &in_check);
        gpusort_status st2 = gpusort_check_file(s, file_path("out"), &gray, order, &out_check);
        check(st == GPUSORT_OK && st2 == GPUSORT_OK && out_check.sorted == 1 && out_check.records == FRECORDS &&
                  out_check.first_unsorted == FRECORDS && in_check.sorted == 0 &&
                  in_check.first_unsorted < FRECORDS && in_check.checksum == out_check.checksum,
              "check_file %s: the output sorted, the input not (first unsorted record %llu), equal checksums",
              order ? "descending" : "ascending", (unsigned long long)in_check.first_unsorted);
    }

    /* A trailing partial record: refused, and no output made. */
    gpusort_status st;
    check(write_file("in-partial", data, 10 * FREC + FREC / 2), "a file of 10.5 records written");
    st = gpusort_sort_file(cpu, file_path("in-partial"), file_path("out-partial"), &gray, GPUSORT_ASCENDING, 0, NULL,
                           NULL);
    check(st == GPUSORT_INVALID_ARGUMENT && last_error_contains("not a whole number of 100-byte records") &&
              !file_exists("out-partial"),
          "sort_file of a trailing partial record: GPUSORT_INVALID_ARGUMENT, the message says so, no output file");
    gpusort_file_check c = {0};
    check(gpusort_check_file(cpu, file_path("in-partial"), &gray, GPUSORT_ASCENDING, &c) == GPUSORT_INVALID_ARGUMENT &&
              c.records == 0,
          "check_file of a trailing partial record: GPUSORT_INVALID_ARGUMENT, out untouched");

    /* A missing input: an I/O error naming it; the existing output stays. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s", file_path("in-missing"));
    st = gpusort_sort_file(cpu, missing, file_path("out"), &gray, GPUSORT_ASCENDING, 0, NULL, NULL);
    check(st == GPUSORT_IO_ERROR && last_error_contains(missing) && last_error_contains("No such file"),
          "sort_file of a missing input: GPUSORT_IO_ERROR (\"%s\"), the message names the file",
          gpusort_status_str(st));
    check(gpusort_check_file(NULL, missing, &gray, GPUSORT_ASCENDING, &c) == GPUSORT_IO_ERROR &&
              last_error_contains(missing),
          "check_file of a missing file: GPUSORT_IO_ERROR naming it");

    /* NULL arguments and bad layouts. */
    char in[600], out[600]; /* copies: file_path's buffers are reused */
    snprintf(in, sizeof in, "%s", file_path("in"));
    snprintf(out, sizeof out, "%s", file_path("out-null"));
    check(gpusort_sort_file(cpu, NULL, out, &gray, 0, 0, NULL, NULL) == GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("input is NULL"),
          "sort_file with a NULL input: GPUSORT_INVALID_ARGUMENT naming it");
    check(gpusort_sort_file(cpu, in, NULL, &gray, 0, 0, NULL, NULL) == GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("output is NULL"),
          "sort_file with a NULL output: GPUSORT_INVALID_ARGUMENT naming it");
    check(gpusort_sort_file(cpu, in, out, NULL, 0, 0, NULL, NULL) == GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("layout is NULL"),
          "sort_file with a NULL layout: GPUSORT_INVALID_ARGUMENT naming it");
    check(gpusort_sort_file(cpu, in, "", &gray, 0, 0, NULL, NULL) == GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("output is an empty string"),
          "sort_file with an empty output path: GPUSORT_INVALID_ARGUMENT");
    check(gpusort_sort_file(cpu, in, out, &gray, 2, 0, NULL, NULL) == GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("order 2"),
          "sort_file with order 2: GPUSORT_INVALID_ARGUMENT naming it");
    check(gpusort_check_file(cpu, NULL, &gray, 0, &c) == GPUSORT_INVALID_ARGUMENT &&
              gpusort_check_file(cpu, in, NULL, 0, &c) == GPUSORT_INVALID_ARGUMENT &&
              gpusort_check_file(cpu, in, &gray, 0, NULL) == GPUSORT_INVALID_ARGUMENT,
          "check_file with a NULL path, layout or out: GPUSORT_INVALID_ARGUMENT");
    const gpusort_file_layout bad_layouts[] = {
        {.record_size = FREC, .key_kind = 3, .key_bytes = FKEY},
        {.record_size = FREC, .key_kind = GPUSORT_FILE_KEY_BYTES},
        {.record_size = 0, .key_kind = GPUSORT_FILE_KEY_BYTES, .key_bytes = FKEY},
        {.record_size = FREC, .key_offset = 95, .key_kind = GPUSORT_FILE_KEY_BYTES, .key_bytes = FKEY},
        {.record_size = FREC, .key_offset = SIZE_MAX, .key_type = GPUSORT_KEY_U64},
        {.record_size = FREC, .key_kind = GPUSORT_FILE_KEY_BE, .key_type = 99},
        {.record_size = FREC, .key_kind = GPUSORT_FILE_KEY_LE, .key_type = GPUSORT_KEY_U32, .key_bytes = 8},
    };
    const char *bad_words[] = {"key_kind 3", "key_bytes is 0", "record_size is 0", "runs past the end",
                               "runs past the end", "key type 99", "key_bytes is 8"};
    for (size_t i = 0; i < sizeof bad_layouts / sizeof bad_layouts[0]; i++) {
        st = gpusort_sort_file(cpu, in, out, &bad_layouts[i], 0, 0, NULL, NULL);
        check(st == GPUSORT_INVALID_ARGUMENT && last_error_contains(bad_words[i]) &&
                  gpusort_check_file(cpu, in, &bad_layouts[i], 0, &c) == GPUSORT_INVALID_ARGUMENT,
              "a bad layout (%s): GPUSORT_INVALID_ARGUMENT from both calls, the message says what", bad_words[i]);
    }
    check(gpusort_sort_file(cpu, in, out, &gray, 0, 1000, NULL, NULL) == GPUSORT_INVALID_ARGUMENT &&
              last_error_contains("1000 bytes"),
          "a host memory limit of 1000 bytes: GPUSORT_INVALID_ARGUMENT");
    check(!file_exists("out-null"), "no output after any of those");

    /* Cancelled in the merge: GPUSORT_CANCELLED, the old output (written just before) kept. */
    int calls = 0, strays = 0;
    check(write_file("out-old", (const unsigned char *)"old output", 10), "an old output written");
    st = gpusort_sort_file_with_progress(cpu, in, file_path("out-old"), &gray, GPUSORT_ASCENDING, 512 << 10, NULL,
                                         NULL, stop_in_merge, &calls);
    size_t len = 0;
    unsigned char *old = read_file("out-old", &len);
    check(st == GPUSORT_CANCELLED && calls > 2 && old && len == 10 && memcmp(old, "old output", 10) == 0 &&
              folder_entries(&strays) == 4 && strays == 0,
          "a progress callback that stops the merge: GPUSORT_CANCELLED (\"%s\") after %d calls, the old output "
          "and the folder as they were",
          gpusort_status_str(st), calls);
    free(old);

    /* Status strings of the file sorts' codes. */
    check(strcmp(gpusort_status_str(GPUSORT_IO_ERROR), "I/O error") == 0 &&
              strcmp(gpusort_status_str(GPUSORT_CANCELLED), "cancelled") == 0 && GPUSORT_IO_ERROR == 11 &&
              GPUSORT_CANCELLED == 12,
          "GPUSORT_IO_ERROR (11) is \"I/O error\", GPUSORT_CANCELLED (12) \"cancelled\"");

    free(data);
    const char *names[] = {"in", "out", "in-partial", "out-old"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(file_path(names[i]));
    check(rmdir(file_dir) == 0, "the test's folder is empty and removed");
}

#endif
