/*
 * Linux TAP device for the host port: an Ethernet netif driver whose frames
 * go to and come from /dev/net/tun (IFF_TAP | IFF_NO_PI). The simulator's
 * border router (sim/border.c) uses it too, and its TUN form.
 *
 * The stack is a separate Ethernet station behind the TAP: it has its own
 * MAC address (not the kernel's address of the TAP interface), normally a
 * locally administered unicast one (02:00:00:xx:xx:xx).
 */
#ifndef MOTEIP_PORT_LINUX_TAP_H
#define MOTEIP_PORT_LINUX_TAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <net/if.h>

#include "moteip/netif.h"

struct mip_tap {
    int      fd;                   /* -1 when closed */
    char     name[IFNAMSIZ];       /* the kernel's name of the device */
    uint32_t tx_errors;            /* writes that failed */
    uint32_t tx_short;             /* writes that sent fewer bytes */
};

/* The driver table for mip_netif_add_ethernet(); ctx is a struct mip_tap *. */
extern const struct mip_netif_driver mip_tap_driver;

/*
 * Attaches to the TAP device `name`, creating it (non-persistent) when it
 * does not exist, and sets the descriptor non-blocking. When the interface
 * is down it is brought up. Returns 0, or -errno with a short explanation
 * written to err (cap bytes) naming what failed.
 */
int mip_tap_open(struct mip_tap *t, const char *name, char *err, size_t cap);

/* The same for a TUN device (IFF_TUN | IFF_NO_PI): frames are bare IP
 * datagrams, for mip_netif_add_rawip(); the other functions work on it
 * unchanged. */
int mip_tun_open(struct mip_tap *t, const char *name, char *err, size_t cap);

/* Reads one frame. Returns its length (> 0), 0 when none is waiting, or
 * -errno (e.g. -EBADFD / -EIO when the device went away). Frames longer
 * than cap are cut to cap bytes. */
ssize_t mip_tap_read(struct mip_tap *t, uint8_t *buf, size_t cap);

/* Sends one frame (the driver's transmit function). */
mip_status mip_tap_transmit(void *ctx, const uint8_t *frame, size_t len);

void mip_tap_close(struct mip_tap *t);

/* Parses "02:00:00:12:34:56" (also with '-' separators). Returns 0, or -1
 * for anything else. */
int mip_mac_parse(const char *text, uint8_t mac[6]);

/* Writes "02:00:00:12:34:56" (18 bytes with the NUL). */
void mip_mac_format(const uint8_t mac[6], char buf[18]);

/* A random locally administered unicast MAC, 02:00:00:xx:xx:xx, from
 * getrandom(). Returns 0 or -errno. */
int mip_mac_random(uint8_t mac[6]);

#endif
