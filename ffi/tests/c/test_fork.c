/* gpusort's C API in a forked child and under an address-space limit:
 * - after the parent sorted 1.5M keys (so gpusort's worker threads exist), a forked child sorts
 *   2M keys, pairs, split pairs, an argsort and records correctly: the threads are made anew there;
 * - a child that limits its address space to 1 GB (RLIMIT_AS) and sorts 50M split pairs, and one
 *   that sorts 50M records, gets GPUSORT_OUT_OF_MEMORY with its data untouched, or a correct
 *   sort; never an abort.
 * Every child runs under a deadline: the parent kills it and fails rather than wait forever.
 * Children report on stderr (unbuffered: nothing is lost at _exit). Prints one line per check
 * and ends with "N passed, M failed"; exits nonzero on any failure. Build: see ci/ffi.sh
 * (no sanitizer: ASan's shadow memory does not fit under an address-space limit). */
#define _GNU_SOURCE
#include "gpusort.h"
#include "check.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEADLINE_S 240
#define FORK_N ((size_t)2000000)
#define OOM_N ((size_t)50000000)


/* A child's complaint: one line on stderr, and a failing exit status. */
static int complain(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[child %d] ", (int)getpid());
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return 1;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* The key of item i of a seeded input: any item can be recomputed, so no copy is needed. */
static uint32_t key_at(uint64_t seed, size_t i) {
    uint64_t s = seed ^ ((uint64_t)i * 0xD1B54A32D192ED03u);
    return (uint32_t)splitmix(&s);
}

static double seconds_since(const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Runs fn in a forked child. Returns its exit status, 128 + the signal that ended it, or -1
 * when it outlived the deadline (it is then killed). */
static int in_child(int (*fn)(void)) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return -2;
    }
    if (pid == 0) {
        alarm(DEADLINE_S + 60); /* a second guard, should the parent be gone */
        _exit(fn());
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int status = 0;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (r < 0) {
            perror("waitpid");
            return -2;
        }
        if (seconds_since(&t0) > DEADLINE_S) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* keys[0..n) hold the seeded keys' multiset in ascending order. */
static int keys_ok(const uint32_t *keys, size_t n, uint64_t seed) {
    uint32_t *want = malloc(n * sizeof *want);
    if (!want)
        return 0;
    for (size_t i = 0; i < n; i++)
        want[i] = key_at(seed, i);
    qsort(want, n, sizeof *want, cmp_u32);
    int ok = memcmp(want, keys, n * sizeof *want) == 0;
    free(want);
    return ok;
}

/* Pairs whose values were their input positions and whose keys were key_at(seed, position),
 * reduced modulo `mod` when it is not 0: sorted by key in the order asked, every value once and
 * with its own key, and stable (equal keys keep increasing positions). */
static int pairs_ok(const uint32_t *keys, const uint32_t *values, size_t n, uint64_t seed, uint32_t mod, int descending) {
    unsigned char *seen = calloc(n, 1);
    int ok = seen != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t v = values[i], want = mod ? key_at(seed, v) % mod : key_at(seed, v);
        ok = v < n && !seen[v] && keys[i] == want;
        if (ok && i > 0) {
            uint32_t a = keys[i - 1], b = keys[i];
            ok = (descending ? a > b : a < b) || (a == b && values[i - 1] < v);
        }
        if (ok)
            seen[v] = 1;
    }
    free(seen);
    return ok;
}

/* ---- a child sorts after its parent did ---- */

static int child_sorts(void) {
    const size_t n = FORK_N;
    int bad = 0;
    uint32_t *keys = malloc(n * sizeof *keys), *values = malloc(n * sizeof *values);
    gpusort_kvp *kvp = malloc(n * sizeof *kvp);
    if (!keys || !values || !kvp)
        return complain("out of memory for the test's own arrays");

    for (size_t i = 0; i < n; i++)
        keys[i] = key_at(1, i);
    gpusort_status s = gpusort_sort_keys_u32(NULL, keys, n, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
    if (s != GPUSORT_OK || !keys_ok(keys, n, 1))
        bad |= complain("2M u32 keys, default sorter: %s, or not sorted", gpusort_status_str(s));

    gpusort_sorter *cpu = NULL;
    s = gpusort_sorter_new(GPUSORT_BACKEND_CPU, &cpu);
    if (s != GPUSORT_OK)
        return complain("gpusort_sorter_new(CPU): %s", gpusort_status_str(s));
    for (size_t i = 0; i < n; i++) {
        keys[i] = key_at(2, i) % 1000; /* few distinct keys: stability shows */
        values[i] = (uint32_t)i;
    }
    s = gpusort_sort_pairs_u32(cpu, keys, values, n, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
    if (s != GPUSORT_OK || !pairs_ok(keys, values, n, 2, 1000, 0))
        bad |= complain("2M split pairs, CPU sorter: %s, or not sorted stably", gpusort_status_str(s));
    gpusort_sorter_free(cpu);

    for (size_t i = 0; i < n; i++)
        kvp[i] = (gpusort_kvp){key_at(3, i) % 5000, (uint32_t)i};
    s = gpusort_sort_kvp(NULL, kvp, n, GPUSORT_DESCENDING, GPUSORT_ALGORITHM_AUTO);
    for (size_t i = 0; i < n; i++) {
        keys[i] = kvp[i].key;
        values[i] = kvp[i].value;
    }
    if (s != GPUSORT_OK || !pairs_ok(keys, values, n, 3, 5000, 1))
        bad |= complain("2M pairs descending, default sorter: %s, or not sorted stably", gpusort_status_str(s));

    /* Records: the position in .key, the sort key in .value. */
    for (size_t i = 0; i < n; i++)
        kvp[i] = (gpusort_kvp){(uint32_t)i, key_at(6, i) % 1000};
    s = gpusort_sort_records(NULL, kvp, n, sizeof *kvp, offsetof(gpusort_kvp, value), GPUSORT_KEY_U32,
                             GPUSORT_ASCENDING);
    for (size_t i = 0; i < n; i++) {
        keys[i] = kvp[i].value;
        values[i] = kvp[i].key;
    }
    if (s != GPUSORT_OK || !pairs_ok(keys, values, n, 6, 1000, 0))
        bad |= complain("2M records, default sorter: %s, or not sorted stably", gpusort_status_str(s));

    uint64_t *perm = malloc(n * sizeof *perm);
    for (size_t i = 0; perm && i < n; i++)
        keys[i] = key_at(7, i) % 3000;
    s = perm ? gpusort_argsort_u32(NULL, keys, n, perm, GPUSORT_DESCENDING) : GPUSORT_OUT_OF_MEMORY;
    for (size_t i = 0; s == GPUSORT_OK && i < n; i++) {
        values[i] = (uint32_t)perm[i];
        keys[i] = perm[i] < n ? key_at(7, perm[i]) % 3000 : 0;
    }
    if (s != GPUSORT_OK || !pairs_ok(keys, values, n, 7, 3000, 1))
        bad |= complain("argsort of 2M keys, descending: %s, or not the stable permutation", gpusort_status_str(s));
    free(perm);
    free(keys);
    free(values);
    free(kvp);
    return bad;
}

/* ---- a child under a 1 GB address-space limit ---- */

/* The address space in use, from /proc/self/status (0 if unknown). */
static size_t address_space(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %zu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

/* Starts the CPU sorter's threads (stacks and malloc arenas take address space), then limits the
 * address space to 1 GB, or, should this process already use most of that, to 300 MB more than
 * it uses: either way less than the 400 MB of data a child sorts plus the sort's scratch. Returns
 * the sorter, NULL on failure (complained about). */
static gpusort_sorter *limited_cpu_sorter(void) {
    gpusort_sorter *cpu = NULL;
    if (gpusort_sorter_new(GPUSORT_BACKEND_CPU, &cpu) != GPUSORT_OK) {
        complain("gpusort_sorter_new(CPU) failed");
        return NULL;
    }
    const size_t warm_n = 300000;
    uint32_t *warm = malloc(warm_n * sizeof *warm);
    if (!warm) {
        complain("out of memory for the warm-up");
        return NULL;
    }
    for (size_t i = 0; i < warm_n; i++)
        warm[i] = key_at(4, i);
    gpusort_sort_keys_u32(cpu, warm, warm_n, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
    free(warm);
    return cpu;
}

static int limit_address_space(void) {
    size_t used = address_space(), limit = (size_t)1 << 30;
    if (used + (300u << 20) > limit)
        limit = used + (300u << 20);
    struct rlimit lim;
    getrlimit(RLIMIT_AS, &lim);
    lim.rlim_cur = limit < lim.rlim_max ? (rlim_t)limit : lim.rlim_max;
    if (setrlimit(RLIMIT_AS, &lim) != 0)
        return complain("setrlimit failed");
    fprintf(stderr, "[child %d] address space: %zu MB in use, limit %zu MB\n", (int)getpid(), used >> 20, limit >> 20);
    return 0;
}

static void lift_limit(void) {
    struct rlimit lim;
    getrlimit(RLIMIT_AS, &lim);
    lim.rlim_cur = lim.rlim_max;
    setrlimit(RLIMIT_AS, &lim);
}

static int child_under_limit(void) {
    const size_t n = OOM_N;
    gpusort_sorter *cpu = limited_cpu_sorter();
    if (!cpu)
        return 1;
    uint32_t *keys = malloc(n * sizeof *keys), *values = malloc(n * sizeof *values);
    if (!keys || !values)
        return complain("out of memory for the 50M pairs themselves");
    for (size_t i = 0; i < n; i++) {
        keys[i] = key_at(5, i);
        values[i] = (uint32_t)i;
    }
    if (limit_address_space())
        return 1;

    gpusort_status s = gpusort_sort_pairs_u32(cpu, keys, values, n, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
    if (s == GPUSORT_OUT_OF_MEMORY) {
        char msg[512];
        gpusort_last_error_message(msg, sizeof msg, NULL);
        for (size_t i = 0; i < n; i++)
            if (keys[i] != key_at(5, i) || values[i] != (uint32_t)i)
                return complain("GPUSORT_OUT_OF_MEMORY, but item %zu changed", i);
        fprintf(stderr, "[child %d] GPUSORT_OUT_OF_MEMORY, data untouched: %s\n", (int)getpid(), msg);
        return 0;
    }
    if (s != GPUSORT_OK)
        return complain("50M pairs: status %d (%s)", s, gpusort_status_str(s));
    /* Succeeded (a generous hard limit): it must be right. The check's table is allocated only
     * now, after the limit is lifted again. */
    lift_limit();
    if (!pairs_ok(keys, values, n, 5, 0, 0))
        return complain("50M pairs: GPUSORT_OK but not sorted stably with their values");
    fprintf(stderr, "[child %d] the sort fit under the limit and is correct\n", (int)getpid());
    return 0;
}

/* 50M records of 8 bytes (400 MB), which need 800 MB more: a copy, their keys, the permutation. */
static int child_records_under_limit(void) {
    const size_t n = OOM_N;
    gpusort_sorter *cpu = limited_cpu_sorter();
    if (!cpu)
        return 1;
    gpusort_kvp *recs = malloc(n * sizeof *recs);
    if (!recs)
        return complain("out of memory for the 50M records themselves");
    for (size_t i = 0; i < n; i++)
        recs[i] = (gpusort_kvp){(uint32_t)i, key_at(8, i)};
    if (limit_address_space())
        return 1;

    gpusort_status s = gpusort_sort_records(cpu, recs, n, sizeof *recs, offsetof(gpusort_kvp, value),
                                            GPUSORT_KEY_U32, GPUSORT_ASCENDING);
    if (s == GPUSORT_OUT_OF_MEMORY) {
        char msg[512];
        gpusort_last_error_message(msg, sizeof msg, NULL);
        for (size_t i = 0; i < n; i++)
            if (recs[i].key != (uint32_t)i || recs[i].value != key_at(8, i))
                return complain("GPUSORT_OUT_OF_MEMORY, but record %zu changed", i);
        fprintf(stderr, "[child %d] records: GPUSORT_OUT_OF_MEMORY, data untouched: %s\n", (int)getpid(), msg);
        return 0;
    }
    if (s != GPUSORT_OK)
        return complain("50M records: status %d (%s)", s, gpusort_status_str(s));
    lift_limit();
    uint32_t *keys = malloc(n * sizeof *keys), *values = malloc(n * sizeof *values);
    if (!keys || !values)
        return complain("out of memory for the check");
    for (size_t i = 0; i < n; i++) {
        keys[i] = recs[i].value;
        values[i] = recs[i].key;
    }
    if (!pairs_ok(keys, values, n, 8, 0, 0))
        return complain("50M records: GPUSORT_OK but not sorted stably");
    fprintf(stderr, "[child %d] the records sort fit under the limit and is correct\n", (int)getpid());
    return 0;
}

int main(void) {
    /* The parent sorts first, so gpusort's worker threads exist when it forks. */
    const size_t n = 1500000;
    uint32_t *keys = malloc(n * sizeof *keys);
    if (!keys)
        return 2;
    for (size_t i = 0; i < n; i++)
        keys[i] = key_at(9, i);
    gpusort_status s = gpusort_sort_keys_u32(NULL, keys, n, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
    check(s == GPUSORT_OK && keys_ok(keys, n, 9), "parent: 1.5M u32 keys sorted before any fork");

    int r = in_child(child_sorts);
    check(r == 0, "forked child: 2M keys, split pairs, pairs, records and an argsort right (child status %d%s)", r,
          r == -1 ? ": hung, killed" : "");
    r = in_child(child_sorts);
    check(r == 0, "a second forked child, the parent's threads still idle: sorted correctly (status %d)", r);

    r = in_child(child_under_limit);
    check(r == 0, "child under a 1 GB address-space limit: 50M pairs -> OUT_OF_MEMORY, data untouched, or sorted "
                  "(status %d%s)",
          r, r == 128 + SIGABRT ? ": aborted" : r == -1 ? ": hung, killed" : "");
    r = in_child(child_records_under_limit);
    check(r == 0, "child under a 1 GB address-space limit: 50M records -> OUT_OF_MEMORY, data untouched, or sorted "
                  "(status %d%s)",
          r, r == 128 + SIGABRT ? ": aborted" : r == -1 ? ": hung, killed" : "");

    /* The parent is unaffected by its children. */
    for (size_t i = 0; i < n; i++)
        keys[i] = key_at(10, i);
    s = gpusort_sort_keys_u32(NULL, keys, n, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO);
    check(s == GPUSORT_OK && keys_ok(keys, n, 10), "parent: sorts again after its children");
    free(keys);

    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
