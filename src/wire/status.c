/*
 * Status code names, for logs and test output.
 */
#include "moteip/status.h"

/* Indexed by mip_status; must follow the enum's order. Fixed-width rows
 * rather than an array of pointers: pointers need load-time relocations in
 * position-independent builds, which puts the table in a writable (RELRO)
 * section; rows stay in .rodata on every target. */
#define STATUS_NAME_SIZE 12 /* "UNSUPPORTED" + NUL */

static const char status_names[][STATUS_NAME_SIZE] = {
    "OK",        "TRUNCATED", "MALFORMED", "CHECKSUM", "UNSUPPORTED",
    "NOSPACE",   "NOBUFS",    "NOROUTE",   "INVALID",  "INUSE",
    "NOTFOUND",  "PENDING",   "CONFIG",   "END",
};

_Static_assert(sizeof status_names / sizeof status_names[0] == (unsigned)MIP_ERR_END + 1u,
               "status_names must have one entry per mip_status");

const char *mip_status_name(mip_status st)
{
    /* unsigned: a negative value forged into the enum is out of range too */
    if ((unsigned)st >= sizeof status_names / sizeof status_names[0])
        return "UNKNOWN";
    return status_names[st];
}
