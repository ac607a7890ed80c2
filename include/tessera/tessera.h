/* Tessera: a Linux device runtime with PyTorch's tensor semantics.
 *
 * Include this one header; link with -ltessera (pkg-config: tessera). */
#ifndef TESSERA_TESSERA_H
#define TESSERA_TESSERA_H

#include "tessera/export.h"
#include "tessera/version.h"
#include "tessera/status.h"
#include "tessera/dtype.h"
#include "tessera/device.h"
#include "tessera/layout.h"
#include "tessera/geometry.h"
#include "tessera/convert.h"
#include "tessera/client.h"
#include "tessera/tensor.h"
#include "tessera/ops.h"
#include "tessera/share.h"
#include "tessera/kernel.h"

#endif /* TESSERA_TESSERA_H */
