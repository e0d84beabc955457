#ifndef KURA_CZLIB_SHIM_H
#define KURA_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 is a macro (it passes the library version and the stream size); Swift cannot call macros.
static inline int kura_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
