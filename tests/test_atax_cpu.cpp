// Seed 004's files (its 4×4 hex example, round trips, every malformed case), the serial reference
// against hand-computed cases, the error bound, and `gpulab atax gen/check`.
#include "atax/atax_cpu.hpp"
#include "atax/atax_file.hpp"
#include "cli/cli.hpp"

#include <gpulab/error.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace gpulab;

namespace {

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("gpulab_atax_" + name);
}

std::filesystem::path write_bytes(const std::string& name, const std::string& bytes) {
  const auto p = temp_path(name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

std::string from_hex(const std::string& hex) {
  std::string out;
  std::istringstream in(hex);
  std::string byte;
  while (in >> byte) out.push_back(static_cast<char>(std::stoi(byte, nullptr, 16)));
  return out;
}

std::string header(std::int32_t cols, std::int32_t rows) {
  std::string h(16, '\0');
  std::memcpy(h.data(), &cols, 4);
  std::memcpy(h.data() + 4, &rows, 4);
  return h;
}

std::string floats(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

constexpr std::uint64_t kPlenty = std::uint64_t{1} << 30;

}  // namespace

// The seed's "Αρχεία εισόδου" example, byte for byte.
TEST(AtaxFile, ReadsTheSeedsHexExample) {
  const auto p = write_bytes("seed.bin", from_hex(
      "04 00 00 00 04 00 00 00 00 00 00 00 00 00 00 00 "
      "00 00 00 00 00 00 80 3F 0E 2D F2 3E C1 CA 41 3F F8 53 A3 BE 58 39 34 3E 3F 35 3E BF 00 00 80 BF "
      "6F 12 83 3D 1B 2F 5D 3F 81 95 03 3F 8D 97 6E BF D9 CE F7 3D 00 00 80 BF BA 49 6C 3F 00 00 00 80 "
      "E3 A5 5B 3F F0 A7 C6 3D 93 18 24 3F 87 16 79 3F"));
  const AtaxInput in = read_atax_file(p, kPlenty);
  EXPECT_EQ(in.shape.cols, 4u);
  EXPECT_EQ(in.shape.rows, 4u);
  ASSERT_EQ(in.a.size(), 16u);
  EXPECT_EQ(in.a[0], 0.0f);
  EXPECT_EQ(in.a[1], 1.0f);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(in.a[2]), 0x3EF22D0Eu);  // 0.473
  EXPECT_EQ(in.a[7], -1.0f);
  EXPECT_EQ(in.a[15], 0.0f);
  EXPECT_TRUE(std::signbit(in.a[15]));  // 00 00 00 80 is −0
  EXPECT_EQ(std::bit_cast<std::uint32_t>(in.x[0]), 0x3F5BA5E3u);  // 0.858
  EXPECT_FLOAT_EQ(in.x[3], 0.973f);
  // y = Aᵀ(A·x), computed independently in double (numpy) from the same bytes.
  const AtaxReference ref = atax_reference(in);
  EXPECT_NEAR(ref.y[0], 0.58852055, 1e-7);
  EXPECT_NEAR(ref.y[1], -0.14093079, 1e-7);
  EXPECT_NEAR(ref.y[2], 2.13208052, 1e-7);
  EXPECT_NEAR(ref.y[3], 2.97523008, 1e-7);
}

TEST(AtaxFile, RoundTripAndGeneratedFiles) {
  AtaxInput in{{3, 2}, {1, -2, 3.5f, 0, 1e-3f, -7}, {0.5f, 0.25f, -1}};
  write_atax_file(temp_path("rt.bin"), in);
  const AtaxInput back = read_atax_file(temp_path("rt.bin"), kPlenty);
  EXPECT_EQ(back.shape.cols, 3u);
  EXPECT_EQ(back.shape.rows, 2u);
  EXPECT_EQ(back.a, in.a);
  EXPECT_EQ(back.x, in.x);
  EXPECT_EQ(std::filesystem::file_size(temp_path("rt.bin")), atax_file_bytes(in.shape));

  generate_atax_file(temp_path("g1.bin"), {33, 17}, 5);
  generate_atax_file(temp_path("g2.bin"), {33, 17}, 5);
  const AtaxInput g = read_atax_file(temp_path("g1.bin"), kPlenty);
  EXPECT_EQ(g.a, read_atax_file(temp_path("g2.bin"), kPlenty).a);  // reproducible
  for (float v : g.a) EXPECT_TRUE(v >= -1.0f && v < 1.0f);
  EXPECT_NE(g.a[0], g.a[1]);

  const std::vector<float> y{1.5f, -2.0f, 0.0f};
  write_atax_result(temp_path("y.bin"), y);
  EXPECT_EQ(read_atax_result(temp_path("y.bin"), 3), y);
  EXPECT_EQ(std::filesystem::file_size(temp_path("y.bin")), 16u + 12u);
  EXPECT_NE(error_of([&] { read_atax_result(temp_path("y.bin"), 4); }).find("holds 3 values"), std::string::npos);
}

TEST(AtaxFile, RefusesEveryMalformedFileWithAClearMessage) {
  const std::string body = floats({1, 2, 3, 4, 5, 6});  // a 2×2 matrix and its vector
  auto msg = [](const std::string& name, const std::string& bytes, std::uint64_t max = kPlenty) {
    return error_of([&] { read_atax_file(write_bytes(name, bytes), max); });
  };
  EXPECT_NE(msg("short.bin", "abc").find("too short for the 16-byte header"), std::string::npos);
  EXPECT_NE(msg("zero.bin", header(0, 2) + body).find("both must be positive"), std::string::npos);
  EXPECT_NE(msg("neg.bin", header(2, -3) + body).find("both must be positive"), std::string::npos);
  std::string padded = header(2, 2) + body;
  padded[12] = 1;
  EXPECT_NE(msg("pad.bin", padded).find("must be zero padding"), std::string::npos);
  EXPECT_NE(msg("trunc.bin", header(2, 2) + body.substr(0, 20)).find("is truncated"), std::string::npos);
  EXPECT_NE(msg("trail.bin", header(2, 2) + body + "xy").find("2 trailing bytes"), std::string::npos);
  // A header asking for 2^31−1 × 2^31−1 floats is refused before anything is read or allocated.
  EXPECT_NE(msg("huge.bin", header(2147483647, 2147483647)).find("more than the"), std::string::npos);
  EXPECT_NE(msg("limit.bin", header(2, 2) + body, 8).find("more than the"), std::string::npos);
  EXPECT_NE(msg("nan.bin", header(2, 2) + floats({1, 2, NAN, 4, 5, 6})).find("A[row 1, col 0] is NaN"), std::string::npos);
  EXPECT_NE(msg("inf.bin", header(2, 2) + floats({1, 2, 3, 4, 5, INFINITY})).find("x[1] is Inf"), std::string::npos);
  EXPECT_NE(error_of([] { read_atax_file("/nonexistent/a.bin", kPlenty); }).find("does not exist"), std::string::npos);
}

TEST(AtaxReference, HandComputed) {
  const AtaxInput in{{2, 2}, {1, 2, 3, 4}, {1, 1}};  // t = (3, 7), y = (1·3 + 3·7, 2·3 + 4·7)
  const AtaxReference r = atax_reference(in);
  EXPECT_EQ(r.t, (std::vector<double>{3, 7}));
  EXPECT_EQ(r.y, (std::vector<double>{24, 34}));
  EXPECT_EQ(r.abs_t, (std::vector<double>{24, 34}));
  const AtaxInput tall{{1, 3}, {1, -1, 2}, {2}};  // t = (2, −2, 4), y = 2 + 2 + 8
  EXPECT_EQ(atax_reference(tall).y, (std::vector<double>{12}));
}

TEST(AtaxCheck, PassesFloatResultsAndCatchesWrongOnes) {
  generate_atax_file(temp_path("c.bin"), {257, 129}, 9);
  const AtaxInput in = read_atax_file(temp_path("c.bin"), kPlenty);
  const AtaxReference ref = atax_reference(in);
  std::vector<float> y = atax_openmp(in);
  EXPECT_TRUE(check_atax(y, ref, in.shape.cols + 1, in.shape.rows + 1).result.ok);
  y[100] += 1e-2f * static_cast<float>(std::fabs(ref.abs_t[100]) + 1);
  AtaxCheck c = check_atax(y, ref, in.shape.cols + 1, in.shape.rows + 1);
  EXPECT_FALSE(c.result.ok);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.worst_column, 100u);
  y[100] = NAN;
  EXPECT_FALSE(check_atax(y, ref, in.shape.cols + 1, in.shape.rows + 1).result.ok);
  EXPECT_FALSE(check_atax(std::vector<float>(3), ref, 1, 1).result.ok);
}

TEST(AtaxTools, GenAndCheckFromTheCommandLine) {
  auto cli = [](std::vector<std::string> args, std::string* out_text = nullptr) {
    args.insert(args.begin(), "gpulab");
    std::ostringstream out, err;
    const int code = run_cli(args, out, err);
    if (out_text) *out_text = out.str() + err.str();
    return code;
  };
  const std::string in = temp_path("cli.bin").string(), res = temp_path("cli-out.bin").string();
  EXPECT_EQ(cli({"atax", "gen", "100", "37", "-o", in}), 0);
  EXPECT_EQ(std::filesystem::file_size(in), atax_file_bytes({100, 37}));
  write_atax_result(res, atax_openmp(read_atax_file(in, kPlenty)));
  std::string text;
  EXPECT_EQ(cli({"atax", "check", in, res}, &text), 0);
  EXPECT_NE(text.find("Checking...OK"), std::string::npos);
  EXPECT_NE(text.find("Time for both steps"), std::string::npos);
  write_atax_result(res, std::vector<float>(100, 0.0f));
  EXPECT_EQ(cli({"atax", "check", in, res}, &text), 1);
  EXPECT_NE(text.find("FAILED"), std::string::npos);
  EXPECT_EQ(cli({"atax", "check", in, in}, &text), 1);  // not a result file
  EXPECT_EQ(cli({"atax", "gen", "0", "5"}), 2);
  EXPECT_EQ(cli({"atax", "gen", "5"}), 2);
  EXPECT_EQ(cli({"atax", "gen", "5", "-3"}), 2);
  EXPECT_EQ(cli({"atax", "gen", "3000000000", "1"}), 2);
  EXPECT_EQ(cli({"atax"}), 2);
}
