/* Symbol visibility and version macros shared by every public header. */
#ifndef TESSERA_EXPORT_H
#define TESSERA_EXPORT_H

#if defined(TSR_BUILDING_LIBRARY) && defined(__GNUC__)
#define TSR_API __attribute__((visibility("default")))
#else
#define TSR_API
#endif

/* The ABI: what a compiled program may rely on across releases.
 *
 * Every struct the library fills (tsr_device_properties, the statistics
 * and administration records) or reads (tsr_client_options,
 * tsr_cast_options, tsr_tensor_options) ends with reserved space,
 * `uint64_t abi_reserved[N]`. A later release adds members by taking
 * words from it, so neither the struct's size nor any member's offset
 * ever changes, and a program compiled against an older header works
 * with a newer library (libtessera checks each struct's size at build
 * time, libclient/abi.c).
 *
 * - Structs passed in are zero-initialised by the caller (`= {0}`, or
 *   designated initialisers, which zero the rest). Zero is the default of
 *   every member a release adds. tsr_client_open and tsr_cast_buffer_ex
 *   refuse reserved words that are not zero (TSR_ERR_INVALID_ARGUMENT),
 *   so an older library never silently ignores a newer program's option.
 * - Structs the library fills come back with their reserved words zero;
 *   callers need not initialise them.
 * - Small values passed by value (tsr_device, tsr_scalar, tsr_operand,
 *   tsr_geometry) and the array elements tsr_session_usage and
 *   tsr_process_usage never change.
 *
 * Functions: each release's new symbols get a version node of their own
 * in libclient/libtessera.sym (TESSERA_0.1, TESSERA_0.2, ...); an exported
 * function is never removed or changed within a major version. */

#endif /* TESSERA_EXPORT_H */
