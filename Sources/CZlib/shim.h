#ifndef SESSIONBRIDGE_CZLIB_SHIM_H
#define SESSIONBRIDGE_CZLIB_SHIM_H

/* zlib (Debian's zlib1g-dev): the Compression Streams of the headless engine. Its init
 * functions are macros over versioned ones, which Swift cannot call: these wrap them. */
#include <zlib.h>

static inline int sb_deflate_init2(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}

static inline int sb_inflate_init2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
