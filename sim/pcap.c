/* Classic pcap writer; the contract is in pcap.h. */
#include "pcap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pcap_writer {
    FILE *f;
    char *path;                     /* for messages */
    uint64_t records;
    struct pcap_status sticky;      /* first failure; later calls repeat it */
};

static struct pcap_status ok_status(void)
{
    struct pcap_status st;

    st.code = 0;
    st.text[0] = '\0';
    return st;
}

static struct pcap_status make_status(int code, const char *path, const char *what)
{
    struct pcap_status st;

    st.code = code;
    snprintf(st.text, sizeof st.text, "%s: %s: %s", path ? path : "(null)", what,
             strerror(code));
    return st;
}

/* errno after a failed stdio call; some implementations leave it 0. */
static int io_errno(int saved)
{
    return saved != 0 ? saved : EIO;
}

static void put_le16(uint8_t *b, uint16_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static struct pcap_status write_all(struct pcap_writer *p, const void *buf, size_t n)
{
    int e;

    errno = 0;
    if (n == 0 || fwrite(buf, 1, n, p->f) == n)
        return ok_status();
    e = io_errno(errno);
    p->sticky = make_status(e, p->path, "write failed");
    return p->sticky;
}

struct pcap_status pcap_open(struct pcap_writer **out, const char *path, uint32_t linktype)
{
    struct pcap_writer *p;
    struct pcap_status st;
    uint8_t hdr[PCAP_GLOBAL_HDR_LEN];
    size_t plen;

    if (out == NULL)
        return make_status(EINVAL, path, "pcap_open");
    *out = NULL;
    if (path == NULL)
        return make_status(EINVAL, path, "no file name");
    if (linktype != PCAP_LINKTYPE_RAW && linktype != PCAP_LINKTYPE_IEEE802_15_4_WITHFCS)
        return make_status(EINVAL, path, "unsupported link type");

    p = malloc(sizeof *p);
    plen = strlen(path);
    if (p == NULL || (p->path = malloc(plen + 1u)) == NULL) {
        free(p);
        return make_status(ENOMEM, path, "cannot open");
    }
    memcpy(p->path, path, plen + 1u);
    p->records = 0;
    p->sticky = ok_status();
    errno = 0;
    p->f = fopen(path, "wb");
    if (p->f == NULL) {
        st = make_status(io_errno(errno), path, "cannot open");
        free(p->path);
        free(p);
        return st;
    }

    put_le32(hdr + 0, 0xA1B2C3D4u);     /* microsecond resolution */
    put_le16(hdr + 4, 2);
    put_le16(hdr + 6, 4);
    put_le32(hdr + 8, 0);               /* thiszone: timestamps are UTC */
    put_le32(hdr + 12, 0);              /* sigfigs */
    put_le32(hdr + 16, PCAP_SNAPLEN);
    put_le32(hdr + 20, linktype);
    st = write_all(p, hdr, sizeof hdr);
    if (st.code != 0) {
        fclose(p->f);
        free(p->path);
        free(p);
        return st;
    }
    *out = p;
    return ok_status();
}

struct pcap_status pcap_write(struct pcap_writer *p, uint64_t time_us, const uint8_t *bytes,
                              size_t len)
{
    uint8_t rec[PCAP_RECORD_HDR_LEN];
    uint64_t sec = time_us / 1000000u;
    size_t incl = len < PCAP_SNAPLEN ? len : PCAP_SNAPLEN;
    struct pcap_status st;

    if (p == NULL)
        return make_status(EINVAL, NULL, "pcap_write");
    if (p->sticky.code != 0)
        return p->sticky;
    if (bytes == NULL && len != 0)
        return make_status(EINVAL, p->path, "pcap_write without data");
    if (sec > UINT32_MAX)
        return make_status(EOVERFLOW, p->path, "timestamp past 2^32 seconds");
    if (len > UINT32_MAX)
        return make_status(EOVERFLOW, p->path, "record longer than 2^32 bytes");

    put_le32(rec + 0, (uint32_t)sec);
    put_le32(rec + 4, (uint32_t)(time_us % 1000000u));
    put_le32(rec + 8, (uint32_t)incl);
    put_le32(rec + 12, (uint32_t)len);
    st = write_all(p, rec, sizeof rec);
    if (st.code == 0)
        st = write_all(p, bytes, incl);
    if (st.code == 0)
        p->records++;
    return st;
}

struct pcap_status pcap_flush(struct pcap_writer *p)
{
    if (p == NULL)
        return make_status(EINVAL, NULL, "pcap_flush");
    if (p->sticky.code != 0)
        return p->sticky;
    errno = 0;
    if (fflush(p->f) != 0)
        p->sticky = make_status(io_errno(errno), p->path, "write failed");
    return p->sticky;
}

struct pcap_status pcap_close(struct pcap_writer *p)
{
    struct pcap_status st;

    if (p == NULL)
        return ok_status();
    st = pcap_flush(p);
    errno = 0;
    if (fclose(p->f) != 0 && st.code == 0)
        st = make_status(io_errno(errno), p->path, "close failed");
    free(p->path);
    free(p);
    return st;
}

uint64_t pcap_records(const struct pcap_writer *p)
{
    return p != NULL ? p->records : 0;
}
