/*
 * The simulator's pcap writer (sim/pcap.h): exact bytes of the global and
 * record headers, snaplen truncation, error values, and (when tshark is
 * installed) that Wireshark decodes what we write.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, popen */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "moteip/wire/ieee802154.h"
#include "pcap.h"
#include "testing.h"

/* An uncompressed IPv6 header (next header 59: nothing follows),
 * fe80::1 -> ff02::1, hop limit 64. */
static const uint8_t ipv6_packet[40] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x00, 59, 64,
    0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
    0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
};

/* A data frame, PAN 0xcdab, 0x0001 -> broadcast, seq 5, carrying the
 * packet above behind the 6LoWPAN uncompressed-IPv6 dispatch, with FCS. */
static size_t build_mpdu(uint8_t *out)
{
    static const uint8_t mhr[9] = { 0x41, 0x88, 0x05, 0xab, 0xcd, 0xff, 0xff, 0x01, 0x00 };
    size_t n = 0;
    uint16_t fcs;

    memcpy(out, mhr, sizeof mhr);
    n += sizeof mhr;
    out[n++] = 0x41;
    memcpy(out + n, ipv6_packet, sizeof ipv6_packet);
    n += sizeof ipv6_packet;
    fcs = mip_ieee802154_fcs(out, n);
    out[n++] = (uint8_t)fcs;
    out[n++] = (uint8_t)(fcs >> 8);
    return n;
}

static int temp_path(char *path, size_t size)
{
    int fd;

    snprintf(path, size, "/tmp/moteip-test-pcap-XXXXXX");
    fd = mkstemp(path);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* The whole file (malloc'd) and its length. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    size_t cap = 1u << 20;

    *len = 0;
    if (f == NULL)
        return NULL;
    buf = malloc(cap);
    if (buf != NULL)
        *len = fread(buf, 1, cap, f);
    fclose(f);
    return buf;
}

static uint32_t le32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static int check_record(const uint8_t *r, uint32_t sec, uint32_t usec, uint32_t incl,
                        uint32_t orig)
{
    if (le32(r) == sec && le32(r + 4) == usec && le32(r + 8) == incl && le32(r + 12) == orig)
        return 1;
    fprintf(stderr, "  record %u.%06u %u/%u, want %u.%06u %u/%u\n", le32(r), le32(r + 4),
            le32(r + 8), le32(r + 12), sec, usec, incl, orig);
    return 0;
}

/* Runs tshark on path with the given -T fields list; 0 when tshark is not
 * installed, else 1 with its first output line in out. */
static int tshark_fields(const char *path, const char *fields, char *out, size_t size)
{
    char cmd[512];
    FILE *p;

    if (system("command -v tshark >/dev/null 2>&1") != 0)
        return 0;
    snprintf(cmd, sizeof cmd, "tshark -r '%s' -T fields %s 2>/dev/null", path, fields);
    p = popen(cmd, "r");
    if (p == NULL)
        return 0;
    out[0] = '\0';
    if (fgets(out, (int)size, p) == NULL)
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    while (fgetc(p) != EOF)
        ;
    pclose(p);
    return 1;
}

static void test_802154_file_bytes(void)
{
    static const uint8_t global[24] = {
        0xd4, 0xc3, 0xb2, 0xa1, 0x02, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0,
        0xff, 0xff, 0x00, 0x00, 195, 0x00, 0x00, 0x00,
    };
    struct pcap_writer *p = NULL;
    struct pcap_status st;
    uint8_t mpdu[127];
    size_t n = build_mpdu(mpdu), len;
    char path[64];
    uint8_t *file;
    const uint8_t *r;

    CHECK(temp_path(path, sizeof path));
    st = pcap_open(&p, path, PCAP_LINKTYPE_IEEE802_15_4_WITHFCS);
    CHECK_EQ(st.code, 0);
    CHECK(p != NULL && st.text[0] == '\0');
    if (p == NULL)
        return;
    CHECK_EQ(pcap_write(p, 0, mpdu, n).code, 0);
    CHECK_EQ(pcap_write(p, 1500000, mpdu, n).code, 0);
    /* The largest time the format holds: 2^32 - 1 s and 999999 us. */
    CHECK_EQ(pcap_write(p, UINT64_C(4294967295999999), mpdu, 3).code, 0);
    CHECK_EQ(pcap_write(p, 42, NULL, 0).code, 0);
    /* One microsecond later needs a 33rd bit of seconds: refused, and
     * the file is left as it was. */
    st = pcap_write(p, UINT64_C(4294967296000000), mpdu, n);
    CHECK_EQ(st.code, EOVERFLOW);
    CHECK(strstr(st.text, "timestamp past 2^32 seconds") != NULL);
    CHECK_EQ(pcap_records(p), 4);
    st = pcap_close(p);
    CHECK_EQ(st.code, 0);

    file = slurp(path, &len);
    CHECK(file != NULL);
    if (file == NULL)
        return;
    CHECK_EQ(len, 24 + 4 * 16 + 2 * n + 3);
    CHECK_MEM(file, global, sizeof global);
    r = file + 24;
    CHECK(check_record(r, 0, 0, (uint32_t)n, (uint32_t)n));
    CHECK_MEM(r + 16, mpdu, n);
    r += 16 + n;
    CHECK(check_record(r, 1, 500000, (uint32_t)n, (uint32_t)n));
    CHECK_MEM(r + 16, mpdu, n);
    r += 16 + n;
    CHECK(check_record(r, 4294967295u, 999999, 3, 3));
    CHECK_MEM(r + 16, mpdu, 3);
    r += 16 + 3;
    CHECK(check_record(r, 0, 42, 0, 0));
    free(file);
    remove(path);
}

static void test_raw_file_and_snaplen(void)
{
    struct pcap_writer *p = NULL;
    enum { BIG = 70000 };
    uint8_t *big = malloc(BIG);
    size_t len, i;
    char path[64];
    uint8_t *file;

    CHECK(big != NULL && temp_path(path, sizeof path));
    if (big == NULL)
        return;
    for (i = 0; i < BIG; i++)
        big[i] = (uint8_t)(i * 7u);
    CHECK_EQ(pcap_open(&p, path, PCAP_LINKTYPE_RAW).code, 0);
    if (p == NULL) {
        free(big);
        return;
    }
    CHECK_EQ(pcap_write(p, 2000001, ipv6_packet, sizeof ipv6_packet).code, 0);
    /* Longer than the snaplen: cut to 65535 bytes, original length kept. */
    CHECK_EQ(pcap_write(p, 3000000, big, BIG).code, 0);
    CHECK_EQ(pcap_flush(p).code, 0);
    CHECK_EQ(pcap_close(p).code, 0);

    file = slurp(path, &len);
    CHECK(file != NULL && len == 24 + 16 + 40 + 16 + 65535);
    if (file != NULL && len == 24 + 16 + 40 + 16 + 65535) {
        CHECK_EQ(le32(file + 16), 65535);
        CHECK_EQ(le32(file + 20), 101);
        CHECK(check_record(file + 24, 2, 1, 40, 40));
        CHECK_MEM(file + 40, ipv6_packet, 40);
        CHECK(check_record(file + 80, 3, 0, 65535, BIG));
        CHECK_MEM(file + 96, big, 65535);
    }
    free(file);
    free(big);
    remove(path);
}

static void test_errors(void)
{
    struct pcap_writer *p = (struct pcap_writer *)&p;
    struct pcap_status st;
    char path[64];
    uint8_t byte = 0;

    st = pcap_open(&p, "/tmp/moteip-test-pcap-unused.pcap", 1);
    CHECK_EQ(st.code, EINVAL);
    CHECK(p == NULL);
    CHECK(strcmp(st.text, "/tmp/moteip-test-pcap-unused.pcap: unsupported link type: "
                          "Invalid argument") == 0);

    st = pcap_open(&p, "/nonexistent-dir/x.pcap", PCAP_LINKTYPE_RAW);
    CHECK_EQ(st.code, ENOENT);
    CHECK(p == NULL);
    CHECK(strcmp(st.text, "/nonexistent-dir/x.pcap: cannot open: No such file or directory") ==
          0);

    st = pcap_open(&p, NULL, PCAP_LINKTYPE_RAW);
    CHECK_EQ(st.code, EINVAL);
    CHECK_EQ(pcap_close(NULL).code, 0);
    CHECK_EQ(pcap_write(NULL, 0, &byte, 1).code, EINVAL);

    CHECK(temp_path(path, sizeof path));
    CHECK_EQ(pcap_open(&p, path, PCAP_LINKTYPE_RAW).code, 0);
    if (p != NULL) {
        CHECK_EQ(pcap_write(p, 0, NULL, 1).code, EINVAL);
        CHECK_EQ(pcap_records(p), 0);
        CHECK_EQ(pcap_close(p).code, 0);
    }
    remove(path);
}

/* A full disk is reported by write, flush or close, with errno's text, and
 * sticks. */
static void test_disk_full(void)
{
    struct pcap_writer *p = NULL;
    struct pcap_status st;
    uint8_t frame[127] = { 0 };
    int k, failed_at = -1;

    st = pcap_open(&p, "/dev/full", PCAP_LINKTYPE_IEEE802_15_4_WITHFCS);
    if (st.code != 0) {
        printf("     (/dev/full not writable: %s; skipped)\n", st.text);
        return;
    }
    for (k = 0; k < 1000 && failed_at < 0; k++) {
        st = pcap_write(p, (uint64_t)k, frame, sizeof frame);
        if (st.code != 0)
            failed_at = k;
    }
    if (failed_at < 0)
        st = pcap_flush(p);
    CHECK_EQ(st.code, ENOSPC);
    CHECK(strcmp(st.text, "/dev/full: write failed: No space left on device") == 0);
    CHECK_EQ(pcap_write(p, 0, frame, 1).code, ENOSPC);
    CHECK_EQ(pcap_close(p).code, ENOSPC);
}

static void test_tshark_decodes(void)
{
    struct pcap_writer *p = NULL;
    uint8_t mpdu[127];
    size_t n = build_mpdu(mpdu);
    char path[64], line[256];

    CHECK(temp_path(path, sizeof path));
    CHECK_EQ(pcap_open(&p, path, PCAP_LINKTYPE_IEEE802_15_4_WITHFCS).code, 0);
    if (p == NULL)
        return;
    CHECK_EQ(pcap_write(p, 1500000, mpdu, n).code, 0);
    CHECK_EQ(pcap_close(p).code, 0);
    if (!tshark_fields(path,
                       "-e frame.time_epoch -e wpan.seq_no -e wpan.src16 -e wpan.fcs_ok "
                       "-e frame.protocols -e ipv6.dst",
                       line, sizeof line)) {
        printf("     (tshark not installed; decode check skipped)\n");
        remove(path);
        return;
    }
    if (strcmp(line, "1.500000000\t5\t0x0001\t1\twpan:6lowpan:ipv6\tff02::1") != 0)
        fprintf(stderr, "  tshark (802.15.4): %s\n", line);
    CHECK(strcmp(line, "1.500000000\t5\t0x0001\t1\twpan:6lowpan:ipv6\tff02::1") == 0);
    remove(path);

    CHECK(temp_path(path, sizeof path));
    CHECK_EQ(pcap_open(&p, path, PCAP_LINKTYPE_RAW).code, 0);
    if (p == NULL)
        return;
    CHECK_EQ(pcap_write(p, 7, ipv6_packet, sizeof ipv6_packet).code, 0);
    CHECK_EQ(pcap_close(p).code, 0);
    CHECK(tshark_fields(path, "-e frame.time_epoch -e frame.protocols -e ipv6.src", line,
                        sizeof line));
    if (strcmp(line, "0.000007000\traw:ipv6\tfe80::1") != 0)
        fprintf(stderr, "  tshark (raw): %s\n", line);
    CHECK(strcmp(line, "0.000007000\traw:ipv6\tfe80::1") == 0);
    remove(path);
}

int main(void)
{
    RUN(test_802154_file_bytes);
    RUN(test_raw_file_and_snaplen);
    RUN(test_errors);
    RUN(test_disk_full);
    RUN(test_tshark_decodes);
    return TESTING_DONE();
}
