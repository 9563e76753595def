/*
 * ZEP codec (include/moteip/wire/zep.h).
 */
#include <string.h>

#include "moteip/wire/bytes.h"
#include "moteip/wire/ieee802154.h"
#include "moteip/wire/zep.h"

#define ZEP_LEN_RESERVED 0x80u     /* bit 7 of the length byte */

mip_status mip_zep_parse(const uint8_t *dgram, size_t len, struct mip_zep_hdr *h,
                         const uint8_t **frame)
{
    size_t hdr_len;

    memset(h, 0, sizeof(*h));
    *frame = NULL;
    if (len < 4)
        return MIP_ERR_TRUNCATED;
    if (dgram[0] != 'E' || dgram[1] != 'X')
        return MIP_ERR_MALFORMED;
    h->version = dgram[2];
    if (h->version == 1) {
        if (len < MIP_ZEP_V1_HDR_LEN)
            return MIP_ERR_TRUNCATED;
        h->type = MIP_ZEP_TYPE_DATA;
        h->channel = dgram[3];
        h->device_id = mip_rd16(dgram + 4);
        h->crc_mode = dgram[6] != 0;
        h->lqi = dgram[7];
        hdr_len = MIP_ZEP_V1_HDR_LEN;
    } else if (h->version == 2) {
        h->type = dgram[3];
        if (h->type == MIP_ZEP_TYPE_ACK) {
            if (len < MIP_ZEP_ACK_LEN)
                return MIP_ERR_TRUNCATED;
            if (len > MIP_ZEP_ACK_LEN)
                return MIP_ERR_MALFORMED;
            h->seq = mip_rd32(dgram + 4);
            return MIP_OK;
        }
        if (h->type != MIP_ZEP_TYPE_DATA)
            return MIP_ERR_UNSUPPORTED;
        if (len < MIP_ZEP_V2_HDR_LEN)
            return MIP_ERR_TRUNCATED;
        h->channel = dgram[4];
        h->device_id = mip_rd16(dgram + 5);
        h->crc_mode = dgram[7] != 0;
        h->lqi = dgram[8];
        h->ntp_seconds = mip_rd32(dgram + 9);
        h->ntp_fraction = mip_rd32(dgram + 13);
        h->seq = mip_rd32(dgram + 17);
        hdr_len = MIP_ZEP_V2_HDR_LEN;
    } else {
        return MIP_ERR_UNSUPPORTED;
    }
    if (dgram[hdr_len - 1] & ZEP_LEN_RESERVED)
        return MIP_ERR_MALFORMED;
    h->frame_len = dgram[hdr_len - 1];
    if (len - hdr_len < h->frame_len)
        return MIP_ERR_TRUNCATED;
    /* Bytes past the frame: the sender and we disagree about the format
     * (Wireshark, too, refuses such a datagram). */
    if (len - hdr_len > h->frame_len || h->frame_len < 2)
        return MIP_ERR_MALFORMED;
    *frame = dgram + hdr_len;
    return MIP_OK;
}

mip_status mip_zep_emit(struct mip_zep_hdr *h, const uint8_t *mpdu, size_t mpdu_len,
                        uint8_t *out, size_t cap, size_t *out_len)
{
    uint16_t fcs;

    *out_len = 0;
    if (mpdu_len > MIP_ZEP_FRAME_MAX - 2u || !h->crc_mode)
        return MIP_ERR_INVALID;
    if (cap < MIP_ZEP_V2_HDR_LEN + mpdu_len + 2u)
        return MIP_ERR_NOSPACE;
    h->version = 2;
    h->type = MIP_ZEP_TYPE_DATA;
    h->frame_len = (uint8_t)(mpdu_len + 2u);
    out[0] = 'E';
    out[1] = 'X';
    out[2] = 2;
    out[3] = MIP_ZEP_TYPE_DATA;
    out[4] = h->channel;
    mip_wr16(out + 5, h->device_id);
    out[7] = 1;                       /* CRC mode */
    out[8] = h->lqi;
    mip_wr32(out + 9, h->ntp_seconds);
    mip_wr32(out + 13, h->ntp_fraction);
    mip_wr32(out + 17, h->seq);
    memset(out + 21, 0, 10);
    out[31] = h->frame_len;
    memcpy(out + MIP_ZEP_V2_HDR_LEN, mpdu, mpdu_len);
    fcs = mip_ieee802154_fcs(mpdu, mpdu_len);          /* sent low byte first */
    out[MIP_ZEP_V2_HDR_LEN + mpdu_len] = (uint8_t)fcs;
    out[MIP_ZEP_V2_HDR_LEN + mpdu_len + 1] = (uint8_t)(fcs >> 8);
    *out_len = MIP_ZEP_V2_HDR_LEN + mpdu_len + 2u;
    return MIP_OK;
}
