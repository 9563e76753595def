/*
 * A minimal unit-test harness: each test file is one executable whose main()
 * calls RUN(fn) for each test function. CHECK records a failure with its
 * location and continues; a test function that ran no CHECK fails too (it
 * could not have failed). The process exits non-zero if any check failed,
 * which is what ctest reads.
 */
#ifndef MOTEIP_TESTING_H
#define MOTEIP_TESTING_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The millisecond clock a fixture starts at: `dflt`, or MOTEIP_TEST_START
 * when set. The long-uptime runs (CMakeLists.txt: uptime31/..., uptime32/...)
 * set it just below 2^31 and 2^32, so every test's first minutes cross the
 * boundary (issue 24). */
static inline uint32_t testing_start(uint32_t dflt)
{
    const char *e = getenv("MOTEIP_TEST_START");
    return e != NULL ? (uint32_t)strtoul(e, NULL, 0) : dflt;
}

static int testing_failures;
static int testing_checks;
static int testing_tests;

#define CHECK(cond)                                                          \
    do {                                                                     \
        testing_checks++;                                                    \
        if (!(cond)) {                                                       \
            testing_failures++;                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

#define CHECK_EQ(a, b)                                                       \
    do {                                                                     \
        long long testing_a_ = (long long)(a), testing_b_ = (long long)(b);  \
        testing_checks++;                                                    \
        if (testing_a_ != testing_b_) {                                      \
            testing_failures++;                                              \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %s (%lld != %lld)\n", \
                    __FILE__, __LINE__, #a, #b, testing_a_, testing_b_);     \
        }                                                                    \
    } while (0)

#define CHECK_MEM(a, b, n) CHECK(memcmp((a), (b), (n)) == 0)

/* A test that cannot run in this build (its feature is compiled out, or the
 * profile's tables are too small for it) says so with SKIP("why") and
 * returns: it is reported as skipped, not as passed. Any other test
 * function that ran no CHECK fails: it could not have failed. */
static const char *testing_skip_why;
static int testing_skips;

#define SKIP(why) (testing_skip_why = (why))

#define RUN(fn)                                                              \
    do {                                                                     \
        int testing_before_ = testing_failures;                              \
        int testing_checks_before_ = testing_checks;                         \
        testing_tests++;                                                     \
        testing_skip_why = NULL;                                             \
        fn();                                                                \
        if (testing_skip_why != NULL && testing_checks == testing_checks_before_) { \
            testing_skips++;                                                 \
            printf("skip %s (%s)\n", #fn, testing_skip_why);                 \
            break;                                                           \
        }                                                                    \
        if (testing_checks == testing_checks_before_) {                      \
            testing_failures++;                                              \
            fprintf(stderr, "%s: no CHECK ran\n", #fn);                      \
        }                                                                    \
        printf("%s %s\n", testing_failures == testing_before_ ? "ok  " : "FAIL", #fn); \
    } while (0)

#define TESTING_DONE()                                                       \
    (printf("%d tests (%d skipped), %d checks, %d failed checks\n",         \
            testing_tests, testing_skips, testing_checks, testing_failures), \
     testing_failures ? 1 : 0)

#endif
