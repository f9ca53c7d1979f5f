/* The check helper of the C test programs: prints "ok  " or "FAIL" and the message, and counts
 * both; each program ends with printf("%d passed, %d failed\n", passed, failed). The flush keeps
 * a forked child from printing the parent's buffered lines again. Beside it, case_failure: the
 * description a case function returns. */
#ifndef GPUSORT_TEST_CHECK_H
#define GPUSORT_TEST_CHECK_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/* What a case function returns: NULL when nothing failed, else `why` holding the failure `bad`
 * (a literal, or text already written into `why`) followed by the case, printf'd from `fmt`.
 * (inline: a program without case functions includes this too.) */
static inline const char *case_failure(char *why, size_t size, const char *bad, const char *fmt, ...) {
    if (!bad)
        return NULL;
    if (bad != why)
        snprintf(why, size, "%s", bad);
    size_t used = strlen(why);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why + used, size - used, fmt, ap);
    va_end(ap);
    return why;
}

#endif
