/* The cctrl tunnel's opening header (include/moteip/wire/cctrl_tunnel.h). */
#include "moteip/wire/cctrl_tunnel.h"
#include <string.h>

size_t mip_cctrl_tunnel_hdr_len(uint8_t family)
{
    return family == 4u ? MIP_CCTRL_TUNNEL_HDR4 : family == 6u ? MIP_CCTRL_TUNNEL_HDR6 : 0u;
}

static int fields_ok(uint8_t n, uint8_t index, uint16_t port, uint8_t family)
{
    return n >= 1u && n <= MIP_CCTRL_TUNNEL_N_MAX && index < n && port != 0u &&
           mip_cctrl_tunnel_hdr_len(family) != 0u;
}

mip_status mip_cctrl_tunnel_parse(const uint8_t *buf, size_t len,
                                  struct mip_cctrl_tunnel_hdr *out, size_t *used)
{
    size_t need;
    uint8_t n, index, family;
    uint16_t port;
    if (len < 7u)
        return len > 0u && buf[0] != MIP_CCTRL_TUNNEL_MAGIC ? MIP_ERR_MALFORMED
                                                            : MIP_ERR_TRUNCATED;
    n = (uint8_t)(buf[1] >> 4);
    index = (uint8_t)(buf[1] & 0x0Fu);
    port = (uint16_t)((unsigned)buf[4] << 8 | buf[5]);
    family = buf[6];
    if (buf[0] != MIP_CCTRL_TUNNEL_MAGIC || !fields_ok(n, index, port, family))
        return MIP_ERR_MALFORMED;
    need = mip_cctrl_tunnel_hdr_len(family);
    if (len < need)
        return MIP_ERR_TRUNCATED;
    memset(out, 0, sizeof(*out));
    out->n = n;
    out->index = index;
    out->stream = (uint16_t)((unsigned)buf[2] << 8 | buf[3]);
    out->port = port;
    out->family = family;
    memcpy(out->target, buf + 7, need - 7u);
    *used = need;
    return MIP_OK;
}

mip_status mip_cctrl_tunnel_emit(const struct mip_cctrl_tunnel_hdr *h, uint8_t *buf,
                                 size_t cap, size_t *used)
{
    size_t need;
    if (!fields_ok(h->n, h->index, h->port, h->family))
        return MIP_ERR_INVALID;
    need = mip_cctrl_tunnel_hdr_len(h->family);
    if (cap < need)
        return MIP_ERR_NOSPACE;
    buf[0] = MIP_CCTRL_TUNNEL_MAGIC;
    buf[1] = (uint8_t)(h->n << 4 | h->index);
    buf[2] = (uint8_t)(h->stream >> 8);
    buf[3] = (uint8_t)h->stream;
    buf[4] = (uint8_t)(h->port >> 8);
    buf[5] = (uint8_t)h->port;
    buf[6] = h->family;
    memcpy(buf + 7, h->target, need - 7u);
    *used = need;
    return MIP_OK;
}
