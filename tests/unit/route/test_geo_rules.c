/*
 * Geographic forwarding's rules on a hand-made neighbour table: greedy
 * (strictly nearer, else none), the right-hand rule counterclockwise from
 * the edge a packet came on, GPSR's Gabriel-graph planarisation, and
 * neighbours that have gone silent.
 */
#include "moteip/geo.h"
#include "testing.h"
#include <string.h>

static struct mip_spatial_pos P(uint8_t x, uint8_t y)
{
    struct mip_spatial_pos p;
    p.x = x;
    p.y = y;
    return p;
}

static void setup(struct mip_geo *g, struct mip_spatial_pos self)
{
    memset(g, 0, sizeof(*g));
    mip_geo_config_default(&g->cfg);
    g->pos = self;
}

static void add(struct mip_geo *g, unsigned i, struct mip_spatial_pos p, mip_time_t heard)
{
    g->nb[i].used = 1;
    g->nb[i].pos = p;
    g->nb[i].iid[7] = (uint8_t)(i + 1);
    g->nb[i].heard = heard;
}

static void test_greedy_takes_the_nearest_strictly_nearer(void)
{
    struct mip_geo g;
    setup(&g, P(10, 10));
    add(&g, 0, P(12, 10), 0);
    add(&g, 1, P(10, 12), 0);
    add(&g, 2, P(8, 10), 0);
    CHECK_EQ(mip_geo_greedy(&g, P(20, 10), 100), 0);
    CHECK_EQ(mip_geo_greedy(&g, P(0, 30), 100), 1);   /* 424 < 464 < 500 */
    CHECK_EQ(mip_geo_greedy(&g, P(0, 10), 100), 2);
    /* nobody nearer than us: a local minimum */
    CHECK_EQ(mip_geo_greedy(&g, P(10, 0), 100), -1);
    CHECK_EQ(mip_geo_greedy(&g, P(10, 10), 100), -1);
}

static void test_silent_neighbours_are_not_used(void)
{
    struct mip_geo g;
    setup(&g, P(10, 10));
    add(&g, 0, P(12, 10), 0);
    /* 4.5 beacon intervals (GPSR's timeout) after its last beacon */
    CHECK_EQ(mip_geo_greedy(&g, P(20, 10), 44999), 0);
    CHECK_EQ(mip_geo_greedy(&g, P(20, 10), 45000), -1);
}

static void test_right_hand_rule_turns_counterclockwise(void)
{
    struct mip_geo g;
    setup(&g, P(10, 10));
    add(&g, 0, P(12, 10), 0);   /* east */
    add(&g, 1, P(10, 12), 0);   /* north */
    add(&g, 2, P(8, 10), 0);    /* west */
    add(&g, 3, P(10, 8), 0);    /* south */
    CHECK_EQ(mip_geo_right_hand(&g, P(12, 10), true, 1), 1);
    CHECK_EQ(mip_geo_right_hand(&g, P(10, 12), true, 1), 2);
    CHECK_EQ(mip_geo_right_hand(&g, P(8, 10), true, 1), 3);
    CHECK_EQ(mip_geo_right_hand(&g, P(10, 8), true, 1), 0);
    /* the walk's start: counterclockwise from the line to the target */
    CHECK_EQ(mip_geo_right_hand(&g, P(30, 11), false, 1), 1);
    /* a single neighbour: back the way it came */
    setup(&g, P(10, 10));
    add(&g, 0, P(12, 10), 0);
    CHECK_EQ(mip_geo_right_hand(&g, P(12, 10), true, 1), 0);
    setup(&g, P(10, 10));
    CHECK_EQ(mip_geo_right_hand(&g, P(12, 10), true, 1), -1);
}

static void test_gabriel_graph_drops_crossing_edges(void)
{
    struct mip_geo g;
    setup(&g, P(10, 10));
    add(&g, 0, P(14, 10), 0);   /* east, far */
    add(&g, 2, P(10, 14), 0);   /* north */
    add(&g, 3, P(10, 6), 0);    /* south */
    /* from the south the next edge counterclockwise is the east one... */
    CHECK_EQ(mip_geo_right_hand(&g, P(10, 6), true, 1), 0);
    /* ...until a node inside the circle on it takes it out of the
     * Gabriel graph (5 + 5 < 16): (12, 11) comes first instead */
    add(&g, 1, P(12, 11), 0);
    CHECK_EQ(mip_geo_right_hand(&g, P(10, 6), true, 1), 1);
    /* and from the north, counterclockwise: west is empty, south */
    CHECK_EQ(mip_geo_right_hand(&g, P(10, 14), true, 1), 3);
}

static void test_face_change_crossing(void)
{
    uint16_t t = 0;
    /* a vertical edge through the middle of a horizontal Lp-D */
    CHECK(mip_geo_crosses(P(5, 0), P(5, 10), P(0, 5), P(10, 5), &t));
    CHECK_EQ(t, 32768);
    CHECK(mip_geo_crosses(P(8, 10), P(8, 0), P(0, 5), P(10, 5), &t));   /* either way */
    CHECK_EQ(t, 52428);
    /* one side only, an end on the line, parallel: no crossing */
    CHECK(!mip_geo_crosses(P(5, 6), P(5, 10), P(0, 5), P(10, 5), &t));
    CHECK(!mip_geo_crosses(P(0, 5), P(3, 9), P(0, 5), P(10, 5), &t));
    CHECK(!mip_geo_crosses(P(0, 6), P(10, 6), P(0, 5), P(10, 5), &t));
    /* beyond D */
    CHECK(!mip_geo_crosses(P(12, 0), P(12, 10), P(0, 5), P(10, 5), &t));
}

int main(void)
{
    RUN(test_greedy_takes_the_nearest_strictly_nearer);
    RUN(test_silent_neighbours_are_not_used);
    RUN(test_right_hand_rule_turns_counterclockwise);
    RUN(test_gabriel_graph_drops_crossing_edges);
    RUN(test_face_change_crossing);
    return TESTING_DONE();
}
