# radix_check_usage(<program> <bad command line>...): each bad command line (its words separated by
# spaces) must make ${EXE} exit 2 with a message on stderr, and --help must exit 0 with the usage text.
# Included by each app's check_usage.cmake (run: cmake -DEXE=... -P check_usage.cmake).
function(radix_check_usage program)
  foreach(line ${ARGN})
    separate_arguments(args UNIX_COMMAND "${line}")
    execute_process(COMMAND ${EXE} ${args} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
    if(NOT rc EQUAL 2 OR err STREQUAL "")
      message(FATAL_ERROR "${program} ${args}: exit ${rc} (expected 2), stderr '${err}'")
    endif()
  endforeach()
  execute_process(COMMAND ${EXE} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: ${program}")
    message(FATAL_ERROR "${program} --help: exit ${rc}")
  endif()
endfunction()
