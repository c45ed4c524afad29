// Linked into every conformance binary: when a run skipped tests and ran none
// (an engine filtered in is unavailable), exit 77 so ctest reports it Skipped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

namespace {

class skip_exit : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest& u) override {
    if (u.skipped_test_count() > 0 && u.successful_test_count() == 0 && u.failed_test_count() == 0) {
      std::printf("radix: all %d selected tests were SKIPPED (engine unavailable); exit code 77 for ctest\n",
                  u.skipped_test_count());
      std::fflush(stdout);
      std::exit(77);
    }
  }
};

const bool registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new skip_exit);
  return true;
}();

}  // namespace
