/*
 * libFuzzer harness for the ZEP codec (src/wire/zep.c): any datagram is
 * parsed on a heap copy of exactly its bytes (AddressSanitizer catches a read
 * past it); a data datagram in CRC mode is emitted again from what was parsed
 * and must parse back to the same header and frame. Invariants: the frame
 * lies inside the datagram, and the length field is what the datagram holds.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/zep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    struct mip_zep_hdr h, h2;
    const uint8_t *f, *f2;
    uint8_t out[MIP_ZEP_V2_HDR_LEN + MIP_ZEP_FRAME_MAX];
    size_t n;

    if (copy == NULL)
        abort();
    if (size)
        memcpy(copy, data, size);
    if (mip_zep_parse(copy, size, &h, &f) == MIP_OK && f != NULL) {
        CHECKF(f > copy && f + h.frame_len == copy + size);     /* inside, and all of it */
        CHECKF(h.frame_len >= 2 && h.frame_len <= MIP_ZEP_FRAME_MAX);
        if (h.crc_mode && h.version == 2) {
            h2 = h;
            CHECKF(mip_zep_emit(&h2, f, h.frame_len - 2u, out, sizeof(out), &n) == MIP_OK);
            CHECKF(mip_zep_parse(out, n, &h2, &f2) == MIP_OK);
            CHECKF(h2.channel == h.channel && h2.device_id == h.device_id && h2.seq == h.seq &&
                   h2.frame_len == h.frame_len && h2.lqi == h.lqi &&
                   h2.ntp_seconds == h.ntp_seconds && h2.ntp_fraction == h.ntp_fraction);
            CHECKF(memcmp(f2, f, h.frame_len - 2u) == 0);
            CHECKF(mip_ieee802154_fcs(f2, h.frame_len - 2u) ==
                   (uint16_t)(f2[h.frame_len - 2] | f2[h.frame_len - 1] << 8));
        }
    }
    free(copy);
    return 0;
}
