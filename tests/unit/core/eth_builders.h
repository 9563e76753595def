/*
 * Ethernet, ARP and Neighbor Discovery frames built by hand for the core
 * tests (independent of the wire codecs under test), plus a fixture with
 * an Ethernet netif.
 */
#ifndef MOTEIP_TEST_ETH_BUILDERS_H
#define MOTEIP_TEST_ETH_BUILDERS_H

#include "ip6_checks.h"

#if MIP_CONF_ETHERNET

static const uint8_t ETH_BCAST[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
static const uint8_t OUR_MAC[6] = {0x02, 0, 0, 0, 0, 0x10};    /* fixture_add_eth(.., 0x10) */
static const uint8_t PEER_MAC[6] = {0x02, 0, 0, 0, 0, 0x01};

/* A fixture whose netif `*eth` is Ethernet with OUR_MAC and the
 * addresses given (NULL to skip); the raw-IP netif 0 stays. */
static inline void eth_fixture_init(struct fixture *f, uint8_t *eth, const char *addr4,
                                    const char *addr6)
{
    struct mip_addr a;
    fixture_init(f, false);
    *eth = fixture_add_eth(f, 0x10);
    if (addr4 != NULL) {
        a = fixture_addr(addr4);
        CHECK_EQ(mip_netif_add_addr(f->s, *eth, &a, 24), MIP_OK);
    }
    if (addr6 != NULL) {
        a = fixture_addr(addr6);
        CHECK_EQ(mip_netif_add_addr(f->s, *eth, &a, 64), MIP_OK);
    }
}

/* Ethernet header + payload into buf; returns the frame length. */
static inline size_t build_eth(uint8_t *buf, const uint8_t dst[6], const uint8_t src[6],
                               uint16_t ethertype, const uint8_t *payload, size_t n)
{
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    mip_wr16(buf + 12, ethertype);
    if (n > 0)
        memcpy(buf + 14, payload, n);
    return 14 + n;
}

/* A 28-byte Ethernet/IPv4 ARP packet. */
static inline size_t build_arp(uint8_t *buf, uint16_t op, const uint8_t sha[6], const char *spa,
                               const uint8_t tha[6], const char *tpa)
{
    struct mip_addr s = fixture_addr(spa), t = fixture_addr(tpa);
    mip_wr16(buf, 1);          /* Ethernet */
    mip_wr16(buf + 2, 0x0800); /* IPv4 */
    buf[4] = 6;
    buf[5] = 4;
    mip_wr16(buf + 6, op);
    memcpy(buf + 8, sha, 6);
    memcpy(buf + 14, s.bytes, 4);
    memcpy(buf + 18, tha, 6);
    memcpy(buf + 24, t.bytes, 4);
    return 28;
}

/* An ARP frame (Ethernet header + ARP). */
static inline size_t build_arp_frame(uint8_t *buf, const uint8_t eth_dst[6], uint16_t op,
                                     const uint8_t sha[6], const char *spa,
                                     const uint8_t tha[6], const char *tpa)
{
    uint8_t arp[28];
    build_arp(arp, op, sha, spa, tha, tpa);
    return build_eth(buf, eth_dst, sha, 0x0806, arp, sizeof(arp));
}

/* Checks that fr is an ARP frame to eth_dst from OUR_MAC with the given
 * fields. */
#define CHECK_ARP_FRAME(fr, eth_dst, op, sha, spa, tha, tpa)                   \
    do {                                                                       \
        struct mip_addr ck_sp_ = fixture_addr(spa), ck_tp_ = fixture_addr(tpa); \
        CHECK_EQ((fr)->len, 42);                                               \
        CHECK_MEM((fr)->data, (eth_dst), 6);                                   \
        CHECK_MEM((fr)->data + 6, OUR_MAC, 6);                                 \
        CHECK_EQ(mip_rd16((fr)->data + 12), 0x0806);                           \
        CHECK_EQ(mip_rd16((fr)->data + 14), 1);                                \
        CHECK_EQ(mip_rd16((fr)->data + 16), 0x0800);                           \
        CHECK_EQ((fr)->data[18], 6);                                           \
        CHECK_EQ((fr)->data[19], 4);                                           \
        CHECK_EQ(mip_rd16((fr)->data + 20), (op));                             \
        CHECK_MEM((fr)->data + 22, (sha), 6);                                  \
        CHECK_MEM((fr)->data + 28, ck_sp_.bytes, 4);                           \
        CHECK_MEM((fr)->data + 32, (tha), 6);                                  \
        CHECK_MEM((fr)->data + 38, ck_tp_.bytes, 4);                           \
    } while (0)

/* The neighbor cache entry for ip (text) on netif, or NULL. */
static inline struct mip_neigh *test_neigh(struct fixture *f, uint8_t netif, const char *ip)
{
    struct mip_addr a = fixture_addr(ip);
    unsigned i;
    for (i = 0; i < MIP_NEIGH_MAX; i++) {
        struct mip_neigh *e = &f->s->neigh[i];
        if (e->state != MIP_NEIGH_FREE && e->family == a.family && e->netif == netif &&
            memcmp(e->ip, a.bytes, mip_addr_len(a.family)) == 0)
            return e;
    }
    return NULL;
}

static inline unsigned test_neigh_count(struct fixture *f)
{
    unsigned i, n = 0;
    for (i = 0; i < MIP_NEIGH_MAX; i++)
        n += f->s->neigh[i].state != MIP_NEIGH_FREE;
    return n;
}

#if MIP_CONF_IPV6
/* An ND message (NS or NA: type, flags byte, target, then one link-layer
 * address option of `opt_type` when lladdr is given) as the payload of an
 * IPv6 packet from src to dst with hop limit `hop`, in an Ethernet frame;
 * returns the frame length. */
static inline size_t build_nd_frame(uint8_t *buf, const uint8_t eth_dst[6], const uint8_t eth_src[6],
                                    const char *src, const char *dst, uint8_t hop,
                                    uint8_t type, uint8_t flags, const char *target,
                                    uint8_t opt_type, const uint8_t *lladdr)
{
    uint8_t msg[32], ip[128];
    struct mip_addr t = fixture_addr(target);
    size_t n = 24, len;
    memset(msg, 0, sizeof(msg));
    msg[0] = type;
    msg[4] = flags;
    memcpy(msg + 8, t.bytes, 16);
    if (lladdr != NULL) {
        msg[24] = opt_type;
        msg[25] = 1;
        memcpy(msg + 26, lladdr, 6);
        n = 32;
    }
    fix_l4_checksum6(msg, n, 2, 58, src, dst);
    len = build_ipv6(ip, src, dst, 58, hop, msg, n);
    return build_eth(buf, eth_dst, eth_src, 0x86DD, ip, len);
}

/* The Ethernet multicast address of an IPv6 group (RFC 2464 7). */
static inline void mac_of_group6(uint8_t mac[6], const char *group)
{
    struct mip_addr g = fixture_addr(group);
    mac[0] = 0x33;
    mac[1] = 0x33;
    memcpy(mac + 2, g.bytes + 12, 4);
}
#endif

#endif /* MIP_CONF_ETHERNET */
#endif
