#ifndef BEEKON_CZLIB_SHIM_H
#define BEEKON_CZLIB_SHIM_H
// deflateInit2 and inflateInit2 are macros that pass the library version and struct size.
#include <zlib.h>

static inline int beekon_deflateInit2(z_streamp stream, int level, int method, int windowBits,
                                      int memLevel, int strategy) {
    return deflateInit2(stream, level, method, windowBits, memLevel, strategy);
}

static inline int beekon_inflateInit2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

#endif
