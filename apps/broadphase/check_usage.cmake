# Bad command lines must exit 2 with a message (run: cmake -DEXE=... -P check_usage.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../common/check_usage.cmake)
radix_check_usage(radix_broadphase "--bogus" "-n lots" "-n 1" "-n 4M..16K" "-s teapots" "-e metal" "-f 0" "--frames"
  "--verify maybe" "--view front" "--density 0")
