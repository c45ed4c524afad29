# Bad command lines must exit 2 with a message (run: cmake -DEXE=... -P check_usage.cmake).
foreach(args "--bogus" "-n;lots" "-n;1" "-n;4M..16K" "-s;teapots" "-e;metal" "-f;0" "--frames" "--verify;maybe"
        "--view;front" "--density;0")
  execute_process(COMMAND ${EXE} ${args} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 2 OR err STREQUAL "")
    message(FATAL_ERROR "radix_broadphase ${args}: exit ${rc} (expected 2), stderr '${err}'")
  endif()
endforeach()
execute_process(COMMAND ${EXE} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: radix_broadphase")
  message(FATAL_ERROR "radix_broadphase --help: exit ${rc}")
endif()
