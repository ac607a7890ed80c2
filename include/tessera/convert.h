/* Element conversions between dtypes with PyTorch's copy_ semantics,
 * bit-exact (being written). */
#ifndef TESSERA_CONVERT_H
#define TESSERA_CONVERT_H
#include "tessera/dtype.h"
#endif
