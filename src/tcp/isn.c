/* Initial sequence numbers, RFC 6528 section 3:
 *
 *   ISN = M + F(localip, localport, remoteip, remoteport, secretkey)
 *
 * M is a clock ticking every 4 microseconds: now (ms) * 250, modulo 2^32.
 * F is SipHash-2-4 under the 128-bit secret, over the message
 *
 *   family (1 byte) | local address (4 or 16 bytes) | local port (2, big-endian)
 *                   | remote address (4 or 16)      | remote port (2, big-endian)
 *
 * folded to 32 bits (high half XOR low half). The secret must come from a
 * good source and stay private; it need not change while the stack runs. */
#include "moteip/tcp_parts.h"

/* Clock ticks per millisecond: one tick per 4 us. */
#define ISN_TICKS_PER_MS 250u

static size_t put_addr(uint8_t *p, const struct mip_addr *a)
{
    size_t n = a->family == MIP_AF_INET ? 4u : 16u, i;
    for (i = 0; i < n; i++)
        p[i] = a->bytes[i];
    return n;
}

uint32_t tcp_tuple_hash(const uint8_t key[16], const struct tcp_tuple *k)
{
    uint8_t msg[1 + 16 + 2 + 16 + 2];
    size_t n = 1;
    uint64_t h;
    unsigned i;

    msg[0] = k->local->family;
    for (i = 0; i < 2u; i++) {          /* local address and port, then remote */
        uint16_t port = i ? k->rport : k->lport;
        n += put_addr(msg + n, i ? k->remote : k->local);
        msg[n++] = (uint8_t)(port >> 8);
        msg[n++] = (uint8_t)port;
    }

    h = mip_siphash24(key, msg, n);
    return (uint32_t)h ^ (uint32_t)(h >> 32);
}

uint32_t tcp_isn(const uint8_t key[16], const struct tcp_tuple *k, mip_time_t now)
{
    return (uint32_t)now * ISN_TICKS_PER_MS + tcp_tuple_hash(key, k);
}
