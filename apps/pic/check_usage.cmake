# Bad command lines must exit 2 with a message (run: cmake -DEXE=... -P check_usage.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../common/check_usage.cmake)
radix_check_usage(radix_pic "--bogus" "-n lots" "-g 1" "-g 5000" "-g 32y4" "-e metal" "-s 0" "--steps")
