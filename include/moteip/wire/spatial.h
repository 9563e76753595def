/*
 * Spatial IPv6 addresses (seed 000 paper D 9.2, Fig 9.1) and the two small
 * messages of geographic forwarding: pure codecs, no state.
 *
 * A node builds its address from its position, with no server and no
 * message: the thesis takes the (x, y) coordinates as the two low octets.
 * Here the position is a cell (x, y), one octet each (mip_spatial_cell
 * quantises centimetres by the map's origin and cell size), and the address
 * is
 *
 *   prefix (64 bits) : 0000:00ff:fe D : C(x, y)
 *
 * C is a 16-bit position code, D one octet:
 *   D = 0            the node at that cell (the usual case). The IID has the
 *                    form of RFC 6282 3.2.2's 16-bit IIDs, so IPHC carries it
 *                    in 2 bytes with context 0 (SAM/DAM = 10): no codec change.
 *   D = 1..127       a node that found a neighbour at its own cell and
 *                    yielded (see geo.h: duplicates); IPHC carries 8 bytes.
 *   D = 0x80 | L     the regional broadcast address of the region of the L
 *                    high bits of C (L 0..16): C holds those bits, the rest
 *                    are ones, as an IPv4 subnet broadcast has.
 *
 * Regional subnets: nodes whose codes share their L high bits form a
 * region. Two mappings (mip_spatial_map.kind):
 *   MIP_SPATIAL_XY      C = x << 8 | y, the thesis's octets: a region is a
 *                       band of columns (L <= 8) or part of one (L > 8)
 *   MIP_SPATIAL_MORTON  C interleaves the bits of x and y (x first): a region
 *                       of even L is a square of the quadtree, odd L half one
 * In both, a region's cells span the box between the decoded lowest and
 * highest codes of the region (mip_spatial_region_box).
 *
 * Geo beacon (UDP payload to ff02::1 port MIP_GEO_PORT, from the sender's
 * link-local address):
 *   0: version (1)  1: D  2: x  3: y
 * Perimeter option (an IPv6 Hop-by-Hop option, type 0x3E: an experimental
 * type of RFC 4727, action 00 = skip when unknown, C = 1 = changes en route),
 * 10 data bytes, cells as (x, y) pairs:
 *   0-1: Lp, where greedy failed   2-3, 4-5: e0, the first edge on this face
 *   6-7: the previous hop          8-9: Lf, where the walk entered this face,
 *                                  as t in 1/65536 along Lp -> D (big-endian)
 * carried in a Hop-by-Hop header of its own, 16 bytes with a PadN.
 */
#ifndef MOTEIP_WIRE_SPATIAL_H
#define MOTEIP_WIRE_SPATIAL_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "moteip/status.h"

enum mip_spatial_kind { MIP_SPATIAL_XY = 0, MIP_SPATIAL_MORTON = 1 };

struct mip_spatial_map {
    uint8_t  kind;          /* enum mip_spatial_kind */
    int32_t  origin_x_cm;   /* the cell (0, 0)'s lower corner, centimetres */
    int32_t  origin_y_cm;
    uint32_t cell_cm;       /* a cell's side, centimetres (>= 1) */
};

struct mip_spatial_pos { uint8_t x, y; };

#define MIP_SPATIAL_DISC_MAX   127u   /* highest D of a unicast address */
#define MIP_SPATIAL_REGION     0x80u  /* D bit: a regional broadcast address */
#define MIP_SPATIAL_CODE_BITS  16u

/* What an address is (mip_spatial_parse). */
enum mip_spatial_form { MIP_SPATIAL_UNICAST = 0, MIP_SPATIAL_BROADCAST = 1 };

/* The cell of a position in centimetres, clamped to 0..255 on each axis. */
struct mip_spatial_pos mip_spatial_cell(const struct mip_spatial_map *m, int32_t x_cm,
                                        int32_t y_cm);
uint16_t mip_spatial_code(const struct mip_spatial_map *m, struct mip_spatial_pos p);
struct mip_spatial_pos mip_spatial_decode(const struct mip_spatial_map *m, uint16_t code);

/* The unicast address of cell p with discriminator disc (0..127) under the
 * 64-bit prefix. INVALID for a disc above MIP_SPATIAL_DISC_MAX. */
mip_status mip_spatial_addr(const uint8_t prefix[8], const struct mip_spatial_map *m,
                            struct mip_spatial_pos p, uint8_t disc, uint8_t out[16]);
/* The regional broadcast address of the region of `region_len` high code
 * bits (0..16) that holds cell p. INVALID for region_len > 16. */
mip_status mip_spatial_region_addr(const uint8_t prefix[8], const struct mip_spatial_map *m,
                                   struct mip_spatial_pos p, uint8_t region_len,
                                   uint8_t out[16]);
/* Reads a spatial address under prefix: its form, code, D (unicast) or
 * region length (broadcast). NOTFOUND for another prefix or IID form;
 * MALFORMED for a broadcast with L > 16 or code bits below L not all ones. */
mip_status mip_spatial_parse(const uint8_t prefix[8], const uint8_t addr[16], uint8_t *form,
                             uint16_t *code, uint8_t *disc_or_len);
/* True when cell p lies in the region (code, region_len). */
bool mip_spatial_in_region(const struct mip_spatial_map *m, struct mip_spatial_pos p,
                           uint16_t code, uint8_t region_len);
/* The region's box: every cell of the region lies in [lo, hi] on both axes. */
void mip_spatial_region_box(const struct mip_spatial_map *m, uint16_t code, uint8_t region_len,
                            struct mip_spatial_pos *lo, struct mip_spatial_pos *hi);
/* Squared distance between two cells, in cells^2. */
uint32_t mip_spatial_dist2(struct mip_spatial_pos a, struct mip_spatial_pos b);

/* --- the geo beacon ------------------------------------------------------- */
#define MIP_GEO_PORT           0xF0B6u  /* NHC-compressible (RFC 6282 4.3.3) */
#define MIP_GEO_BEACON_LEN     4u
#define MIP_GEO_BEACON_VERSION 1u
struct mip_geo_beacon { uint8_t disc; struct mip_spatial_pos pos; };
mip_status mip_geo_beacon_emit(const struct mip_geo_beacon *b, uint8_t *buf, size_t cap,
                               size_t *len);
/* TRUNCATED for fewer than 4 bytes; UNSUPPORTED for another version;
 * MALFORMED for D above MIP_SPATIAL_DISC_MAX. Longer payloads: the first
 * four bytes are read (room for later fields). */
mip_status mip_geo_beacon_parse(const uint8_t *buf, size_t len, struct mip_geo_beacon *out);

/* --- the perimeter option ----------------------------------------------------- */
#define MIP_GEO_OPT_TYPE     0x3Eu
#define MIP_GEO_OPT_DATA_LEN 10u
#define MIP_GEO_HBH_LEN      16u   /* the Hop-by-Hop header that carries it */
struct mip_geo_perim {
    struct mip_spatial_pos lp;      /* where greedy failed */
    struct mip_spatial_pos e0a, e0b;/* the walk's first edge */
    struct mip_spatial_pos prev;    /* the hop that sent it here */
    uint16_t lf;                    /* Lf: t of Lp + t (D - Lp), x 65536 */
};
/* A whole Hop-by-Hop header (MIP_GEO_HBH_LEN bytes) holding the option. */
mip_status mip_geo_hbh_emit(uint8_t next_header, const struct mip_geo_perim *o, uint8_t *buf,
                            size_t cap);
/* Finds the option in a Hop-by-Hop header hbh[0..avail) and reads it: *off
 * its offset from the header's start. NOTFOUND when absent; TRUNCATED /
 * MALFORMED for a header or option that overruns. */
mip_status mip_geo_hbh_find(const uint8_t *hbh, size_t avail, size_t *off,
                            struct mip_geo_perim *out);
/* Rewrites the option's data at opt (as found). */
void mip_geo_perim_update(uint8_t *opt, const struct mip_geo_perim *o);

#endif
