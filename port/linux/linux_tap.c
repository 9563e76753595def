/*
 * Linux TAP driver for the host port. See linux_tap.h.
 */
#include "linux_tap.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

const struct mip_netif_driver mip_tap_driver = { mip_tap_transmit };

/* Brings the interface up if it is down (needs CAP_NET_ADMIN, which
 * TUNSETIFF needed too). */
static int tap_bring_up(const char *name)
{
    struct ifreq ifr;
    int sk, rc = 0;

    sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sk < 0)
        sk = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sk < 0)
        return -errno;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    if (ioctl(sk, SIOCGIFFLAGS, &ifr) < 0) {
        rc = -errno;
    } else if (!(ifr.ifr_flags & IFF_UP)) {
        ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_UP);
        if (ioctl(sk, SIOCSIFFLAGS, &ifr) < 0)
            rc = -errno;
    }
    close(sk);
    return rc;
}

/* Attaches to (or creates) the TUN or TAP device `name`: flags IFF_TUN or
 * IFF_TAP. */
static int tuntap_open(struct mip_tap *t, const char *name, short kind, char *err, size_t cap)
{
    struct ifreq ifr;
    int fd, rc;

    memset(t, 0, sizeof(*t));
    t->fd = -1;
    if (name == NULL || name[0] == '\0' || strlen(name) >= IFNAMSIZ) {
        snprintf(err, cap, "interface name must be 1..%d characters", IFNAMSIZ - 1);
        return -EINVAL;
    }
    fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        snprintf(err, cap, "cannot open /dev/net/tun: %s", strerror(errno));
        return rc;
    }
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = (short)(kind | IFF_NO_PI);
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        rc = -errno;
        if (errno == EBUSY)
            snprintf(err, cap, "cannot attach to '%s': busy (a %s device of that name, or "
                     "already attached by another process)", name, kind == IFF_TAP ? "TUN" : "TAP");
        else if (errno == EINVAL)
            snprintf(err, cap, "cannot attach to '%s': not a %s device (%s)", name,
                     kind == IFF_TAP ? "TAP" : "TUN", strerror(errno));
        else
            snprintf(err, cap, "cannot attach to '%s': %s", name, strerror(errno));
        close(fd);
        return rc;
    }
    snprintf(t->name, sizeof(t->name), "%s", ifr.ifr_name);
    t->fd = fd;
    rc = tap_bring_up(t->name);
    if (rc < 0) {
        snprintf(err, cap, "cannot bring '%s' up: %s", t->name, strerror(-rc));
        mip_tap_close(t);
        return rc;
    }
    return 0;
}

int mip_tap_open(struct mip_tap *t, const char *name, char *err, size_t cap)
{
    return tuntap_open(t, name, IFF_TAP, err, cap);
}

int mip_tun_open(struct mip_tap *t, const char *name, char *err, size_t cap)
{
    return tuntap_open(t, name, IFF_TUN, err, cap);
}

ssize_t mip_tap_read(struct mip_tap *t, uint8_t *buf, size_t cap)
{
    for (;;) {
        ssize_t n = read(t->fd, buf, cap);

        if (n > 0)
            return n;
        if (n == 0)
            return -EIO;       /* a TAP never reads 0 bytes unless gone */
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -errno;
    }
}

mip_status mip_tap_transmit(void *ctx, const uint8_t *frame, size_t len)
{
    struct mip_tap *t = ctx;
    ssize_t n;

    if (t == NULL || t->fd < 0)
        return MIP_ERR_INVALID;
    do {
        n = write(t->fd, frame, len);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        t->tx_errors++;
        /* The kernel's queue is full: the frame is lost, like on a wire. */
        return (errno == EAGAIN || errno == ENOBUFS) ? MIP_ERR_NOBUFS : MIP_ERR_INVALID;
    }
    if ((size_t)n != len) {
        t->tx_short++;
        return MIP_ERR_NOSPACE;
    }
    return MIP_OK;
}

void mip_tap_close(struct mip_tap *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int mip_mac_parse(const char *text, uint8_t mac[6])
{
    size_t i;
    char sep = 0;

    if (text == NULL || strlen(text) != 17)
        return -1;
    for (i = 0; i < 6; i++) {
        const char *p = text + i * 3;
        int hi = hexval(p[0]), lo = hexval(p[1]);

        if (hi < 0 || lo < 0)
            return -1;
        if (i < 5) {
            if (p[2] != ':' && p[2] != '-')
                return -1;
            if (sep == 0)
                sep = p[2];
            else if (p[2] != sep)
                return -1;
        }
        mac[i] = (uint8_t)(hi * 16 + lo);
    }
    return 0;
}

void mip_mac_format(const uint8_t mac[6], char buf[18])
{
    snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
             mac[4], mac[5]);
}

int mip_mac_random(uint8_t mac[6])
{
    uint8_t r[3];
    ssize_t n;

    do {
        n = getrandom(r, sizeof(r), 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    if (n != (ssize_t)sizeof(r))
        return -EIO;
    mac[0] = 0x02;
    mac[1] = 0x00;
    mac[2] = 0x00;
    mac[3] = r[0];
    mac[4] = r[1];
    mac[5] = r[2];
    return 0;
}
