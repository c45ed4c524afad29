# Mesh files (run: cmake -DEXE=... -DFIXTURES=... -DTMP=... -P check_files.cmake):
#  - a generated mesh saved as binary PLY and as OBJ reads back identically
#    (same mesh hash) and builds and validates;
#  - the fixtures parse (CRLF header, extra properties and elements);
#  - every malformed file fails with exit 3 and one line naming the file and the fault.
file(MAKE_DIRECTORY ${TMP})
function(run_ok)
  execute_process(COMMAND ${EXE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "radix_lbvh ${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
  set(OUT "${out}" PARENT_SCOPE)
endfunction()
function(mesh_hash text var)
  # "--save" prints "mesh hash H"; a run prints H in its mesh table, "| ... | H |".
  string(REGEX MATCH "mesh hash ([0-9a-f]+)" m "${text}")
  if(NOT m)
    string(REGEX MATCH "\\| ([0-9a-f]+) \\|\n" m "${text}")
  endif()
  set(${var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

run_ok(-m gen:3000 --save ${TMP}/gen.ply)
mesh_hash("${OUT}" h_gen)
run_ok(-m gen:3000 --save ${TMP}/gen.obj)
mesh_hash("${OUT}" h_gen2)
foreach(f gen.ply gen.obj)
  run_ok(-e cpu -m ${TMP}/${f} -r 1 --no-render --threads 2)
  mesh_hash("${OUT}" h)
  if(NOT h STREQUAL h_gen OR NOT h_gen STREQUAL h_gen2 OR h STREQUAL "")
    message(FATAL_ERROR "${f}: mesh hash '${h}' after the round trip, '${h_gen}' before")
  endif()
endforeach()
run_ok(-e cpu -m ${FIXTURES}/crlf.ply -r 1 --no-render --rays 300)
if(NOT OUT MATCHES "\\| 1 \\| 3 \\|")
  message(FATAL_ERROR "crlf.ply: expected 1 triangle and 3 vertices\n${OUT}")
endif()
# tiny.ply: 6 quads (12 triangles) + 4 triangles + a pentagon (3) = 19; tiny.obj: 8 + 2 = 10.
run_ok(-e cpu -m ${FIXTURES}/tiny.ply,${FIXTURES}/tiny.obj -r 1 --no-render --rays 300)
if(NOT OUT MATCHES "\\| 19 \\| 13 \\|" OR NOT OUT MATCHES "\\| 10 \\| 10 \\|")
  message(FATAL_ERROR "tiny.ply / tiny.obj: unexpected triangle or vertex counts\n${OUT}")
endif()

# A binary PLY cut short.
file(WRITE ${TMP}/cut.ply "ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\nabc")
set(cases
  "bad_index.ply|vertex index 7 out of range"
  "bad_number.ply|bad number 'zero'"
  "truncated.ply|face 1: unexpected end of file"
  "no_end_header.ply|no end_header"
  "no_xyz.ply|lacks x, y or z"
  "bad_index.obj|line 5: face refers to vertex 4"
  "bad_face.obj|line 4: a face needs at least 3 vertices"
  "bad_vertex.obj|line 2: bad vertex coordinate"
  "empty.obj|no triangles"
  "missing.obj|cannot open")
foreach(c ${cases})
  string(REPLACE "|" ";" c "${c}")
  list(GET c 0 f)
  list(GET c 1 want)
  execute_process(COMMAND ${EXE} -e cpu -m ${FIXTURES}/${f} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  string(REGEX REPLACE "radix_lbvh: loading[^\n]*\n" "" err "${err}")
  string(STRIP "${err}" err)
  if(NOT rc EQUAL 3 OR NOT err MATCHES "${want}" OR err MATCHES "\n" OR NOT err MATCHES "${f}")
    message(FATAL_ERROR "${f}: exit ${rc} (expected 3), stderr '${err}' (expected one line with '${want}')")
  endif()
endforeach()
execute_process(COMMAND ${EXE} -e cpu -m ${TMP}/cut.ply RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 3 OR NOT err MATCHES "vertex 0: unexpected end of file")
  message(FATAL_ERROR "cut.ply: exit ${rc}, stderr '${err}'")
endif()
