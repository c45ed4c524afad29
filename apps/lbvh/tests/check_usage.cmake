# Bad command lines must exit 2 with a message (run: cmake -DEXE=... -P check_usage.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../../common/check_usage.cmake)
radix_check_usage(radix_lbvh "--bogus" "-m gen:lots" "-m gen:10" "-m teapot" "-e metal" "-b 32" "-r 0" "--size 12"
  "--size 0x5" "--reps" "-f -1")
