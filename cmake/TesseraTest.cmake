# tsr_add_test(NAME SOURCES src... [LABELS l...] [LIBS lib...] [ARGS a...]
#              [WORKING_DIRECTORY dir] [SHARDS n] [COST c])
# Builds one test program and registers it with CTest. Exit code 77 means
# "skipped", with the reason printed by the test.
# SHARDS n: a long test split into n shards that CTest runs side by side,
# NAME-0 ... NAME-<n-1> (the program's `--shard K/n`), and NAME-shards,
# which runs the program as `--shards 0/n 1/n ...` to check that those
# shards take every part of its work exactly once.
# COST c: CTest starts the tests of higher cost first (ctest -j), so that a
# long one does not start last and keep the others waiting; about its
# seconds on one core.
function(tsr_add_test name)
  cmake_parse_arguments(T "" "WORKING_DIRECTORY;SHARDS;COST" "SOURCES;LABELS;LIBS;ARGS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${T_LIBS})
  if(NOT T_WORKING_DIRECTORY)
    set(T_WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  if(NOT T_SHARDS)
    add_test(NAME ${name} COMMAND ${name} ${T_ARGS} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${T_LABELS}")
    if(T_COST)
      set_tests_properties(${name} PROPERTIES COST ${T_COST})
    endif()
    return()
  endif()
  set(all_shards)
  math(EXPR last "${T_SHARDS} - 1")
  foreach(k RANGE ${last})
    add_test(NAME ${name}-${k} COMMAND ${name} ${T_ARGS} --shard ${k}/${T_SHARDS}
             WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
    set_tests_properties(${name}-${k} PROPERTIES SKIP_RETURN_CODE 77 LABELS "${T_LABELS}")
    if(T_COST)
      set_tests_properties(${name}-${k} PROPERTIES COST ${T_COST})
    endif()
    list(APPEND all_shards ${k}/${T_SHARDS})
  endforeach()
  add_test(NAME ${name}-shards COMMAND ${name} ${T_ARGS} --shards ${all_shards}
           WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  set_tests_properties(${name}-shards PROPERTIES SKIP_RETURN_CODE 77 LABELS "${T_LABELS}")
endfunction()
