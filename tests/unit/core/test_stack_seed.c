/* The stack seeds its generator from the entropy it is given: two
 * instances with the same entropy agree (the generator itself:
 * tests/unit/base/test_rng.c). */
#include "fixture.h"
#include "moteip/rng.h"

static void test_stack_instances_with_same_entropy_agree(void)
{
    struct fixture a, b;
    fixture_init(&a, false);
    fixture_init(&b, false);
    /* same entropy -> same identifiers and PRNG state (reproducible runs) */
    CHECK_EQ(a.s->ipv4_next_id, b.s->ipv4_next_id);
    CHECK_EQ(a.s->ipv6_next_frag_id, b.s->ipv6_next_frag_id);
    CHECK_EQ(mip_rng_next(&a.s->rng), mip_rng_next(&b.s->rng));
    fixture_free(&a);
    fixture_free(&b);
}

int main(void)
{
    RUN(test_stack_instances_with_same_entropy_agree);
    return TESTING_DONE();
}
