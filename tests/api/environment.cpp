// Every environment variable the library reads is in core::env's table, and
// every one of those is documented in README.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "radix/core/environment.hpp"

TEST(Environment, EveryVariableIsDocumentedInTheReadme) {
  std::ifstream f(RADIX_SOURCE_DIR "/README.md");
  ASSERT_TRUE(f) << "cannot read " RADIX_SOURCE_DIR "/README.md";
  std::stringstream text;
  text << f.rdbuf();
  for (const auto& v : radix::core::env::variables)
    EXPECT_NE(text.str().find(std::string("`") + v.name + "`"), std::string::npos)
        << v.name << " (" << v.effect << ") is not documented in README.md";
}

TEST(Environment, UnknownNamesAreRefused) {
  EXPECT_THROW(radix::core::env::get("RADIX_NOT_A_VARIABLE"), radix::invalid_argument);
  EXPECT_NO_THROW(radix::core::env::get("RADIX_TRACE"));
}

TEST(Environment, PolicySettingsParse) {
  std::string seen;
  radix::core::env::for_each_setting("a=1,junk,b=0x10,,c=7", [&](std::string_view k, unsigned long long v) {
    seen += std::string(k) + ":" + std::to_string(v) + ";";
  });
  EXPECT_EQ(seen, "a:1;b:16;c:7;");
}
