/*
 * ZEP radio for the Linux host port (zep_radio.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "zep_radio.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "moteip/wire/ieee802154.h"
#include "moteip/wire/zep.h"

#define NTP_UNIX_OFFSET 2208988800u     /* seconds from 1900 to 1970 */

mip_utime_t zep_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (mip_utime_t)((uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u);
}

int zep_parse_endpoint(const char *text, size_t n, struct sockaddr_storage *ss,
                       socklen_t *sl, char *err, size_t errlen)
{
    char buf[128], *host, *port;
    struct addrinfo hints, *res = NULL;
    int rc;

    if (n == 0 || n >= sizeof(buf)) {
        snprintf(err, errlen, "'%.*s' is not an address:port", (int)n, text);
        return -1;
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
    if (buf[0] == '[') {
        char *end = strchr(buf, ']');
        if (end == NULL || end[1] != ':') {
            snprintf(err, errlen, "'%s' is not [IPv6-address]:port", buf);
            return -1;
        }
        *end = '\0';
        host = buf + 1;
        port = end + 2;
    } else {
        port = strrchr(buf, ':');
        if (port == NULL || strchr(buf, ':') != port) {
            snprintf(err, errlen, "'%s' is not address:port (IPv6 as [address]:port)", buf);
            return -1;
        }
        *port++ = '\0';
        host = buf;
    }
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_DGRAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0 || res == NULL || strtol(port, NULL, 10) <= 0 || strtol(port, NULL, 10) > 65535) {
        snprintf(err, errlen, "'%.*s' is not a numeric address and a port 1..65535", (int)n, text);
        if (res != NULL)
            freeaddrinfo(res);
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *sl = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

int zep_radio_open(struct zep_radio *r, const char *spec, uint8_t channel, uint16_t device_id,
                   const struct mip_radio_timing *timing, char *err, size_t errlen)
{
    struct sockaddr_storage local;
    socklen_t local_len;
    const char *p = spec, *comma;
    int one = 1;

    memset(r, 0, sizeof(*r));
    r->fd = -1;
    r->channel = channel;
    r->device_id = device_id;
    r->timing = *timing;
    comma = strchr(p, ',');
    if (comma == NULL) {
        snprintf(err, errlen, "expected LOCAL,REMOTE[,REMOTE...], got '%s'", spec);
        return -1;
    }
    if (zep_parse_endpoint(p, (size_t)(comma - p), &local, &local_len, err, errlen) != 0)
        return -1;
    for (p = comma + 1; *p != '\0'; p = comma + 1) {
        comma = strchr(p, ',');
        if (comma == NULL)
            comma = p + strlen(p);
        if (r->n_remote == ZEP_REMOTES_MAX) {
            snprintf(err, errlen, "more than %d remotes", ZEP_REMOTES_MAX);
            return -1;
        }
        if (zep_parse_endpoint(p, (size_t)(comma - p), &r->remote[r->n_remote],
                           &r->remote_len[r->n_remote], err, errlen) != 0)
            return -1;
        if (r->remote[r->n_remote].ss_family != local.ss_family) {
            snprintf(err, errlen, "'%.*s' is not of the local address's family", (int)(comma - p), p);
            return -1;
        }
        r->n_remote++;
        if (*comma == '\0')
            break;
    }
    r->fd = socket(local.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (r->fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    (void)setsockopt(r->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(r->fd, (struct sockaddr *)&local, local_len) != 0) {
        snprintf(err, errlen, "cannot bind the local address: %s", strerror(errno));
        close(r->fd);
        r->fd = -1;
        return -1;
    }
    return 0;
}

void zep_radio_close(struct zep_radio *r)
{
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}

void zep_radio_attach(struct zep_radio *r, struct mip_mac *mac)
{
    r->mac = mac;
}

static mip_status zr_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct zep_radio *r = ctx;
    struct mip_zep_hdr h;
    struct timespec wall;
    uint8_t dgram[MIP_ZEP_V2_HDR_LEN + MIP_ZEP_FRAME_MAX];
    size_t n;
    unsigned k;

    if (r->sending)
        return MIP_ERR_INUSE;
    memset(&h, 0, sizeof(h));
    h.channel = r->channel;
    h.device_id = r->device_id;
    h.crc_mode = true;
    h.lqi = 0xFF;
    clock_gettime(CLOCK_REALTIME, &wall);
    h.ntp_seconds = (uint32_t)((uint64_t)wall.tv_sec + NTP_UNIX_OFFSET);
    h.ntp_fraction = (uint32_t)(((uint64_t)wall.tv_nsec << 32) / 1000000000u);
    h.seq = r->seq++;
    if (mip_zep_emit(&h, frame, len, dgram, sizeof(dgram), &n) != MIP_OK)
        return MIP_ERR_INVALID;
    for (k = 0; k < r->n_remote; k++)
        if (sendto(r->fd, dgram, n, 0, (struct sockaddr *)&r->remote[k], r->remote_len[k]) < 0)
            r->st.tx_errors++;      /* a neighbour not (yet) listening: the frame is lost there */
    r->st.tx_frames++;
    r->sending = true;
    r->tx_end = zep_now_us() + mip_radio_airtime(&r->timing, len + 2u);
    return MIP_OK;
}

static bool zr_cca(void *ctx)
{
    struct zep_radio *r = ctx;
    if (r->busy && !mip_utime_before(zep_now_us(), r->busy_until))
        r->busy = false;
    return !r->busy;
}

static void zr_on(void *ctx)
{
    ((struct zep_radio *)ctx)->on = true;
}

static void zr_off(void *ctx)
{
    ((struct zep_radio *)ctx)->on = false;
}

const struct mip_radio_driver zep_radio_driver = { zr_transmit, zr_cca, zr_on, zr_off };

bool zep_frame_ok(const struct mip_zep_hdr *h, const uint8_t *frame)
{
    size_t n = h->frame_len;
    if (!h->crc_mode)
        return (frame[n - 1] & 0x80u) != 0;
    return mip_ieee802154_fcs(frame, n - 2) == (uint16_t)(frame[n - 2] | frame[n - 1] << 8);
}

void zep_radio_receive(struct zep_radio *r)
{
    uint8_t dgram[512];

    for (;;) {
        struct mip_zep_hdr h;
        const uint8_t *frame;
        mip_utime_t now;
        ssize_t got = recv(r->fd, dgram, sizeof(dgram), 0);

        if (got < 0)
            return;             /* EAGAIN: nothing more (other errors: the next poll) */
        r->st.rx_datagrams++;
        if (mip_zep_parse(dgram, (size_t)got, &h, &frame) != MIP_OK || frame == NULL) {
            r->st.drop_malformed++;
            continue;
        }
        if (h.channel != r->channel) {
            r->st.drop_channel++;
            continue;
        }
        if (!zep_frame_ok(&h, frame)) {
            r->st.drop_fcs++;
            continue;
        }
        now = zep_now_us();
        if (r->sending && !mip_utime_before(now, r->tx_end)) {
            /* our frame (an ACK, say) ended while the host slept: it is off
             * the air before this one came */
            r->sending = false;
            mip_mac_radio_tx_done(r->mac, now);
        }
        r->busy = true;
        r->busy_until = now + mip_radio_airtime(&r->timing, h.frame_len);
        if (r->sending) {
            r->st.drop_tx++;
        } else if (!r->on) {
            r->st.drop_off++;
        } else if (r->rx_count == ZEP_RX_QUEUE || h.frame_len - 2u > MIP_RADIO_FRAME_MAX) {
            r->st.drop_collision++;
        } else {
            struct zep_rx *q = &r->rx[(r->rx_head + r->rx_count++) % ZEP_RX_QUEUE];
            q->due = r->busy_until;
            q->len = (uint8_t)(h.frame_len - 2u);
            memcpy(q->frame, frame, q->len);
        }
    }
}

uint32_t zep_radio_poll(struct zep_radio *r)
{
    mip_utime_t now = zep_now_us();
    uint32_t next = UINT32_MAX;

    while (r->rx_count > 0) {          /* frames whose last byte is in */
        struct zep_rx *q = &r->rx[r->rx_head];
        if (mip_utime_before(now, q->due)) {
            next = q->due - now;
            break;
        }
        r->rx_head = (uint8_t)((r->rx_head + 1u) % ZEP_RX_QUEUE);
        r->rx_count--;
        r->st.rx_frames++;
        mip_mac_radio_rx(r->mac, q->frame, q->len, now);
    }
    if (r->sending) {
        if (mip_utime_before(now, r->tx_end)) {
            uint32_t left = r->tx_end - now;
            return left < next ? left : next;
        }
        r->sending = false;
        mip_mac_radio_tx_done(r->mac, now);
    }
    return next;
}
