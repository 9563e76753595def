/*
 * ICMPv4 (RFC 792): the type and code numbers of echo request/reply and the
 * error messages the stack sends and receives. The header codec is the one
 * ICMPv6 shares (icmp.h).
 */
#ifndef MOTEIP_WIRE_ICMPV4_H
#define MOTEIP_WIRE_ICMPV4_H

#include "moteip/wire/icmp.h"

#define MIP_ICMPV4_HDR_LEN MIP_ICMP_HDR_LEN

#define MIP_ICMPV4_ECHO_REPLY     0u
#define MIP_ICMPV4_DEST_UNREACH   3u
#define MIP_ICMPV4_ECHO_REQUEST   8u
#define MIP_ICMPV4_TIME_EXCEEDED  11u
#define MIP_ICMPV4_PARAM_PROBLEM  12u

/* Destination unreachable codes */
#define MIP_ICMPV4_UNREACH_NET       0u
#define MIP_ICMPV4_UNREACH_HOST      1u
#define MIP_ICMPV4_UNREACH_PROTOCOL  2u
#define MIP_ICMPV4_UNREACH_PORT      3u
#define MIP_ICMPV4_UNREACH_FRAG_NEEDED 4u
/* Time exceeded codes */
#define MIP_ICMPV4_TE_TTL    0u
#define MIP_ICMPV4_TE_REASS  1u

#endif
