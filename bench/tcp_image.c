/*
 * The full TCP's measured image (bench/tcp-image): a table that reaches
 * every public function of include/moteip/tcp.h (mip_tcp_init registers
 * tcp_input, tcp_icmp_error and tcp_poll), so that --gc-sections keeps the
 * TCP an application can call and drops what nothing calls. bench/tcp-image
 * subtracts this file's own size from the image.
 */
#include "moteip/tcp.h"

typedef void (*tcp_image_fn)(void);

extern const tcp_image_fn tcp_image_refs[];
const tcp_image_fn tcp_image_refs[] = {
    (tcp_image_fn)mip_tcp_abort,       (tcp_image_fn)mip_tcp_close,
    (tcp_image_fn)mip_tcp_config_default, (tcp_image_fn)mip_tcp_conn_init,
    (tcp_image_fn)mip_tcp_connect,     (tcp_image_fn)mip_tcp_init,
    (tcp_image_fn)mip_tcp_listen,      (tcp_image_fn)mip_tcp_local_addr,
    (tcp_image_fn)mip_tcp_peer_closed, (tcp_image_fn)mip_tcp_read,
    (tcp_image_fn)mip_tcp_readable,    (tcp_image_fn)mip_tcp_shutdown,
    (tcp_image_fn)mip_tcp_stat,        (tcp_image_fn)mip_tcp_stat_name,
    (tcp_image_fn)mip_tcp_state_name,  (tcp_image_fn)mip_tcp_unlisten,
    (tcp_image_fn)mip_tcp_writable,    (tcp_image_fn)mip_tcp_write,
};

void tcp_image_entry(void);
void tcp_image_entry(void)
{
    for (;;) {
    }
}
