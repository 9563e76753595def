/*
 * moteip-sim: a discrete-event simulator that runs the real moteip stack on
 * every node of a modelled IEEE 802.15.4 network.
 *
 * A run is: a scenario (struct sim_scenario, loaded from JSON by
 * scenario.c and documented in docs/SIMULATOR.md) -> sim_build() makes the
 * nodes, the medium, the routes and the apps -> sim_run() pops events until
 * the end time or until every flow is done -> sim_write_result() writes the
 * JSON result. Everything random is drawn from PRNG streams derived from
 * (seed, node id, purpose), and event ties break by insertion order, so a
 * scenario and a seed give byte-identical results on any machine.
 *
 * Time is a 64-bit microsecond count from 0. A node's stack sees it as
 * milliseconds (mip_time_t), its MAC as wrapping microseconds (mip_utime_t).
 */
#ifndef MOTEIP_SIM_H
#define MOTEIP_SIM_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include "moteip/moteip.h"
#include "moteip/tcp.h"
#include "moteip/mac.h"
#include "moteip/radio.h"
#include "moteip/relay.h"
#include "moteip/rpl.h"
#include "moteip/geo.h"
#include "evq.h"

/* ---------------------------------------------------------------- scenario */

/*
 * Node ids and link addresses. Up to SIM_SHORT_NODES_MAX nodes, node i has
 * the 802.15.4 short address i (0xFFFE and 0xFFFF are reserved: "no short
 * address" and broadcast) and the IID 0000:00ff:fe00:iiii. A larger network
 * runs every node without a short address: frames carry the extended
 * address 02:00:00:01:ii:ii:ii:ii and the IID is the one derived from it
 * (0000:0001:iiii:iiii: never all zeros, which names no station), which
 * IPHC still elides. That needs IPv6 over
 * 6LoWPAN (link.mode "iphc"); scenario.c refuses what needs short
 * addresses there (IPv4 and raw mode, sleepy leaves, misbehaving nodes, a
 * border router). link.short_addresses false runs a smaller network the
 * same way. SIM_NODES_MAX bounds memory (docs/SIMULATOR.md).
 */
#define SIM_SHORT_NODES_MAX 65534u
#define SIM_NODES_MAX 1000000u

enum sim_medium_model {
    SIM_MEDIUM_UNIT_DISK = 0,   /* reception range + interference/carrier-sense range */
    SIM_MEDIUM_LOG_DISTANCE,    /* path loss + shadowing, SINR, O-QPSK BER, capture */
    SIM_MEDIUM_PRR              /* explicit per-link packet reception ratios */
};

enum sim_topology_kind {
    SIM_TOPO_CHAIN = 0, SIM_TOPO_GRID, SIM_TOPO_RANDOM, SIM_TOPO_POSITIONS, SIM_TOPO_LINKS
};

enum sim_routing_kind { SIM_ROUTING_SHORTEST = 0, SIM_ROUTING_STATIC, SIM_ROUTING_RPL, SIM_ROUTING_GEO };
enum sim_rpl_mode { SIM_RPL_NON_STORING = 0, SIM_RPL_STORING };
/* link.addressing: "static" gives every node its address and context 0 at
 * start; "6lowpan-nd" makes node 0 a 6LoWPAN-ND router (6LBR) announcing
 * link.prefix and context 0, and every other node a host that solicits,
 * forms its address by SLAAC and registers it (docs/ND.md); "spatial"
 * gives each node the address of its position (wire/spatial.h; routing
 * "geo" only, docs/GEO.md). */
enum sim_addressing { SIM_ADDR_STATIC = 0, SIM_ADDR_ND6LO, SIM_ADDR_SPATIAL };
enum sim_routing_metric { SIM_METRIC_HOPS = 0, SIM_METRIC_ETX };

enum sim_flow_kind { SIM_FLOW_TCP = 0, SIM_FLOW_UDP, SIM_FLOW_PING, SIM_FLOW_SENSOR };

/* The transport of a sensor flow (sim/sensor.c). */
enum sim_sensor_transport { SIM_SENSOR_TCP = 0, SIM_SENSOR_COAP, SIM_SENSOR_COCOA };

/* What a frame carries, from its headers (medium.frame_loss, and the
 * tcp_data_frames_tx / tcp_ack_frames_tx counters): a TCP segment with data,
 * SYN or FIN; a pure TCP ACK; an 802.15.4 ACK frame; anything else (FRAGNs,
 * UDP, ICMP, frames the peek cannot read). */
enum sim_frame_kind {
    SIM_FRAME_TCP_DATA = 0, SIM_FRAME_TCP_ACK, SIM_FRAME_LINK_ACK, SIM_FRAME_OTHER,
    SIM_FRAME_KINDS
};

struct sim_link {               /* one explicit link (topology "links" or a PRR matrix entry) */
    uint32_t a, b;
    double   prr;               /* a->b reception ratio (and b->a when symmetric) */
};

struct sim_static_route {
    uint32_t node, dst, via;
};

/* A scheduled change of the network (scenario key "events", sim/dynamics.c). */
enum sim_dyn_kind {
    SIM_DYN_NODE_DOWN = 0,      /* radio off, stack, MAC and apps frozen */
    SIM_DYN_NODE_UP,            /* a reboot: stack, MAC, TCP re-initialised */
    SIM_DYN_LINK,               /* a link's reception ratio overridden */
    SIM_DYN_MOVE,               /* a node placed elsewhere (positions models) */
    SIM_DYN_KINDS
};

struct sim_event_spec {
    uint8_t  kind;              /* enum sim_dyn_kind */
    uint32_t index;             /* its place in the scenario's list (events are
                                   kept sorted by time, ties in list order) */
    uint64_t at_us;
    uint32_t node;
    uint32_t to;                /* link: the other end */
    double   prr;               /* link: node -> to reception ratio */
    bool     symmetric;         /* link: to -> node as well */
    double   x, y;              /* move: the new position, metres */
};

struct sim_tcp_endpoint {       /* per-endpoint TCP options */
    bool     tiny;              /* tiny profile: no SACK/TS, no OOO, one-segment window */
    uint8_t  cwnd_cap;          /* segments, 0 = none */
    bool     sack, timestamps, nodelay;
    bool     limited_transmit;  /* RFC 3042 (the stack's default; off here so
                                   that the reproductions keep the TCP they
                                   were measured with) */
    bool     dsack;             /* RFC 2883 (likewise) */
    bool     early_retransmit;  /* RFC 5827, with SACK (likewise) */
    bool     tlp;               /* RFC 8985 7 tail loss probe, with SACK (likewise) */
    uint16_t delack_ms;         /* 0 = ACK every segment */
    uint8_t  cwnd_hold_backlog; /* TSS at the sender: cwnd does not grow while
                                   this many own segments wait in the relay
                                   (0 = off) */
    uint8_t  max_retries;       /* 1..255 retransmission timeouts before the
                                   connection gives up, for the node's whole
                                   struct mip_tcp (255 = never); 0 = default */
    uint16_t rto_min_ms;        /* the node's struct mip_tcp rto_min_ms
                                   (0 = the compile-time floor only) */
};

struct sim_flow_spec {
    uint8_t  kind;              /* enum sim_flow_kind */
    uint32_t src, dst;
    uint16_t port;
    double   start_s;
    /* TCP: exactly one of bytes or duration_s (segments * segment_bytes
     * becomes bytes, with the MSS capped at segment_bytes) */
    uint64_t bytes;
    double   duration_s;
    uint16_t mss;               /* 0: from the path MTU */
    uint32_t tx_buffer, rx_buffer;
    /* cctrl split and merge ([B] 4.5.1; sim/apps.c): tcp flows of one
     * nonzero group (same src and dst) carry one stream, chunk k of
     * tx_buffer bytes on the group's flow k mod n; the receiver merges it
     * in order, holding at most merge_buffer bytes per connection */
    uint8_t  merge_group;
    uint16_t merge_buffer;
    struct sim_tcp_endpoint sender, receiver;
    /* UDP reports and ping (ICMP echo); a sensor's readings */
    double   interval_s;
    uint32_t count;             /* 0: until the end */
    uint16_t payload_bytes;
    /* udp with link.addressing "spatial": to the regional broadcast
     * address of the region of this many code bits around dst (-1: to dst) */
    int32_t  region_bits;
    /* sensor (TCPlp s.9; sim/sensor.c): the TCP keys above, and */
    uint8_t  transport;         /* enum sim_sensor_transport */
    uint16_t reading_bytes;     /* 82 */
    uint16_t batch;             /* readings queued before the transport is asked; 1: none */
    uint16_t queue;             /* application queue, readings (TCP 64, CoAP 104) */
    uint16_t coap_payload;      /* largest CoAP message, bytes (the TCP segment's size) */
    uint32_t coap_ack_timeout_ms;   /* CoAP ACK_TIMEOUT (Contiki's CoAP: 3000) */
    double   loss;              /* injected datagram loss at dst, each way */
    double   drain_s;           /* after the last reading, before the flow ends */
};

/* A radio's current per state, mA, and its supply, V (docs/SIMULATOR.md
 * cites the datasheets). `off` is the state a duty-cycling MAC puts the
 * receiver in between listens. */
struct sim_radio_profile {
    double   tx_ma, rx_ma, listen_ma, off_ma, voltage;
};

enum sim_radio_profile_kind { SIM_RADIO_CC2420 = 0, SIM_RADIO_AT86RF233, SIM_RADIO_NRF52840,
                              SIM_RADIO_PROFILES };

/* A platform's timing beyond the air (scenario key "platform"; every
 * figure's source is in docs/SIMULATOR.md "Platform timing"). The MAC pays
 * rx_on_us, frame_host_us and bus_bps through struct mip_radio_timing, the
 * simulator's radio is deaf for rx_on_us after it is switched on, and each
 * node's clock runs at its own rate within +/- drift_ppm. */
struct sim_platform {
    uint16_t osc_on_us;         /* crystal oscillator start-up from power-down
                                   (documented; `off` keeps it running, so a
                                   duty-cycling MAC never pays it) */
    uint16_t rx_on_us;          /* receiver start-up from `off` */
    uint16_t turnaround_us;     /* RX <-> TX, and a frame's end to its ACK */
    uint16_t cca_us;            /* RSSI averaging of one CCA */
    uint16_t frame_host_us;     /* host CPU time per frame sent */
    uint32_t bus_bps;           /* host-radio SPI bit rate (0: free) */
    double   drift_ppm;         /* crystal tolerance: a clock's rate error bound */
};

/* "ideal": today's radio (no start-up, free host, perfect clocks); the
 * others follow the radio profile of the same chip (platform - 1: keep the
 * two enums in the same order). */
enum sim_platform_kind { SIM_PLATFORM_IDEAL = 0, SIM_PLATFORM_CC2420, SIM_PLATFORM_AT86RF233,
                         SIM_PLATFORM_NRF52840, SIM_PLATFORMS };

/* A route of the border router towards the host (border.routes). */
struct sim_border_route {
    struct mip_addr prefix;
    uint8_t  prefix_len;
    bool     has_via;
    struct mip_addr via;        /* a next hop on the host link (TAP); else on-link */
};

#define SIM_BORDER_ROUTES_MAX 8u

enum sim_border_kind { SIM_BORDER_TUN = 0, SIM_BORDER_TAP };

/* The border router (scenario key "border", sim/border.c): one node whose
 * second netif is a TUN or TAP device on the host, so host programs reach
 * the simulated nodes through it (with --realtime). */
struct sim_border_spec {
    bool     on;                /* a "border" object was given */
    uint32_t node;
    uint8_t  kind;              /* enum sim_border_kind */
    char     device[16];        /* the interface's name (IFNAMSIZ) */
    struct mip_addr addr;       /* the router's address on the host link ... */
    uint8_t  addr_len;          /* ... and that link's prefix length */
    struct sim_border_route routes[SIM_BORDER_ROUTES_MAX];
    uint8_t  n_routes;
    uint32_t *reach;            /* the nodes the host reaches; NULL: every node
                                   with a path to the border router */
    size_t   n_reach;
};

enum sim_service_kind {
    SIM_SVC_HTTP = 0, SIM_SVC_TCP_ECHO, SIM_SVC_TCP_DISCARD, SIM_SVC_TCP_CHARGEN,
    SIM_SVC_UDP_ECHO, SIM_SVC_KINDS
};

/* A server app of apps/ on a node (scenario key "services", sim/services.c). */
struct sim_service_spec {
    uint8_t  kind;              /* enum sim_service_kind */
    uint32_t node;
    uint16_t port;
    uint16_t mss;               /* the node's struct mip_tcp mss_max; 0: from the MTU */
};

/* Where a misbehaving node's forged pending-bit frames go. */
enum sim_misbehave_to { SIM_MISBEHAVE_TO_TARGET = 0, SIM_MISBEHAVE_TO_BROADCAST };

/* A misbehaving node (scenario key "misbehave", sim/misbehave.c): forged or
 * replayed frames for its target, each kind every *_every_ms (0: never),
 * between start_s and stop_s (0: the end of the run). */
struct sim_misbehave_spec {
    uint32_t node, target;
    uint32_t pending_every_ms;  /* a data frame with the frame pending bit */
    uint8_t  pending_to;        /* enum sim_misbehave_to */
    uint16_t payload_bytes;     /* of those frames (NALP, dropped by the stack) */
    uint32_t strobe_every_ms;   /* an X-MAC strobe naming the target */
    uint32_t probe_every_ms;    /* an LPP probe */
    uint32_t poll_every_ms;     /* a data request from an invented address */
    uint32_t replay_every_ms;   /* the last data frame overheard for the target */
    bool     cca;               /* each frame through unslotted CSMA-CA (the
                                 * node's own min_be, max_be, max_backoffs):
                                 * a node on its radio's normal path; false:
                                 * straight on the air, a jammer */
    double   start_s, stop_s;
};

/* An external node (scenario key "external", sim/external.c): node `node`
 * of the topology is a program outside the simulator (a moteip-host
 * --zep, another stack's emulated radio) that speaks ZEP on loopback. The
 * node keeps its place in the medium (position, links); its frames enter
 * the medium when their datagrams arrive, and the frames the medium
 * delivers to it leave as datagrams. */
struct sim_external_spec {
    uint32_t node;
    char     local[64];         /* address:port the simulator binds: the node sends here */
    char     remote[64];        /* the node's own ZEP address: its frames go there */
    uint8_t  channel;           /* the ZEP channel field, both ways */
};

/* The application overlay (scenario key "overlay", sim/overlay.c): every
 * node runs apps/overlay.h; every node but the sink has a sensor; the sink
 * subscribes at the start. */
struct sim_overlay_spec {
    bool     on;                /* an "overlay" object was given */
    uint32_t sink;
    uint8_t  attr;
    uint8_t  depth;             /* hops the schedule plans for */
    uint16_t slot_ms;           /* each level's time in a round */
    double   interval_s;        /* one round */
    double   lifetime_s;        /* interest and gradient soft state */
};

/* cctrl's split-and-merge proxy (scenario key "proxy", sim/proxy.c,
 * apps/cctrl_proxy.h): the nodes that take over SYNs to `port` and split
 * the stream over subflows to `peer`, which ends the subflows and opens
 * the real connection. */
#define SIM_PROXY_NODES_MAX 64u
struct sim_proxy_spec {
    bool     on;                /* a "proxy" object was given */
    uint32_t nodes[SIM_PROXY_NODES_MAX];    /* client-side takeover nodes */
    uint32_t n_nodes;
    uint32_t peer;              /* the subflows' end (server side) */
    uint16_t port;              /* SYNs to this port are taken over */
    uint16_t tunnel_port;
    uint8_t  subflows;
    uint16_t chunk;
    uint16_t hold;
    uint8_t  cwnd_cap;          /* of the proxy's connections; 0: none */
    uint8_t  max_retries;       /* the proxy nodes' struct mip_tcp; 0: default */
    bool     delayed_ack;       /* of the proxy's connections */
    bool     options;           /* SACK and timestamps on the proxy's connections */
    bool     limited_transmit;  /* RFC 3042 on the proxy's connections */
    bool     dsack;             /* RFC 2883 on the proxy's connections */
    bool     early_retransmit;  /* RFC 5827 on the proxy's connections */
    bool     tlp;               /* RFC 8985 7 on the proxy's connections */
    double   setup_s, idle_s;
};

/* One node's link-layer security (scenario key security.nodes). */
struct sim_node_sec {
    uint8_t level;              /* 0: none */
    uint8_t key[16];
};

struct sim_scenario {
    char     name[64];
    uint64_t seed;
    double   duration_s;        /* simulated time limit */
    bool     stop_when_done;    /* end early when every flow is finished */
    /* PHY and radio energy */
    struct mip_radio_timing timing;
    uint8_t  radio_profile;     /* enum sim_radio_profile_kind the currents came from */
    struct sim_radio_profile radio;
    uint8_t  platform;          /* enum sim_platform_kind (the timing's source) */
    double   drift_ppm;         /* each node's clock rate error, drawn in +/- this */
    /* medium */
    uint8_t  medium;
    double   range_m, interference_range_m;          /* unit disk */
    double   cs_range_m;        /* unit disk: carrier sense (>= range_m) */
    double   tx_power_dbm, pl_d0_db, d0_m, pl_exponent, shadowing_db,
             noise_dbm, sensitivity_dbm, cca_dbm, capture_db;   /* log distance */
    double   ber;               /* uniform bit error overlay, all models */
    double   prr_default;       /* PRR model: links not listed */
    bool     ber_counts_phy_header;
    /* > 0: a frame for another node whose first this-many MPDU bytes
     * arrived intact is handed to the node's relay as an overheard header
     * even when the rest is lost (the TSS paper's 416-bit rule) */
    uint16_t overhear_header_bytes;
    /* independent drop probability per reception by frame kind (enum
     * sim_frame_kind), on top of the channel model; 0 = none */
    double   frame_loss[SIM_FRAME_KINDS];
    /* topology */
    uint8_t  topology;
    uint32_t n_nodes;
    double   spacing_m, width_m, height_m;
    uint32_t grid_cols;
    double  (*pos)[2];          /* n_nodes positions (filled for every kind but LINKS) */
    struct sim_link *links;     /* LINKS topology / PRR matrix */
    size_t   n_links;
    bool     links_symmetric;
    /* MAC and link */
    struct mip_mac_config mac;  /* kind and parameters; addresses set per node */
    struct mip_rdc_config *node_rdc;    /* n_nodes RDC configs when mac.nodes
                                           overrides any, else NULL: mac.rdc */
    /* Link-layer security (key "security"): mac.sec is the network's;
     * node_sec, when security.nodes names any node, n_nodes levels and
     * keys (a node with another key is an outsider), else NULL. */
    struct sim_node_sec *node_sec;
    uint8_t  link_mode;         /* enum mip_lowpan_mode */
    uint8_t  frag_mode;         /* enum mip_lowpan_frag_mode */
    uint16_t frag_gap_us;       /* FORWARD: gap before each fragment */
    bool     ipv4;              /* RAW_IP carrying IPv4 (else IPv6) */
    uint8_t  link_hdr_bytes;    /* RAW_IP header incl. FCS */
    uint8_t  frame_max;         /* MPDU incl. FCS */
    bool     link_acks;         /* ack-request bit on unicast frames */
    bool     short_addresses;   /* link.short_addresses: nodes have 16-bit short
                                   addresses (false: extended only; forced
                                   above SIM_SHORT_NODES_MAX nodes) */
    uint8_t  addressing;        /* enum sim_addressing (link.addressing) */
    bool     udp_cksum_elide;   /* link.udp_checksum "elide" (needs security) */
    uint16_t udp_shared_ports[2]; /* link.udp_shared_ports_*: 0 none */
    bool     tcp_hc;            /* link.tcp_hc: TCP header compression */
    /* routing */
    uint8_t  routing;
    uint8_t  metric;
    bool     routes_symmetric;
    struct sim_static_route *routes;
    size_t   n_routes;
    /* shortest: routes are computed again this long after each event (the
     * omniscient "ideal routing" arm; sim/dynamics.c) */
    double   repair_delay_s;
    /* dynamics, sorted by time (sim/dynamics.c) */
    struct sim_event_spec *events;
    size_t   n_events;
    /* routing.type "rpl": every node runs RPL (src/route/rpl.c), node
     * rpl_root is the DODAG root announcing the mesh prefix */
    uint8_t  rpl_mode;          /* enum sim_rpl_mode */
    uint32_t rpl_root;
    struct mip_rpl_config rpl;  /* ocp, Trickle, rank increases (mop from rpl_mode) */
    /* link.addressing "spatial" and routing.type "geo" (docs/GEO.md) */
    uint8_t  spatial_map;       /* enum mip_spatial_kind */
    double   spatial_cell_m;
    double   geo_beacon_s, geo_timeout_s, geo_seen_s;
    uint32_t geo_jitter_ms;
    bool     geo_perimeter;
    /* in-network TCP support on every node (mode MIP_RELAY_OFF: none) */
    struct mip_relay_config relay;
    /* apps */
    struct sim_flow_spec *flows;
    size_t   n_flows;
    /* the mesh's /64 (IPv6): node addresses and 6LoWPAN context 0 (link.prefix) */
    uint8_t  prefix[8];
    struct sim_border_spec border;
    struct sim_service_spec *services;
    size_t   n_services;
    struct sim_misbehave_spec *misbehave;
    size_t   n_misbehave;
    struct sim_external_spec *external;     /* "external" (sim/external.c) */
    size_t   n_external;
    struct sim_overlay_spec overlay;
    struct sim_proxy_spec proxy;
    /* records kept beyond the counters (sim/record.c, "record") */
    bool     record_relay_rtt, record_cache_hold, record_in_flight;
};

void sim_scenario_defaults(struct sim_scenario *sc);
void sim_scenario_free(struct sim_scenario *sc);
/* Loads and validates a JSON scenario. On failure returns false and writes
 * "FILE: key.path: what was expected" into err. */
bool sim_scenario_load(const char *path, struct sim_scenario *sc, char *err, size_t errlen);
bool sim_scenario_parse(const char *text, size_t len, const char *fname,
                        struct sim_scenario *sc, char *err, size_t errlen);
/* Writes every scenario key (type, range, default) as Markdown tables, the
 * list docs/SIMULATOR.md holds (tests/unit/sim/test_scenario_keys.c checks
 * that it does). */
void sim_scenario_keys_md(FILE *f);

/* ------------------------------------------------------------------ runtime */

enum sim_radio_state { SIM_RADIO_OFF = 0, SIM_RADIO_LISTEN, SIM_RADIO_RX, SIM_RADIO_TX };
/* What a frame's end left for a receiver to take (sim_medium_tx_end). */
enum sim_rx_pending { SIM_RX_NONE = 0, SIM_RX_FRAME, SIM_RX_HEADER };

struct sim_neighbor {           /* a node that hears (or is disturbed by) a sender */
    uint32_t node;
    float    rx_dbm;            /* received power (log distance) */
    float    prr;               /* link reception ratio (PRR, unit disk: 1 or 0) */
    bool     decodable;         /* within reception range / above sensitivity */
    bool     interferes;        /* corrupts a frame it overlaps (unit disk:
                                   within interference_range_m; others: all) */
    bool     sensed;            /* makes CCA busy (unit disk: within
                                   cs_range_m; others: all) */
};

struct sim_tx {                 /* one transmission on the air */
    uint32_t sender;
    uint64_t start_us, end_us;
    uint16_t len;               /* MPDU bytes incl. FCS */
    uint8_t  kind;              /* enum sim_frame_kind */
    uint32_t boot;              /* the sender's boot count when it started */
    uint8_t  frame[MIP_MAC_FRAME_MAX + 2];
    bool     live;
};

struct sim_node_counters {
    uint64_t frames_tx, frames_rx_ok, frames_rx_collided, frames_rx_corrupted,
             frames_rx_lost, frames_missed_busy;
    /* frames lost here whose header arrived intact and went to the relay
     * as overheard (medium.overhear_header_bytes) */
    uint64_t frames_header_only;
    /* transmissions (retries included) of frames whose header shows a TCP
     * segment with data, SYN or FIN, or a pure TCP ACK (FRAGNs: neither) */
    uint64_t tcp_data_frames_tx, tcp_ack_frames_tx;
    /* frames and MPDU bytes sent (retries included), and of them the
     * routing and neighbour-discovery control frames (ICMPv6 RPL 155, ND
     * 133-137) */
    uint64_t bytes_tx, ctrl_frames_tx, ctrl_bytes_tx;
    uint64_t us_tx, us_rx, us_listen, us_off;
};

/* What the flows delivered, for the per-delivery energy metrics. */
struct sim_delivered {
    uint64_t bytes;             /* TCP bytes in order + UDP payload bytes */
    uint64_t segments;          /* TCP in-order arrivals + UDP reports */
};

struct sim_node;
struct sim;

/* A routing arm's view for the convergence metric (dynamics.c): fills
 * joined[i] (sim->n bytes) with 1 for each node i that has joined (a preferred parent or default route, or it is the
 * root) and the root reaches it (a route or node-table entry for it). Its
 * path counts as the simulator sees it: a node whose way to the root (or
 * the root's to it) passes a node that is down, or loops, has not joined,
 * whatever its own tables still believe. */
typedef void (*sim_joined_fn)(struct sim *sim, uint8_t *joined);

struct mip_coap_endpoint;       /* apps/coap.h */

struct sim_node {
    uint32_t id;
    struct sim *sim;
    struct mip_stack stack;
    struct mip_pbuf pbuf_hdr[MIP_PBUF_COUNT];   /* its pool's headers (data: sim->buf_mem) */
    struct mip_tcp tcp;
    bool     tcp_on;
    struct mip_mac mac;
    /* The optional protocols' instances, allocated at build only where the
     * scenario runs them (NULL otherwise): a node that never runs RPL does
     * not carry its 5.7 KB (docs/SIMULATOR.md, memory per node). */
    struct mip_relay *relay;    /* sc->relay.mode != MIP_RELAY_OFF */
    struct mip_rpl *rpl;        /* sc->routing == SIM_ROUTING_RPL */
    uint64_t rpl_joined_us;     /* first time it was in the DODAG (UINT64_MAX: never) */
    struct mip_geo *geo;        /* sc->routing == SIM_ROUTING_GEO */
    struct mip_rdc_held *rdc_held;  /* a parent RDC's MIP_RDC_INDIRECT held frames */
    struct mip_coap_endpoint *coap;   /* a sensor flow's CoAP endpoint, or NULL */
    struct mip_netif_driver drv;
    uint8_t  netif;
    struct mip_nd6lo_router_config nd_router;   /* node 0 with link.addressing "6lowpan-nd" */
    struct mip_rng chan_rng;    /* reception draws at this node */
    /* radio */
    uint8_t  radio;             /* enum sim_radio_state */
    bool     radio_on;          /* receiver enabled by the MAC */
    uint64_t radio_since_us;
    uint64_t rx_ready_us;       /* switched on from off: deaf until then (rx_on_us) */
    int32_t  drift_ppb;         /* its clock's rate error, parts per 10^9 */
    uint32_t rx_tx;             /* transmission being received */
    uint8_t  rx_pending;        /* enum sim_rx_pending ... */
    uint32_t rx_pending_tx;     /* ... of this transmission (a new reception
                                   may have started since its end) */
    bool     rx_corrupt;        /* collided: an interferer overlapped */
    uint64_t rx_corrupt_us;     /* ... since then (the header rule) */
    double   rx_min_sinr;       /* log distance: worst SINR so far (linear) */
    double   rx_hdr_min_sinr;   /* ... over the overheard header's airtime */
    double   interference_mw;   /* sum of signals on the air here now */
    uint32_t signals;           /* transmissions audible here now */
    uint32_t sensed;            /* ... of which CCA senses */
    uint32_t interferers;       /* ... of which corrupt a reception */
    uint32_t cur_tx;            /* our own transmission, when radio == TX */
    /* neighbours of this node as a sender */
    struct sim_neighbor *nbr;
    size_t   n_nbr;
    /* deadlines scheduled in the event queue (UINT64_MAX: none) */
    uint64_t stack_due, mac_due;
    struct sim_node_counters c;
    /* dynamics: a node that is down runs nothing and its radio is off;
     * boots counts its reboots (its PRNG streams derive from it) */
    bool     down;
    uint32_t boots;
    /* an external node (sim/external.c): its stack and MAC never run; the
     * medium hands its frames to a ZEP socket instead */
    bool     external;
    uint8_t  route_peak;        /* most routes in its table at once */
};

/* A node's big buffers, outside struct mip_stack (MIP_BUFS_OWN 0 in the
 * simulator's build): the full profile's capacity, every node's when they
 * lived inside it. */
#define SIM_PBUF_BYTES ((size_t)MIP_PBUF_COUNT * MIP_PBUF_SIZE)
#define SIM_REASS_BYTES ((size_t)MIP_REASS_SLOTS * MIP_REASS_SIZE)
#define SIM_NODE_BUF_BYTES (SIM_PBUF_BYTES + SIM_REASS_BYTES)

struct sim_flow;
struct sim_record;
struct sim_capture;
struct sim_border;
struct sim_service;
struct sim_realtime;
struct sim_zep_mirror;
struct sim_misbehave;
struct sim_external;
struct sim_route_made;
struct sim_overlay;

/*
 * What a node (node.c) needs from the modules above it, set by sim_build
 * (run.c): node.c calls no module itself, so calls between the sim files
 * go one way (run.c -> modules -> node.c -> ctx.c).
 */
struct sim_node_env {
    const struct mip_radio_driver *radio;       /* the simulated radio (medium.c) */
    /* observers (apps.c): a frame the netif hands the MAC; a datagram
     * delivered to the node's IP; after every touch, its senders' cc */
    void (*frame_out)(struct sim *sim, struct sim_node *nd, const uint8_t *frame, size_t len);
    void (*datagram_in)(struct sim *sim, struct sim_node *nd, const uint8_t *ip, size_t len);
    void (*sample_cc)(struct sim *sim, struct sim_node *nd);
    void (*record)(struct sim *sim, struct sim_node *nd);      /* after every touch (record.c) */
    void (*rebooted)(struct sim *sim, struct sim_node *nd);    /* static routes, apps again */
};

struct sim {
    struct sim_scenario *sc;
    struct sim_evq q;
    uint64_t now_us;
    uint64_t end_us;
    struct sim_node *node;
    uint32_t n;
    /* every node's big buffers (its packet buffers, then its IP reassembly
     * buffers), SIM_NODE_BUF_BYTES each, node i's at i x SIM_NODE_BUF_BYTES:
     * one zeroed allocation (mmap), so a node's pages of it are resident
     * only once it uses them */
    uint8_t *buf_mem;
    struct sim_tx *tx;          /* transmissions, reused ring */
    size_t   tx_cap;
    uint32_t tx_next;
    struct sim_flow *flow;
    size_t   n_flows;
    uint32_t *flow_to;          /* per node: its first flow as destination, the
                                   rest chained in flow order (apps.c) */
    size_t   flows_done;
    uint64_t events;
    struct sim_capture *capture; /* when --pcap (capture.h) */
    struct sim_zep_mirror *zep_mirror; /* when --zep-mirror (zep_mirror.h) */
    unsigned warnings;          /* sim_warn() calls; --strict makes them errors */
    FILE    *trace;             /* JSON lines when --trace */
    struct sim_border *border;  /* the border router's host side (border.c), or NULL */
    struct sim_service *services;   /* sc->n_services servers (services.c) */
    struct sim_realtime *rt;    /* pacing to the wall clock (--realtime), or NULL */
    struct sim_record *record;  /* NULL: nothing recorded beyond counters */
    struct sim_misbehave *misbehave;    /* sc->n_misbehave (misbehave.c), or NULL */
    struct sim_external *external;      /* sc->n_external ZEP sockets (external.c), or NULL */
    struct sim_overlay *overlay;        /* sc->overlay.on (overlay.c), or NULL */
    struct sim_proxy *proxy;            /* sc->proxy.on (proxy.c), or NULL */
    bool     trace_radio;       /* --trace-radio: radio state changes in the trace */
    struct sim_dyn *dyn;        /* the events' state and metrics (dynamics.c) */
    uint32_t dyn_moves;         /* moves so far (their shadowing streams) */
    sim_joined_fn joined;       /* NULL: the routing arm has nothing to join */
    struct sim_route_made *routes_made; /* what the shortest arm installed, */
    size_t   routes_made_n, routes_made_cap; /* when events may redo it (routes.c) */
    char     err[256];
    struct sim_node_env env;    /* node.c's hooks into the modules (run.c) */
};

/* Builds the network of sc (nodes, medium neighbours, routes, apps). On
 * failure returns false with a message in sim->err. */
bool sim_build(struct sim *sim, struct sim_scenario *sc);
/* Runs until the end time or until every flow is done. */
void sim_run(struct sim *sim);
/* The parts of a run loop (sim_run; realtime.c paces the same steps):
 * runs one event popped from sim->q (stale ones only move the clock);
 * whether the run may stop early (every flow done, stop_when_done); and
 * the end of a run, which closes the energy books. */
void sim_event_run(struct sim *sim, const struct sim_event *ev);
bool sim_flows_finished(const struct sim *sim);
void sim_run_end(struct sim *sim);
void sim_free(struct sim *sim);
/* Writes the result JSON. */
void sim_write_result(struct sim *sim, FILE *out);

/* Internal, between the sim files. */
void sim_node_schedule(struct sim *sim, struct sim_node *nd);   /* after any stack/MAC call */
/* A frame for another node lost at nd but for its first len bytes (no FCS):
 * the relay overhears the header. False when nd does not take it (its own
 * frame, an ACK, no relay). */
bool sim_node_overheard_header(struct sim *sim, struct sim_node *nd, const uint8_t *frame,
                               size_t len);
mip_time_t sim_ms(const struct sim *sim);
bool sim_medium_build(struct sim *sim, char *err, size_t errlen);
/* The medium's neighbour lists, (re)made: through a spatial grid (cells as
 * wide as the farthest pair that hears or disturbs), or with all_pairs the
 * O(n^2) way. Both give the same lists, sorted by node id; log distance
 * with shadowing always takes all pairs (its deviates are drawn in pair
 * order). */
bool sim_medium_neighbors(struct sim *sim, bool all_pairs, char *err, size_t errlen);
void sim_medium_tx_end(struct sim *sim, uint32_t txid);
/* Adds the time since the last radio state change to that state's total. */
void sim_radio_account(struct sim *sim, struct sim_node *nd);
/* With --trace-radio: every node's radio state at the start of the trace. */
void sim_radio_trace_start(struct sim *sim);
extern const struct mip_radio_driver sim_radio_driver;
bool sim_routes_build(struct sim *sim, char *err, size_t errlen);
bool sim_apps_build(struct sim *sim, char *err, size_t errlen);
void sim_app_event(struct sim *sim, uint32_t flow);
struct sj_writer;
void sim_apps_write(struct sim *sim, struct sj_writer *w);
void sim_apps_delivered(const struct sim *sim, struct sim_delivered *out);
/* Scenario names of a radio profile and of an RDC kind (scenario.c). */
const char *sim_radio_profile_name(uint8_t profile);
const char *sim_platform_name(uint8_t platform);

/* sim/platform.c: each node's own clock. A node's MAC runs on it: its
 * `now` is sim_node_us(), and a delay it asks for ends at sim_node_due(). */
int32_t  sim_clock_drift_ppb(double drift_ppm, const uint8_t seed[16]);
uint64_t sim_clock_local(int32_t drift_ppb, uint64_t t_us);
uint64_t sim_clock_global(int32_t drift_ppb, uint64_t local_us);
static inline mip_utime_t sim_node_us(const struct sim *sim, const struct sim_node *nd)
{
    return (mip_utime_t)(nd->drift_ppb == 0 ? sim->now_us
                                            : sim_clock_local(nd->drift_ppb, sim->now_us));
}
/* The simulator's time at which `delay_us` of the node's clock from now
 * have passed (the same instant without drift). */
static inline uint64_t sim_node_due(const struct sim *sim, const struct sim_node *nd,
                                    uint32_t delay_us)
{
    return nd->drift_ppb == 0 ? sim->now_us + delay_us
        : sim_clock_global(nd->drift_ppb, sim_clock_local(nd->drift_ppb, sim->now_us) + delay_us);
}
const char *sim_rdc_name(uint8_t kind);
void sim_apps_free(struct sim *sim);
/* Observers (apps.c): a frame node nd's netif hands its MAC; a whole
 * datagram delivered to nd's IP (the local hook, when no relay has it);
 * after every event of nd, its senders' congestion control. */
void sim_apps_frame_out(struct sim *sim, struct sim_node *nd, const uint8_t *frame, size_t len);
void sim_apps_datagram_in(struct sim *sim, struct sim_node *nd, const uint8_t *ip, size_t len);
void sim_apps_sample_cc(struct sim *sim, struct sim_node *nd);
/* The source node put a TCP segment [seq, seq + len) on the air (in_flight). */
void sim_apps_source_tx(struct sim *sim, uint32_t node, uint32_t seq, uint32_t len);
/* Records (record.c): made at build, looked at after every touch of a node,
 * written into the result. */
bool sim_record_init(struct sim *sim);
void sim_record_node(struct sim *sim, struct sim_node *nd);
void sim_record_write(struct sim *sim, struct sj_writer *w);
void sim_record_free(struct sim *sim);
/* Sensor flows (sim/sensor.c). sim_sensor_new returns NULL on failure (out
 * of memory) and otherwise the flow, with err[0] != 0 when the build
 * failed (the caller frees it). */
struct sim_sensor;
struct sim_sensor *sim_sensor_new(struct sim *sim, uint32_t index, const struct sim_flow_spec *fs,
                                  char *err, size_t errlen);
bool sim_sensor_event(struct sim *sim, struct sim_sensor *ss);   /* true: the flow is done */
void sim_sensor_write(struct sim *sim, const struct sim_sensor *ss, struct sj_writer *w);
void sim_sensor_delivered(const struct sim_sensor *ss, uint64_t *bytes, uint64_t *segments);
void sim_sensor_free(struct sim_sensor *ss);
struct sim_sensor *sim_flow_sensor(struct sim *sim, uint32_t flow);   /* NULL: not a sensor */
double sim_link_prr(const struct sim *sim, uint32_t a, uint32_t b, uint16_t frame_bytes);
/* Whether an IPv6 datagram (its first n bytes, as the 6LoWPAN peek gives
 * them) carries routing or neighbour-discovery control: ICMPv6 155 (RPL)
 * or 133-137 (ND), after hop-by-hop, routing and destination options
 * headers (the result's control_frames_tx). */
bool sim_frame_is_control(const uint8_t *ip, size_t n);
/* The upper-layer header of an IPv6 datagram ip[0..n) (n >= 40): its
 * offset and *proto, past hop-by-hop, routing and destination options
 * headers (an RPL Option, a source route); 0 when they run past n. */
size_t sim_ip6_upper(const uint8_t *ip, size_t n, uint8_t *proto);
double sim_oqpsk_ber(double sinr);
void sim_node_address(const struct sim *sim, uint32_t id, struct mip_addr *out);
/* Node id's short address (0xFFFE: none, in a network of more than
 * SIM_SHORT_NODES_MAX nodes), and the node id an IPv6 address of the sim's
 * form names (its IID's last two bytes, or last four without short
 * addresses); the caller checks it is < sim->n. */
uint16_t sim_node_short(const struct sim *sim, uint32_t id);
uint32_t sim_node_of_iid(const struct sim *sim, const uint8_t addr[16]);
/* link.spatial_map and spatial_cell_m as the nodes' mapping (docs/GEO.md);
 * with link.addressing "spatial" a node's address is its cell's (its own,
 * with its D, once its geo driver runs) and sim_node_of_iid looks it up. */
struct mip_spatial_map sim_spatial_map(const struct sim_scenario *sc);
void sim_trace(struct sim *sim, const char *event, uint32_t node, const char *fmt, ...);
/* Dynamics (dynamics.c): built after the apps; an event of the queue;
 * the result's "events" and "routing" members; the apps' observers. */
bool sim_dyn_build(struct sim *sim, char *err, size_t errlen);
void sim_dyn_event(struct sim *sim, uint8_t kind, uint32_t arg);
void sim_dyn_write(struct sim *sim, struct sj_writer *w);
void sim_dyn_free(struct sim *sim);
/* A routing arm that nodes join (RPL) gives its view at build; from then
 * on a probe every SIM_PROBE_US (and at least every 1 % of the time
 * waited) asks it about every node that is up until all have joined
 * ("routing.convergence_s"), and again after each event until they have
 * rejoined ("reconverged_after_s"). Probes run only while some node is out. */
#define SIM_PROBE_US 100000u
void sim_dyn_set_joined(struct sim *sim, sim_joined_fn joined);
/* Routes through a gateway in nd's route table (connected prefixes aside). */
uint32_t sim_node_routes(const struct sim_node *nd);
/* A TCP flow's receiver got new bytes; an IPv6/IPv4 datagram of a flow
 * reached its destination after `hops` hops (path stretch). */
void sim_dyn_delivered(struct sim *sim, uint32_t flow);
void sim_dyn_hops(struct sim *sim, uint32_t flow, uint32_t hops);
/* Node life (node.c): init makes node id at build (its stack, netif, MAC
 * and channel stream), down freezes nd, up reboots it; attach_leaf makes
 * leaf a child of parent's MAC (sleepy leaves). */
bool sim_node_init(struct sim *sim, struct sim_node *nd, uint32_t id, char *err, size_t errlen);
void sim_node_down(struct sim *sim, struct sim_node *nd);
bool sim_node_up(struct sim *sim, struct sim_node *nd);
bool sim_node_attach_leaf(struct sim *sim, uint32_t leaf, uint32_t parent);
/* Medium changes (medium.c): the reception ratio of a -> b (adds the link
 * when the lists lack it), and a node's new position. Transmissions on the
 * air keep their counts consistent. */
bool sim_medium_set_link(struct sim *sim, uint32_t a, uint32_t b, double prr);
bool sim_medium_move(struct sim *sim, uint32_t node, double x, double y);
/* Routes (routes.c): the shortest arm again from the current network
 * (down nodes left out); a node's static routes after its reboot. */
bool sim_routes_rebuild(struct sim *sim);
void sim_routes_node_static(struct sim *sim, uint32_t node);
/* Apps (apps.c): nd was rebooted (flows through it lose their TCP state);
 * an app event that found its node down waits for it to come up. */
void sim_apps_node_reboot(struct sim *sim, struct sim_node *nd);
/* A flow's counters now, for the windows around events (dynamics.c). */
struct sim_flow_counts {
    bool     tcp, udp, started, done, complete;
    uint64_t done_us;           /* when it ended (done) */
    uint64_t delivered;         /* TCP bytes in order */
    uint64_t last_rx_us;        /* the last delivery of TCP bytes */
    uint32_t timeouts, rexmits; /* the TCP sender node's (reset by its reboot) */
    uint64_t data_tx, data_rx;  /* TCP data segments sent / arrived */
    uint32_t sent, received;    /* UDP reports */
};
void sim_apps_flow_counts(const struct sim *sim, uint32_t flow, struct sim_flow_counts *out);
/* "moteip-sim: warning: ..." on stderr, counted in sim->warnings (routes.c). */
void sim_warn(struct sim *sim, const char *fmt, ...);
/* Server apps on nodes (services.c): started by sim_build, results under
 * "services". */
extern const char *const sim_service_names[SIM_SVC_KINDS + 1];   /* NULL-terminated */
bool sim_services_build(struct sim *sim, char *err, size_t errlen);
void sim_services_write(struct sim *sim, struct sj_writer *w);
void sim_services_free(struct sim *sim);
/* Misbehaving nodes (misbehave.c): their attacks scheduled at build, one
 * SIM_EV_MISBEHAVE event each, a frame node `node` received shown to them
 * (replays), results under "misbehave". */
/* The application overlay (sim/overlay.c): started on every node at build
 * (true when the scenario has none), its result, freed. */
bool sim_overlay_build(struct sim *sim, char *err, size_t errlen);
void sim_overlay_write(struct sim *sim, struct sj_writer *w);
void sim_overlay_free(struct sim *sim);
/* cctrl's split-and-merge proxies (sim/proxy.c): started at build on the
 * proxy nodes (after the flows, whose TCP settings they keep). */
struct sim_proxy;
bool sim_proxy_build(struct sim *sim, char *err, size_t errlen);
void sim_proxy_write(struct sim *sim, struct sj_writer *w);
void sim_proxy_free(struct sim *sim);
bool sim_misbehave_build(struct sim *sim, char *err, size_t errlen);
void sim_misbehave_event(struct sim *sim, uint32_t arg);
void sim_misbehave_heard(struct sim *sim, uint32_t node, const uint8_t *frame, size_t len);
void sim_misbehave_write(struct sim *sim, struct sj_writer *w);
void sim_misbehave_free(struct sim *sim);
/* The border router (border.c): its host netif, address and routes are
 * made by sim_build (sim_border_build); the device is attached only for a
 * run (sim_border_open). */
bool sim_border_build(struct sim *sim, char *err, size_t errlen);
/* The shortest-path tree towards root (routing.metric): next[x] is x's
 * neighbour on its way to root, UINT32_MAX when x has none (routes.c). */
void sim_route_tree(struct sim *sim, uint32_t root, uint32_t *next, double *dist, bool *done);
/* Routes between two nodes no flow names, both ways (routes.c; "shortest" only). */
bool sim_routes_pair(struct sim *sim, uint32_t a, uint32_t b);
/* The network into the trace at time 0: node positions, links with their
 * PRR, each flow's path (routes.c). */
void sim_trace_network(struct sim *sim);

#endif
