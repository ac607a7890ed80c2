# find_package(Tessera) support: defines the imported target Tessera::tessera.
include("${CMAKE_CURRENT_LIST_DIR}/TesseraTargets.cmake")
