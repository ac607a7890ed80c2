/* libtessera's entry: the library is the core semantics (linked whole)
 * plus, in later layers, the client side of the daemon protocol. This
 * file anchors the shared object and its build-time identity. */
#include "tessera/tessera.h"

const char *tsr_build_info(void)
{
    return "tessera " TSR_VERSION_STRING;
}
