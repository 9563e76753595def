/* Decimal text (include/moteip/dec.h). */
#include "moteip/dec.h"

size_t mip_dec_u32(uint32_t v, char *out)
{
    char tmp[10];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0u);
    for (i = 0; i < n; i++)
        out[i] = tmp[n - 1u - i];
    return n;
}
