# tsr_add_test(NAME SOURCES src... [LABELS l...] [LIBS lib...] [ARGS a...]
#              [WORKING_DIRECTORY dir])
# Builds one test program and registers it with CTest. Exit code 77 means
# "skipped", with the reason printed by the test.
function(tsr_add_test name)
  cmake_parse_arguments(T "" "WORKING_DIRECTORY" "SOURCES;LABELS;LIBS;ARGS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${T_LIBS})
  if(NOT T_WORKING_DIRECTORY)
    set(T_WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  add_test(NAME ${name} COMMAND ${name} ${T_ARGS} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${T_LABELS}")
endfunction()
