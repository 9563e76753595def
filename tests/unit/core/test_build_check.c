/* mip_stack_init refuses a caller compiled with another configuration than
 * the library (tests/install has the real mismatch: a consumer built with
 * other -D values): nothing is written to the caller's struct, and
 * mip_build_mismatch names the first difference. */
#include <string.h>

#include "testing.h"
#include "moteip/stack.h"

static struct mip_build here(void)
{
    struct mip_build b = {(uint32_t)sizeof(struct mip_stack), MIP_BUILD_SWITCHES};
    return b;
}

static void test_the_library_build_is_accepted(void)
{
    static struct mip_stack s;
    char why[64] = "x";
    CHECK_EQ(mip_stack_init(&s, NULL, 0), MIP_OK);
    CHECK_EQ(mip_build_mismatch(here(), why, sizeof why), 0u);
    CHECK_EQ(why[0], '\0');
}

static void test_another_build_is_refused_before_any_write(void)
{
    static struct mip_stack s;
    static const uint32_t flips[] = {1u << 0, 1u << 3, 1u << 5, 0x01u << 8, 0x04u << 16};
    size_t i, k;
    for (i = 0; i < sizeof flips / sizeof flips[0]; i++) {
        struct mip_build b = here();
        const uint8_t *p = (const uint8_t *)&s;
        b.switches ^= flips[i];
        memset(&s, 0xA5, sizeof s);
        CHECK_EQ(mip_stack_init_build(&s, NULL, 7, b), MIP_ERR_CONFIG);
        for (k = 0; k < sizeof s; k++)
            if (p[k] != 0xA5)
                break;
        CHECK_EQ(k, sizeof s);
    }
    {
        struct mip_build b = here();
        b.stack_size += 16;     /* a size such as MIP_PBUF_COUNT differs */
        CHECK_EQ(mip_stack_init_build(&s, NULL, 7, b), MIP_ERR_CONFIG);
    }
    CHECK(strcmp(mip_status_name(MIP_ERR_CONFIG), "CONFIG") == 0);
}

static void test_the_difference_is_named(void)
{
    char why[80];
    struct mip_build b = here();
    char expect[80];
    b.switches ^= 1u << 5;      /* MIP_CONF_LOWPAN */
    CHECK(mip_build_mismatch(b, why, sizeof why) > 0);
    strcpy(expect, MIP_CONF_LOWPAN ? "MIP_CONF_LOWPAN: library 1, program 0"
                                   : "MIP_CONF_LOWPAN: library 0, program 1");
    CHECK(strcmp(why, expect) == 0);

    b = here();
    b.switches = (b.switches & ~(0xFFu << 16)) | (200u << 16);   /* MIP_CONF_RDC */
    CHECK(mip_build_mismatch(b, why, sizeof why) > 0);
    CHECK(strncmp(why, "MIP_CONF_RDC: library ", 22) == 0);
    CHECK(strstr(why, ", program 200") != NULL);

    b = here();
    b.stack_size = 12345;
    CHECK(mip_build_mismatch(b, why, sizeof why) > 0);
    CHECK(strstr(why, "sizeof(struct mip_stack): library ") == why);
    CHECK(strstr(why, ", program 12345") != NULL);

    /* a short buffer is truncated and terminated, never overrun */
    CHECK_EQ(mip_build_mismatch(b, why, 8), 7u);
    CHECK_EQ(strlen(why), 7u);
    CHECK_EQ(mip_build_mismatch(b, why, 0), 0u);
}

int main(void)
{
    RUN(test_the_library_build_is_accepted);
    RUN(test_another_build_is_refused_before_any_write);
    RUN(test_the_difference_is_named);
    return TESTING_DONE();
}
