/* The one check helper of the C test programs: prints "ok  " or "FAIL" and the message, and
 * counts both; each program ends with printf("%d passed, %d failed\n", passed, failed). The
 * flush keeps a forked child from printing the parent's buffered lines again. */
#ifndef GPUSORT_TEST_CHECK_H
#define GPUSORT_TEST_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int passed, failed;

static void check(int ok, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "ok  " : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    if (ok)
        passed++;
    else
        failed++;
}

#endif
