/*
 * libFuzzer harness over the cctrl tunnel's opening header
 * (src/wire/cctrl_tunnel.c, apps/cctrl_proxy.h).
 *
 * Input: the bytes a subflow starts with. Whatever parses is emitted again
 * and must give the same bytes and length (a decoder accepts nothing its
 * encoder would not produce); every shorter prefix of a header that parses
 * is TRUNCATED; what the parser refuses as MALFORMED the encoder refuses
 * too (INVALID) when its fields decode. The parse works on an exact heap
 * copy, so ASan sees a byte read too far.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moteip/wire/cctrl_tunnel.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mip_cctrl_tunnel_hdr h, g;
    uint8_t again[MIP_CCTRL_TUNNEL_HDR_MAX];
    size_t used = 0, used2 = 0, cut;
    uint8_t *c = fuzz_dup_exact(data, size);
    mip_status st = mip_cctrl_tunnel_parse(c, size, &h, &used);
    if (st == MIP_OK) {
        CHECKF(used == mip_cctrl_tunnel_hdr_len(h.family) && used <= size);
        CHECKF(mip_cctrl_tunnel_emit(&h, again, sizeof(again), &used2) == MIP_OK);
        CHECKF(used2 == used && memcmp(again, c, used) == 0);
        for (cut = 0; cut < used; cut++)
            CHECKF(mip_cctrl_tunnel_parse(c, cut, &g, &used2) == MIP_ERR_TRUNCATED);
    } else if (st == MIP_ERR_MALFORMED && size >= 7u) {
        memset(&g, 0, sizeof(g));
        g.n = (uint8_t)(c[1] >> 4);
        g.index = (uint8_t)(c[1] & 0x0Fu);
        g.port = (uint16_t)((unsigned)c[4] << 8 | c[5]);
        g.family = c[6];
        if (c[0] == MIP_CCTRL_TUNNEL_MAGIC)
            CHECKF(mip_cctrl_tunnel_emit(&g, again, sizeof(again), &used2) == MIP_ERR_INVALID);
    } else {
        CHECKF(st == MIP_ERR_TRUNCATED || st == MIP_ERR_MALFORMED);
    }
    free(c);
    return 0;
}
