/* Binary min-heap of events keyed by (time, seq). */
#include "evq.h"
#include <stdlib.h>

static bool ev_less(const struct sim_event *a, const struct sim_event *b)
{
    return a->time_us < b->time_us || (a->time_us == b->time_us && a->seq < b->seq);
}

void sim_evq_init(struct sim_evq *q)
{
    q->heap = NULL;
    q->count = q->cap = 0;
    q->next_seq = 0;
    q->pushed = 0;
}

void sim_evq_free(struct sim_evq *q)
{
    free(q->heap);
    sim_evq_init(q);
}

bool sim_evq_push(struct sim_evq *q, uint64_t time_us, uint8_t kind, uint32_t node, uint32_t arg)
{
    size_t i;
    if (q->count == q->cap) {
        size_t ncap = q->cap ? q->cap * 2u : 256u;
        struct sim_event *n = realloc(q->heap, ncap * sizeof(*n));
        if (n == NULL)
            return false;
        q->heap = n;
        q->cap = ncap;
    }
    i = q->count++;
    q->heap[i].time_us = time_us;
    q->heap[i].seq = q->next_seq++;
    q->heap[i].kind = kind;
    q->heap[i].node = node;
    q->heap[i].arg = arg;
    q->pushed++;
    while (i > 0) {
        size_t parent = (i - 1u) / 2u;
        struct sim_event tmp;
        if (!ev_less(&q->heap[i], &q->heap[parent]))
            break;
        tmp = q->heap[i];
        q->heap[i] = q->heap[parent];
        q->heap[parent] = tmp;
        i = parent;
    }
    return true;
}

const struct sim_event *sim_evq_peek(const struct sim_evq *q)
{
    return q->count > 0 ? &q->heap[0] : NULL;
}

bool sim_evq_pop(struct sim_evq *q, struct sim_event *out)
{
    size_t i = 0;
    if (q->count == 0)
        return false;
    *out = q->heap[0];
    q->heap[0] = q->heap[--q->count];
    for (;;) {
        size_t l = 2u * i + 1u, r = l + 1u, m = i;
        struct sim_event tmp;
        if (l < q->count && ev_less(&q->heap[l], &q->heap[m]))
            m = l;
        if (r < q->count && ev_less(&q->heap[r], &q->heap[m]))
            m = r;
        if (m == i)
            break;
        tmp = q->heap[i];
        q->heap[i] = q->heap[m];
        q->heap[m] = tmp;
        i = m;
    }
    return true;
}
