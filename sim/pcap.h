/*
 * A capture-file writer in the classic libpcap format (not pcapng), as
 * Wireshark and tcpdump read it: version 2.4, microsecond timestamps,
 * snaplen 65535, one link type per file chosen at open.
 *
 * Files are byte-for-byte reproducible: every header field is written
 * little-endian (magic bytes d4 c3 b2 a1) whatever the host, thiszone and
 * sigfigs are 0, and nothing depends on the wall clock. Timestamps are the
 * caller's: simulated time 0 shows as 1970-01-01 00:00:00 UTC.
 *
 * Link types:
 *   PCAP_LINKTYPE_IEEE802_15_4_WITHFCS (195): each record is a whole MPDU,
 *     MAC header through the 2-byte FCS (see mip_ieee802154_fcs());
 *   PCAP_LINKTYPE_RAW (101): each record is a bare IPv4 or IPv6 packet.
 *
 * Errors come back as a struct pcap_status value: code is 0 on success,
 * otherwise an errno value (EINVAL for bad arguments, EOVERFLOW for a
 * timestamp past what the format holds), and text says what failed, e.g.
 * "out/run.pcap: cannot open: Permission denied". Stdio buffers records,
 * so a write error may only surface at a later write, pcap_flush() or
 * pcap_close().
 */
#ifndef MOTEIP_SIM_PCAP_H
#define MOTEIP_SIM_PCAP_H

#include <stddef.h>
#include <stdint.h>

#define PCAP_LINKTYPE_RAW                  101u
#define PCAP_LINKTYPE_IEEE802_15_4_WITHFCS 195u

#define PCAP_SNAPLEN 65535u
#define PCAP_GLOBAL_HDR_LEN 24u
#define PCAP_RECORD_HDR_LEN 16u

struct pcap_status {
    int code;                       /* 0, or an errno value */
    char text[256];                 /* "" when code is 0 */
};

struct pcap_writer;                 /* owns the FILE; heap-allocated */

/* Creates (truncates) path and writes the global header. On success *out
 * is the writer; on failure *out is NULL and nothing is left open (a file
 * that could be created but not written may remain). linktype must be one
 * of the two above. */
struct pcap_status pcap_open(struct pcap_writer **out, const char *path, uint32_t linktype);

/* Appends one record captured at time_us (microseconds; the format keeps
 * seconds in 32 bits, so at most 2^32 s). Records longer than
 * PCAP_SNAPLEN are truncated to it and keep their original length, as
 * libpcap does. Timestamps need not increase. After a failed write the
 * file is suspect and further writes return the same error. */
struct pcap_status pcap_write(struct pcap_writer *p, uint64_t time_us, const uint8_t *bytes,
                              size_t len);

/* Pushes buffered records to the file (e.g. before the program could be
 * killed). */
struct pcap_status pcap_flush(struct pcap_writer *p);

/* Flushes, closes and frees p (NULL is allowed); reports the first error
 * of the file's life if any, else the close's own. */
struct pcap_status pcap_close(struct pcap_writer *p);

/* Records written so far (truncated ones count once). */
uint64_t pcap_records(const struct pcap_writer *p);

#endif
