# Bad command lines must exit 2 with a message (run: cmake -DEXE=... -P check_usage.cmake).
foreach(args "--bogus" "-m;gen:lots" "-m;gen:10" "-m;teapot" "-e;metal" "-b;32" "-r;0" "--size;12" "--size;0x5"
             "--reps" "-f;-1")
  execute_process(COMMAND ${EXE} ${args} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 2 OR err STREQUAL "")
    message(FATAL_ERROR "radix_lbvh ${args}: exit ${rc} (expected 2), stderr '${err}'")
  endif()
endforeach()
execute_process(COMMAND ${EXE} --help RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0 OR NOT out MATCHES "usage: radix_lbvh")
  message(FATAL_ERROR "radix_lbvh --help: exit ${rc}")
endif()
