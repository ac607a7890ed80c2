// <tessera/global.h> compiles as C++11 (-pedantic) and links from C++.
#include <tessera/global.h>
#include <tessera/global.h>

int main()
{
    tsr_placement *p = nullptr;
    if (tsr_placement_create_range(TSR_DEVICE_CPU, 2, &p) != TSR_OK)
        return 1;
    tsr_sbp s = tsr_sbp_split(0);
    char buf[64];
    bool ok = tsr_sbp_repr(s, buf, sizeof(buf)) == 24 && tsr_placement_size(p) == 2;
    tsr_placement_destroy(p);
    return ok ? 0 : 1;
}
