// Linked into every conformance binary: when a run skipped tests and ran none
// (an engine filtered in is unavailable), exit 77 so ctest reports it Skipped.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// The message of the first skipped test ("engine cuda is not available ..."),
/// so that the log says why, not only that.
std::string first_skip_reason(const ::testing::UnitTest& u) {
  for (int s = 0; s < u.total_test_suite_count(); ++s) {
    const auto* suite = u.GetTestSuite(s);
    for (int t = 0; t < suite->total_test_count(); ++t) {
      const auto& r = *suite->GetTestInfo(t)->result();
      if (!r.Skipped()) continue;
      for (int p = 0; p < r.total_part_count(); ++p) {
        std::string m = r.GetTestPartResult(p).message();
        if (m.empty()) continue;
        if (const auto nl = m.find('\n'); nl != std::string::npos) m.resize(nl);
        return m;
      }
    }
  }
  return "no reason given";
}

class skip_exit : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest& u) override {
    if (u.skipped_test_count() > 0 && u.successful_test_count() == 0 && u.failed_test_count() == 0) {
      std::printf("radix: all %d selected tests were SKIPPED (%s); exit code 77 for ctest\n", u.skipped_test_count(),
                  first_skip_reason(u).c_str());
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
