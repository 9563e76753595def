/* ICMP error rate limiting, a token bucket (RFC 4443 2.4(f)). Echo replies
 * are not limited: they answer a request one for one. */
#include "core.h"

bool icmp_rate_allow(struct mip_stack *s)
{
    struct mip_icmp_limiter *l = &s->icmp_limit;
    uint32_t elapsed = (uint32_t)(s->now - l->last_refill);
    if (mip_time_before(s->now, l->last_refill))
        elapsed = 0;
    if (elapsed >= MIP_ICMP_RATE_INTERVAL_MS) {
        uint32_t add = elapsed / MIP_ICMP_RATE_INTERVAL_MS;
        uint32_t t = l->tokens + (add > MIP_ICMP_RATE_BURST ? MIP_ICMP_RATE_BURST : add);
        l->tokens = (uint16_t)(t > MIP_ICMP_RATE_BURST ? MIP_ICMP_RATE_BURST : t);
        l->last_refill = (mip_time_t)(l->last_refill + add * MIP_ICMP_RATE_INTERVAL_MS);
    }
    if (l->tokens == 0) {
        STAT(s, drop_icmp_rate_limited);
        return false;
    }
    l->tokens--;
    return true;
}
