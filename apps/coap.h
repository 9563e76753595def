/*
 * A CoAP endpoint (RFC 7252) on one UDP port: a server for a table of
 * resources and a client for requests, both in one caller-owned struct, no
 * heap, all sizes fixed at compile time.
 *
 * Server
 *   Requests are matched on their Uri-Path against the resource table and
 *   answered by the resource's handler: a CON request gets a piggybacked
 *   ACK, a NON request a NON response. An empty CON ("CoAP ping") gets RST.
 *   Duplicates (same peer and Message ID within EXCHANGE_LIFETIME, 247 s)
 *   are not handed to the handler again: a duplicate CON gets the ACK that
 *   was sent the first time (kept in a bounded table; the oldest entry goes
 *   when it is full), a duplicate NON is dropped. Unrecognised critical
 *   options in a CON request get 4.02 (Proxy-Uri/-Scheme 5.05), in a NON
 *   request the message is dropped; a message format error in a CON is
 *   answered with RST (s.4.2). Every drop is counted.
 *   Block-wise (RFC 7959): a representation larger than one block is sent
 *   in Block2 slices (the handler is asked again for each block and must
 *   return the same representation: stateless, as s.2.4 allows); Block1
 *   uploads are handed to the handler one block at a time with their
 *   offset, and answered 2.31 Continue while more follow; a block with
 *   more following whose payload is not the block size is answered 4.00
 *   (s.2.2) without reaching the handler.
 *
 * Client
 *   mip_coap_request() sends one request and reports its outcome once
 *   through the callback: a response (piggybacked or separate), a reset, or
 *   a timeout. CON requests are retransmitted with exponential back-off
 *   from a random initial timeout in [ACK_TIMEOUT, ACK_TIMEOUT *
 *   ACK_RANDOM_FACTOR] (2-3 s) up to MAX_RETRANSMIT (4) times, or, with
 *   cocoa set, by CoCoA (draft-ietf-core-cocoa-03): strong and weak RTT
 *   estimators per peer, a variable back-off factor and RTO aging. NSTART
 *   is 1: a second request to a peer with one outstanding is refused
 *   (INUSE). Separate responses are ACKed; a response nobody waits for
 *   gets RST.
 *
 * Time and randomness come from the stack (s->now, s->rng): the endpoint
 * registers a poller, so mip_stack_poll() drives its timers.
 */
#ifndef MOTEIP_APPS_COAP_H
#define MOTEIP_APPS_COAP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#include "moteip/stack.h"
#include "coap_msg.h"

#define MIP_COAP_PORT 5683u

/* Largest message sent or kept for a retransmission (header, token,
 * options, payload). 128 leaves a 64-byte block and its options. */
#ifndef MIP_COAP_MSG_MAX
#define MIP_COAP_MSG_MAX 128u
#endif
#if MIP_COAP_MSG_MAX < 32 || MIP_COAP_MSG_MAX > 65535
#error "MIP_COAP_MSG_MAX must be 32..65535"
#endif
/* Requests outstanding at once, across peers. */
#ifndef MIP_COAP_CLIENT_MAX
#define MIP_COAP_CLIENT_MAX 2u
#endif
/* Remembered (peer, Message ID) pairs with the ACK sent for them. */
#ifndef MIP_COAP_DEDUP_MAX
#define MIP_COAP_DEDUP_MAX 4u
#endif
/* Peers whose CoCoA RTT state is kept (least recently used goes). */
#ifndef MIP_COAP_PEERS_MAX
#define MIP_COAP_PEERS_MAX 2u
#endif

/* RFC 7252 s.4.8 transmission parameters (milliseconds, counts). */
#define MIP_COAP_ACK_TIMEOUT_MS       2000u
#define MIP_COAP_ACK_RANDOM_PCT        150u   /* ACK_RANDOM_FACTOR 1.5 */
#define MIP_COAP_MAX_RETRANSMIT          4u
#define MIP_COAP_EXCHANGE_LIFETIME_MS 247000u
#define MIP_COAP_NON_LIFETIME_MS      145000u
/* How long a client waits for a separate response after an empty ACK, or
 * for the response to a NON request: MAX_TRANSMIT_WAIT (93 s). */
#define MIP_COAP_RESPONSE_WAIT_MS      93000u

struct mip_coap_peer {
    struct mip_addr addr;
    uint16_t port;
    uint8_t  netif;   /* zone of a link-local addr (RFC 4007): the netif a
                       * request came in on; ignored for other addresses */
};

/* A request as a handler sees it. */
struct mip_coap_request {
    const struct mip_coap_msg *msg;
    const struct mip_coap_peer *peer;
    bool     has_block1;
    struct mip_coap_block block1;      /* valid when has_block1 */
    uint32_t block1_offset;            /* block1.num * block size */
};

/* Writes bytes [offset, offset + n) of a representation into buf. */
typedef void (*mip_coap_read_fn)(void *ctx, size_t offset, uint8_t *buf, size_t n);

/* What a handler answers: a code (preset to 2.05 for GET, 2.02 for DELETE,
 * 2.04 otherwise), a Content-Format (< 0: none), and a representation of
 * payload_len bytes, given either as `payload` (valid until the handler
 * returns) or, for one too large to hold, by `read`, which is asked only
 * for the slice the reply carries (one block). */
struct mip_coap_response {
    uint8_t  code;
    int32_t  content_format;
    const uint8_t *payload;
    size_t   payload_len;
    mip_coap_read_fn read;
    void    *read_ctx;
};

typedef void (*mip_coap_handler_fn)(void *ctx, const struct mip_coap_request *req,
                                    struct mip_coap_response *resp);

#define MIP_COAP_M_GET    (1u << 1)
#define MIP_COAP_M_POST   (1u << 2)
#define MIP_COAP_M_PUT    (1u << 3)
#define MIP_COAP_M_DELETE (1u << 4)

struct mip_coap_resource {
    const char *path;          /* "sensors/temp": segments joined by '/', no leading '/' */
    uint8_t methods;           /* MIP_COAP_M_* mask */
    mip_coap_handler_fn fn;
    void *ctx;
};

enum mip_coap_result {
    MIP_COAP_RESPONSE = 0,     /* resp is the response */
    MIP_COAP_RESET,            /* the peer answered RST */
    MIP_COAP_TIMEOUT,          /* no ACK after MAX_RETRANSMIT, or no response in time */
    MIP_COAP_CANCELLED         /* mip_coap_stop() */
};

/* Reports a request's outcome, once. resp is NULL unless RESPONSE; it
 * points into the received datagram and is valid during the call. The
 * callback may send the next request. */
typedef void (*mip_coap_response_fn)(void *ctx, enum mip_coap_result r,
                                     const struct mip_coap_msg *resp);

#define MIP_COAP_STATS_LIST(X)                                              \
    X(rx)                /* datagrams received */                           \
    X(tx)                /* datagrams sent, retransmissions included */     \
    X(drop_version)      /* Ver != 1 */                                     \
    X(drop_format)       /* message format errors (RST sent for a CON) */   \
    X(drop_bad_option)   /* unrecognised critical option (4.02 / dropped) */\
    X(drop_unmatched)    /* ACK/RST/response for no exchange */             \
    X(drop_unexpected)   /* a message of a kind we do not handle */         \
    X(duplicates)        /* CON/NON seen again within its lifetime */       \
    X(dedup_evicted)     /* dedup entries reused before their lifetime */   \
    X(rst_sent)                                                             \
    X(requests_served)                                                      \
    X(requests_sent)                                                        \
    X(retransmissions)                                                      \
    X(timeouts)                                                             \
    X(send_errors)       /* the stack refused a datagram */

enum mip_coap_stat {
#define MIP_COAP_STAT_ENUM(n) MIP_COAP_STAT_##n,
    MIP_COAP_STATS_LIST(MIP_COAP_STAT_ENUM)
#undef MIP_COAP_STAT_ENUM
    MIP_COAP_STAT_COUNT
};

/* CoCoA state for one peer (times in ms). */
struct mip_coap_rtt {
    struct mip_coap_peer peer;
    bool     used;
    bool     strong_valid, weak_valid;
    uint32_t srtt_s, rttvar_s;        /* strong estimator */
    uint32_t srtt_w, rttvar_w;        /* weak estimator */
    uint32_t rto;                     /* overall RTO */
    mip_time_t updated;               /* last change of rto, for aging */
    mip_time_t last_used;
};

struct mip_coap_exchange {
    uint8_t  state;                   /* 0 free, 1 waiting ACK, 2 waiting response */
    uint8_t  retransmits;
    uint16_t len;
    uint8_t  token_len;
    uint8_t  token[MIP_COAP_TOKEN_MAX];
    uint16_t mid;
    struct mip_coap_peer peer;
    uint32_t timeout;                 /* current retransmission timeout (ms) */
    mip_time_t deadline;
    mip_time_t first_sent;
    mip_coap_response_fn fn;
    void    *ctx;
    uint8_t  msg[MIP_COAP_MSG_MAX];
};

struct mip_coap_dedup {
    struct mip_coap_peer peer;
    uint16_t mid;
    uint8_t  used;
    uint16_t len;                     /* 0: nothing to resend (NON, or ACK too big) */
    mip_time_t expires;
    uint8_t  reply[MIP_COAP_MSG_MAX];
};

struct mip_coap_endpoint {
    struct mip_stack *s;
    uint16_t port;
    bool     bound;                   /* mip_coap_start bound the port (not mip_coap_init) */
    bool     cocoa;                   /* CoCoA instead of RFC 7252's fixed timers */
    uint32_t ack_timeout_ms;          /* ACK_TIMEOUT; mip_coap_start sets
                                       * MIP_COAP_ACK_TIMEOUT_MS (Contiki's CoAP
                                       * uses 3 s); CoCoA's first RTO too */
    uint16_t next_mid;
    uint8_t  dedup_next;
    const struct mip_coap_resource *resources;
    size_t   n_resources;
    struct mip_coap_exchange ex[MIP_COAP_CLIENT_MAX];
    struct mip_coap_dedup dedup[MIP_COAP_DEDUP_MAX];
    struct mip_coap_rtt rtt[MIP_COAP_PEERS_MAX];
    uint32_t stats[MIP_COAP_STAT_COUNT];
    uint8_t  out[MIP_COAP_MSG_MAX];   /* scratch for one outgoing message */
};

/* Clears *ep, binds `port` and registers the endpoint's poller. The
 * resource table (may be NULL, n 0) is the caller's and must outlive the
 * endpoint, as must *ep. Returns what mip_udp_bind / mip_stack_add_poller
 * return. */
mip_status mip_coap_start(struct mip_coap_endpoint *ep, struct mip_stack *s, uint16_t port,
                          const struct mip_coap_resource *resources, size_t n_resources,
                          bool cocoa);

/* As mip_coap_start, but the port is not bound here: its owner (a process
 * of the kernel, apps/os_apps.h) binds it and hands each datagram to
 * mip_coap_input. Sending uses `port` as the source port. */
mip_status mip_coap_init(struct mip_coap_endpoint *ep, struct mip_stack *s, uint16_t port,
                         const struct mip_coap_resource *resources, size_t n_resources,
                         bool cocoa);
/* One datagram for the endpoint (what mip_coap_start's binding does with
 * each); ignored after mip_coap_stop. */
void mip_coap_input(struct mip_coap_endpoint *ep, const struct mip_udp_meta *meta,
                    const uint8_t *data, size_t len);

/* Unbinds the port (when mip_coap_start bound it); outstanding requests end with CANCELLED. The poller
 * stays registered (there is no removal) and does nothing afterwards. */
void mip_coap_stop(struct mip_coap_endpoint *ep);

/* Sends a request: type CON or NON, code GET/POST/PUT/DELETE, path as in
 * struct mip_coap_resource (may be NULL or ""), an optional Block1 option
 * (block1 NULL: none), a payload. INUSE: a request to this peer is
 * outstanding (NSTART 1); NOBUFS: all MIP_COAP_CLIENT_MAX slots busy;
 * INVALID: bad type/code, or the message does not fit MIP_COAP_MSG_MAX.
 * On MIP_OK (or PENDING while the link address is resolved) fn is called
 * exactly once, later, never from inside this call. */
mip_status mip_coap_request(struct mip_coap_endpoint *ep, const struct mip_coap_peer *dst,
                            uint8_t type, uint8_t code, const char *path,
                            const struct mip_coap_block *block1,
                            const uint8_t *payload, size_t len,
                            mip_coap_response_fn fn, void *ctx);

/* The peer's current retransmission timeout in ms (CoCoA's overall RTO, or
 * ack_timeout_ms without CoCoA or before any sample). */
uint32_t mip_coap_rto(const struct mip_coap_endpoint *ep, const struct mip_coap_peer *peer);

uint32_t mip_coap_stat(const struct mip_coap_endpoint *ep, enum mip_coap_stat which);
const char *mip_coap_stat_name(enum mip_coap_stat which);   /* NULL out of range */

#endif
