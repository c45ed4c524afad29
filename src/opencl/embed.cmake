# Turns OpenCL C files into a C++ source defining one string constant: the
# files' texts joined in order (one program; later files use what earlier
# ones define).
#   cmake -DIN=<a.cl>|<b.cl>... -DOUT=<file.cpp> -DNAME=<qualified name> -P embed.cmake
# The text goes into a raw string literal; the delimiter must not occur in it.
string(REPLACE "|" ";" inputs "${IN}")
set(text "")
foreach(f IN LISTS inputs)
  file(READ "${f}" part)
  string(APPEND text "${part}")
endforeach()
string(FIND "${text}" ")radix_cl\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN}: the raw-string delimiter )radix_cl\" occurs in the text")
endif()
file(WRITE "${OUT}.tmp"
  "// Generated from ${IN} by src/opencl/embed.cmake: do not edit.\n"
  "namespace radix::opencl::detail {\n"
  "extern const char* const ${NAME};\n"
  "const char* const ${NAME} = R\"radix_cl(${text})radix_cl\";\n"
  "}  // namespace radix::opencl::detail\n")
# Only touch the output when it changed (keeps rebuilds quiet).
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
