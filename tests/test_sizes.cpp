#include "core/sizes.hpp"

#include <gtest/gtest.h>

using gpulab::describe_size;
using gpulab::parse_size;
using gpulab::parse_size_list;

TEST(Sizes, PlainAndPowerForms) {
  EXPECT_EQ(parse_size("0"), 0u);
  EXPECT_EQ(parse_size("16777216"), 16777216u);
  EXPECT_EQ(parse_size("2^24"), std::size_t{1} << 24);
  EXPECT_EQ(parse_size("2^24+1"), (std::size_t{1} << 24) + 1);
  EXPECT_EQ(parse_size("2^20-1"), (std::size_t{1} << 20) - 1);
  EXPECT_EQ(parse_size(" 2^10 + 3 "), 1027u);
  EXPECT_EQ(parse_size("2^0"), 1u);
}

TEST(Sizes, RejectsMalformedAndOverflowing) {
  for (const char* bad : {"", "abc", "-1", "2^", "2^x", "2^64", "2^3-9", "1e6", "12ab", "2^63+2^63",
                          "18446744073709551616"})
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
}

TEST(Sizes, Lists) {
  const auto v = parse_size_list("2^20,1000,2^24+1");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, (std::vector<std::size_t>{1u << 20, 1000, (1u << 24) + 1}));
  EXPECT_FALSE(parse_size_list("2^20,,3").has_value());
  EXPECT_FALSE(parse_size_list("2^20,x").has_value());
}

TEST(Sizes, Describe) {
  EXPECT_EQ(describe_size(0), "0");
  EXPECT_EQ(describe_size(1u << 24), "16777216 (2^24)");
  EXPECT_EQ(describe_size((1u << 20) + 1), "1048577 (2^20+1)");
  EXPECT_EQ(describe_size((1u << 20) - 1), "1048575 (2^20-1)");
  EXPECT_EQ(describe_size(1000000), "1000000");
}

TEST(Sizes, SplitCommas) {
  EXPECT_TRUE(gpulab::split_commas("").empty());
  EXPECT_EQ(gpulab::split_commas("a"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(gpulab::split_commas("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_FALSE(parse_size_list("").has_value());
}

TEST(Sizes, PairsOfSizes) {
  using gpulab::parse_size_pair;
  EXPECT_EQ(parse_size_pair("16383x16385"), (std::pair<std::size_t, std::size_t>{16383, 16385}));
  EXPECT_EQ(parse_size_pair("1x2^26"), (std::pair<std::size_t, std::size_t>{1, std::size_t{1} << 26}));
  for (const char* bad : {"", "5", "x5", "5x", "axb", "5x5x5"}) EXPECT_FALSE(parse_size_pair(bad)) << bad;
}
