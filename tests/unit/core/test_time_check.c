/*
 * The clock-wrap tripwire (include/moteip/timer.h, MIP_TIME_CHECK): in the
 * sanitized test builds a wrap-safe comparison of two times of either
 * clock that are MIP_TIME_CHECK_FAR or more apart aborts; the longest
 * legitimate distances (TCP's 24-day PAWS idle timer, the 30 min RDC
 * maximum on the µs clock) pass. Each comparison that must abort runs in a
 * child process. Without MIP_TIME_CHECK (a release build) it exits 77.
 */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testing.h"
#include "moteip/radio.h"
#include "moteip/rdc.h"
#include "moteip/tcp.h"
#include "moteip/timer.h"

#if MIP_TIME_CHECK

/* Whether comparing a and b (ms clock, else µs) aborts the process. */
static bool aborts(bool ms, uint32_t a, uint32_t b)
{
    int status = 0;
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        bool r = ms ? mip_time_before(a, b) : mip_utime_before(a, b);
        _exit(r ? 0 : 1);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return false;
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void test_far_comparisons_abort(void)
{
    static const struct {
        uint32_t a, b;
        bool far;
    } rows[] = {
        { 1000u, 1000u + MIP_TCP_PAWS_IDLE_MS, false },     /* the longest ms deadline */
        { 1000u, 1000u + MIP_RDC_TIME_MAX, false },         /* the longest µs one */
        { 0xFFFFFFF0u, 0x10u, false },                      /* across the wrap */
        { 1000u, 1000u + MIP_TIME_CHECK_FAR - 1u, false },
        { 1000u, 1000u + MIP_TIME_CHECK_FAR, true },        /* a stamp nearly 2^31 old */
        { 1000u + MIP_TIME_CHECK_FAR, 1000u, true },
        { 5u, 5u + 0x80000000u, true },                     /* exactly half the wrap */
        { 5u, 5u + 0x80000000u + 0x1000000u, true },        /* just past: reads as the past */
    };
    unsigned r;
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        CHECK_EQ(aborts(true, rows[r].a, rows[r].b), rows[r].far);
        CHECK_EQ(aborts(false, rows[r].a, rows[r].b), rows[r].far);
    }
    /* through the other helpers too */
    CHECK(!mip_time_reached(1000u, 2000u));
    CHECK_EQ(mip_next_delay(MIP_POLL_IDLE, 1000u, 2000u), 1000u);
}

int main(void)
{
    RUN(test_far_comparisons_abort);
    return TESTING_DONE();
}

#else

int main(void)
{
    printf("MIP_TIME_CHECK is off in this build\n");
    return 77;
}

#endif
