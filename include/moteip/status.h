/*
 * moteip status codes: every fallible function returns one of these.
 *
 * Errors are values. No function in the stack aborts, asserts on input, or
 * longjmps; a caller learns what went wrong from the returned code, and the
 * stack counts dropped packets per reason (see stats.h).
 */
#ifndef MOTEIP_STATUS_H
#define MOTEIP_STATUS_H

typedef enum mip_status {
    MIP_OK = 0,
    MIP_ERR_TRUNCATED,   /* fewer bytes present than a header or length field needs */
    MIP_ERR_MALFORMED,   /* a field holds a value the format forbids */
    MIP_ERR_CHECKSUM,    /* checksum verification failed */
    MIP_ERR_UNSUPPORTED, /* well-formed, but a feature this build does not handle */
    MIP_ERR_NOSPACE,     /* an output buffer given by the caller is too small */
    MIP_ERR_NOBUFS,      /* a fixed pool (packet buffers, table slots) is exhausted */
    MIP_ERR_NOROUTE,     /* no route or no usable source address for a destination */
    MIP_ERR_INVALID,     /* a caller passed an argument outside its contract */
    MIP_ERR_INUSE,       /* a port, address or slot is already taken */
    MIP_ERR_NOTFOUND,    /* a lookup found nothing */
    MIP_ERR_PENDING,     /* accepted and queued, waiting for address resolution */
    MIP_ERR_CONFIG,      /* the caller was compiled with other MIP_CONF_* / sizes than
                          * the library (mip_stack_init; mip_build_mismatch says which) */
    MIP_ERR_END          /* an iterator has no more items (not a failure) */
} mip_status;

/* Short constant name of a status, e.g. "TRUNCATED"; never NULL. */
const char *mip_status_name(mip_status st);

#endif
