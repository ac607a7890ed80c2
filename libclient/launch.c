/* Kernel submission to the daemon (LAUNCH, SYNCHRONIZE). */
#include "core/error.h"
#include "libclient/client.h"

tsr_status tsr__client_launch(tsr_client *client, tsr_device device, const tsr__kernel *kernel)
{
    (void)client;
    (void)device;
    (void)kernel;
    return tsr__fail_text(TSR_ERR_NOT_SUPPORTED, "kernels on accelerators are not available yet");
}

tsr_status tsr__client_synchronize(tsr_client *client, tsr_device device)
{
    (void)client;
    (void)device;
    return TSR_OK;
}
