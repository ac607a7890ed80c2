/* The backends built into the daemon (daemon/backend.h), from
 * daemon/backends.def. */
#include "daemon/backend.h"

#define X(name, type) extern const tsr__backend tsr__##name##_backend;
#include "daemon/backends.def"
#undef X

const tsr__backend *const tsr__backends[] = {
#define X(name, type) &tsr__##name##_backend,
#include "daemon/backends.def"
#undef X
    NULL,
};

const tsr__backend *tsr__backend_of_type(tsr_device_type type)
{
    for (size_t k = 0; tsr__backends[k]; k++)
        if (tsr__backends[k]->device_type == type)
            return tsr__backends[k];
    return NULL;
}
