# Runs EXE with ARGS ('|'-separated) and fails unless it exits with EXPECT and
# prints exactly one line on stderr.
string(REPLACE "|" ";" _args "${ARGS}")
execute_process(COMMAND ${EXE} ${_args} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
string(STRIP "${_err}" _err_stripped)
string(FIND "${_err_stripped}" "\n" _nl)
message(STATUS "exit ${_rc}; stderr: ${_err_stripped}")
if(NOT _rc STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected exit status ${EXPECT}, got ${_rc}")
endif()
if(_err_stripped STREQUAL "" OR NOT _nl EQUAL -1)
  message(FATAL_ERROR "expected exactly one line on stderr")
endif()
