# Run by `cmake --install` (install(CODE) in the top CMakeLists.txt): a
# systemd unit from the sources copied into lib/systemd/system under the
# installation prefix, with the program its ExecStart= names (`from`, the
# path a distribution package installs it at) replaced by the program this
# installation put at PREFIX/`to`. It writes straight into the
# installation (DESTDIR honoured), nothing into the build folder, and
# records the file in install_manifest.txt as install(FILES) would.
function(tsr_install_unit source from to)
  get_filename_component(name "${source}" NAME)
  set(dir "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/lib/systemd/system")
  file(READ "${source}" text)
  string(REPLACE "${from}" "${CMAKE_INSTALL_PREFIX}/${to}" text "${text}")
  message(STATUS "Installing: ${dir}/${name}")
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${dir}/${name}" "${text}")
  set(CMAKE_INSTALL_MANIFEST_FILES ${CMAKE_INSTALL_MANIFEST_FILES} "${dir}/${name}" PARENT_SCOPE)
endfunction()
