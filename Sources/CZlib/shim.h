#ifndef BRADOS_CZLIB_SHIM_H
#define BRADOS_CZLIB_SHIM_H
#include <zlib.h>
#endif
