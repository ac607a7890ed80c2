/* Symbol visibility and version macros shared by every public header. */
#ifndef TESSERA_EXPORT_H
#define TESSERA_EXPORT_H

#if defined(TSR_BUILDING_LIBRARY) && defined(__GNUC__)
#define TSR_API __attribute__((visibility("default")))
#else
#define TSR_API
#endif

#endif /* TESSERA_EXPORT_H */
