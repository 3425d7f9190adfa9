// Every scan rung (and the vendor) × type × kind × awkward size, through the harness's checked run
// (poisoned output, guard band, every element against the reference with the rung's own derived
// tolerance); the library's contract as a user calls it.
#include "gpu_test_support.hpp"

#include "core/dtype.hpp"
#include "core/memory.hpp"
#include "core/random.hpp"
#include "lib/per_device.hpp"
#include "lib/scan_from.hpp"
#include "scan/scan_paths.hpp"
#include "scan/scan_problem.hpp"
#include "scan/segmented_scan_problem.hpp"

#include <gpulab/scan.hpp>

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <tuple>
#include <vector>

using namespace gpulab;

namespace {

struct Case {
  DType type;
  std::size_t rung;  // index into scan_rungs<In>()
  ScanKind kind;
  std::size_t n;
  unsigned block;
  std::size_t offset = 0;  // elements the input starts past a 256-byte boundary
};

std::string_view rung_name(std::size_t i) { return scan_rungs<float>()[i].name; }

void PrintTo(const Case& c, std::ostream* os) {
  *os << dtype_name(c.type) << " " << rung_name(c.rung) << " " << scan_kind_name(c.kind) << " n=" << c.n
      << " block=" << c.block << " offset=" << c.offset;
}

BenchCase& case_for(const Case& c) {
  return test::cached_case(std::make_tuple(c.type, c.kind, c.n, c.block, c.offset), [&]() -> std::unique_ptr<BenchCase> {
    return visit_scan_type(c.type, [&](auto t) -> std::unique_ptr<BenchCase> {
      return std::make_unique<ScanCase<decltype(t)>>(ScanCaseSpec{c.n, c.kind, c.block, 2000 + c.n, c.offset});
    });
  });
}

class ScanLadder : public ::testing::TestWithParam<Case> {};

TEST_P(ScanLadder, MatchesReference) {
  const Case& c = GetParam();
  const CheckResult r = run_checked(case_for(c), c.rung);
  EXPECT_TRUE(r.ok) << rung_name(c.rung) << " n=" << c.n << " block=" << c.block << ": " << r.detail;
}

std::vector<Case> all_cases() {
  std::vector<Case> cases;
  // Around every block (2B = 512), tile (the library's: 8192 doubles, 12288 of the rest; rung 4's:
  // 4096) and level boundary.
  const std::vector<std::size_t> sizes{0,     1,     2,     31,    32,    33,    255,   511,     512,
                                       513,   1023,  4095,  4096,  4097,  8191,  8193,  12287,   12288,
                                       12289, 65535, 65537, 262145, (1u << 20) + 1, 1000003, (1u << 22) + 7};
  for (DType t : kScanTypes)
    for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive})
      for (std::size_t v = 0; v < scan_rungs<float>().size(); ++v) {
        for (std::size_t n : sizes) cases.push_back({t, v, kind, n, 256});
        // The smallest and largest blocks (levels of 64 and 2048 elements).
        cases.push_back({t, v, kind, 100003, 32});
        cases.push_back({t, v, kind, 100003, 1024});
        // Inputs that do not start on a 16-byte boundary (the library's scalar path).
        for (std::size_t offset : {1u, 3u})
          for (std::size_t n : {5u, 4097u, 100001u}) cases.push_back({t, v, kind, n, 256, offset});
      }
  return cases;
}

// "small_" marks the cases compute-sanitizer runs (scripts/device_run.sh): every rung, type and
// kind at a size with a partial tile, a partial block, and with a misaligned input.
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  const bool small = c.block == 256 && ((c.offset == 0 && (c.n == 4097 || c.n == 33)) || (c.offset == 1 && c.n == 4097));
  std::string name = fmt::format("{}{}_{}_{}_n{}_b{}_off{}", small ? "small_" : "", dtype_name(c.type), rung_name(c.rung),
                                 scan_kind_name(c.kind), c.n, c.block, c.offset);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(All, ScanLadder, ::testing::ValuesIn(all_cases()), case_name);

// Past 2^31 elements, where 32-bit indices and tile counts would wrap: every rung on one input.
TEST(ScanLadderHuge, Int32Past2To31) {
  const std::size_t n = (std::size_t{1} << 31) + 4097;
  require_device_bytes(2 * n * sizeof(std::int32_t) + (n / 64) * sizeof(std::int32_t), "huge scan test");
  ScanCase<std::int32_t> c({n, ScanKind::inclusive, 256, 99});
  c.compute_reference();
  Stream stream;
  const DeviceArrays arrays(c, stream.get());
  for (std::size_t r = 0; r < scan_rungs<std::int32_t>().size(); ++r) {
    const OwnedWorkspace ws(c, r, stream.get());
    const CheckResult result = run_checked(c, r, arrays, ws.get(), stream.get());
    EXPECT_TRUE(result.ok) << scan_rungs<std::int32_t>()[r].name << " n=" << n << ": " << result.detail;
  }
}

// ---- the public gpulab::inclusive_scan / exclusive_scan, as a user calls them ------------------------

DeviceBuffer<unsigned char> zeroed_temp(std::size_t bytes) {
  DeviceBuffer<unsigned char> t(bytes);
  GPULAB_CUDA_CHECK(cudaMemset(t.data(), 0, bytes));
  return t;
}

/// Checks a library result on the host against the reference, with the library's own depth.
template <class In>
CheckResult check_library(std::span<const In> x, std::span<const scan_result_t<In>> got, ScanKind kind) {
  std::vector<scan_ref_t<scan_result_t<In>>> ref(x.size());
  scan_reference<In>(x, kind, ref);
  return check_scan<In>(got, x, ref, kind, {scan_accumulation_depth<In>(0), 1, scan_tile_elements<In>()});
}

/// n random values of T on the host and the device, an output buffer and zeroed temporary storage.
template <class T>
struct RandomScan {
  RandomScan(std::size_t n, std::uint64_t seed) : host(n) {
    fill_random<T>(host, seed);
    in = test::upload<T>(host);
  }
  std::span<const T> first(std::size_t count) const { return {host.data(), count}; }

  std::vector<T> host;
  DeviceBuffer<T> in, out{host.size()};
  std::size_t temp_bytes = scan_temp_bytes<T>(host.size());
  DeviceBuffer<unsigned char> temp = zeroed_temp(temp_bytes);
};

template <class In>
void scan_with(ScanKind kind, const In* in, scan_result_t<In>* out, std::size_t n, void* temp, std::size_t bytes,
               cudaStream_t stream = nullptr) {
  if (kind == ScanKind::inclusive) inclusive_scan(in, out, n, temp, bytes, stream);
  else exclusive_scan(in, out, n, temp, bytes, stream);
}

TEST(ScanLibrary, DeterministicSameBitsEveryCall) {
  for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    const std::size_t n = (std::size_t{1} << 24) + 3;
    RandomScan<float> x(n, 21);
    const std::size_t bytes = x.temp_bytes;
    auto temp_b = zeroed_temp(bytes);
    scan_with(kind, x.in.data(), x.out.data(), n, x.temp.data(), bytes);
    const std::vector<float> first = test::download(x.out.data(), n);
    ASSERT_TRUE(check_library<float>(x.host, first, kind).ok);
    for (int i = 0; i < 20; ++i) {
      scan_with(kind, x.in.data(), x.out.data(), n, (i % 2 ? x.temp : temp_b).data(), bytes);
      const std::vector<float> again = test::download(x.out.data(), n);
      ASSERT_EQ(std::memcmp(again.data(), first.data(), n * sizeof(float)), 0)
          << scan_kind_name(kind) << " run " << i << " differs from the first";
    }
  }
}

// Rungs 5 to 9 (a tile loaded into registers; bulk-copied into shared memory; rung 5 with
// evict-first stores; the guessed tile prefetched, into registers or into shared memory) build the
// same chain of additions: the same float bits, whatever the alignment picks. They share one
// temporary storage in turn, each leaving it ready for the next.
TEST(ScanLibrary, EveryPathGivesTheSameBitsFromOneStorage) {
  int major = 0;
  GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, current_device()));
  if (major < 9) GTEST_SKIP() << "the staged path needs compute capability 9.0";
  using scan_detail::ScanPath;
  const std::size_t max_n = (std::size_t{1} << 22) + 5;
  RandomScan<float> x(max_n, 26);
  for (std::size_t n : {max_n, std::size_t{12288} * 3, std::size_t{5}, max_n - 4})
    for (bool inclusive : {true, false}) {
      SCOPED_TRACE(fmt::format("n={} {}", n, inclusive ? "inclusive" : "exclusive"));
      std::vector<std::vector<float>> got;
      for (ScanPath path : {ScanPath::one_tile_a_block, ScanPath::staged, ScanPath::evict_first, ScanPath::prefetched_guess,
                            ScanPath::staged_prefetched, ScanPath::one_tile_a_block, ScanPath::staged, ScanPath::evict_first,
                            ScanPath::prefetched_guess, ScanPath::staged_prefetched}) {
        poison_device(x.out.data(), max_n * sizeof(float), 0xFF, nullptr);
        scan_detail::scan_by_path(path, x.in.data(), x.out.data(), n, inclusive, x.temp.data(), x.temp_bytes, nullptr);
        got.push_back(test::download(x.out.data(), n));
      }
      const auto kind = inclusive ? ScanKind::inclusive : ScanKind::exclusive;
      ASSERT_TRUE(check_library<float>(x.first(n), got[0], kind).ok);
      for (std::size_t i = 1; i < got.size(); ++i)
        EXPECT_EQ(std::memcmp(got[i].data(), got[0].data(), n * sizeof(float)), 0) << "call " << i << " differs from call 0";
    }
}

// One temporary storage for calls of every size in turn, large after small after large: the flags a
// large call leaves past a small call's tiles must not be mistaken for the next large call's.
TEST(ScanLibrary, ReusesTemporaryStorageAcrossSizesAndStreams) {
  Stream a, b;
  const std::size_t max_n = 3'000'017;
  RandomScan<double> x(max_n, 22);
  int call = 0;
  for (std::size_t n : {max_n, std::size_t{1}, std::size_t{7}, std::size_t{4096}, max_n, std::size_t{65537}, max_n - 1,
                        std::size_t{0}, max_n}) {
    const Stream& s = call++ % 2 ? a : b;  // each call waits for the one before (synchronised below)
    poison_device(x.out.data(), max_n * sizeof(double), 0xFF, s.get());
    scan_with(ScanKind::inclusive, x.in.data(), x.out.data(), n, x.temp.data(), x.temp_bytes, s.get());
    s.synchronize();
    const auto got = test::download(x.out.data(), n);
    const CheckResult r = check_library<double>(x.first(n), got, ScanKind::inclusive);
    EXPECT_TRUE(r.ok) << "n=" << n << ": " << r.detail;
  }
}

template <class In>
void check_in_place() {
  const std::size_t n = 1'234'567;
  std::vector<In> host(n);
  fill_random<In>(host, 23);
  for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    auto data = test::upload<In>(host);
    const std::size_t bytes = scan_temp_bytes<In>(n);
    auto temp = zeroed_temp(bytes);
    scan_with(kind, data.data(), data.data(), n, temp.data(), bytes);
    const CheckResult r = check_library<In>(host, test::download(data.data(), n), kind);
    EXPECT_TRUE(r.ok) << dtype_name(dtype_of<In>()) << " " << scan_kind_name(kind) << " in place: " << r.detail;
  }
}

TEST(ScanLibrary, InPlace) {
  check_in_place<std::int32_t>();
  check_in_place<float>();
  check_in_place<double>();
}

// The scan from an offset on the device (a multi-GPU rank's): the plain scan plus the offset,
// exactly for integers (wrapping past 2^31 too), every tile and both kinds, vector and scalar paths.
TEST(ScanLibrary, FromAnOffsetIsThePlainScanPlusTheOffset) {
  for (std::size_t n : {std::size_t{1}, std::size_t{1000}, std::size_t{300'007}})
    for (std::size_t shift : {std::size_t{0}, std::size_t{1}}) {
      std::vector<std::int32_t> host(n);
      fill_random<std::int32_t>(host, 25);
      DeviceBuffer<std::int32_t> in(n + 1), plain(n + 1), from(n + 1), offset(1);
      GPULAB_CUDA_CHECK(cudaMemcpy(in.data() + shift, host.data(), n * 4, cudaMemcpyHostToDevice));
      const std::int32_t start = 2'000'000'000;  // sums pass 2^31: both wrap the same way
      GPULAB_CUDA_CHECK(cudaMemcpy(offset.data(), &start, 4, cudaMemcpyHostToDevice));
      const std::size_t bytes = scan_temp_bytes<std::int32_t>(n);
      auto temp = zeroed_temp(bytes);
      for (bool inclusive : {true, false}) {
        SCOPED_TRACE(fmt::format("n={} shift={} {}", n, shift, inclusive ? "inclusive" : "exclusive"));
        scan_with(inclusive ? ScanKind::inclusive : ScanKind::exclusive, in.data() + shift, plain.data() + shift, n,
                  temp.data(), bytes);
        detail::scan_from(offset.data(), in.data() + shift, from.data() + shift, n, inclusive, temp.data(), bytes, nullptr);
        const auto p = test::download(plain.data() + shift, n), f = test::download(from.data() + shift, n);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < n; ++i)
          wrong += static_cast<std::uint32_t>(f[i]) != static_cast<std::uint32_t>(p[i]) + static_cast<std::uint32_t>(start);
        EXPECT_EQ(wrong, 0u);
      }
    }
  EXPECT_THROW(detail::scan_from<std::int32_t>(nullptr, nullptr, nullptr, 1, true, nullptr, 0, nullptr), Error);
}

// Input and output each off a 16-byte boundary by a different amount: the scalar path.
TEST(ScanLibrary, MisalignedInputAndOutput) {
  const std::size_t n = 100'003;
  std::vector<std::int16_t> host(n);
  fill_random<std::int16_t>(host, 24);
  DeviceBuffer<std::int16_t> in(n + 8);
  DeviceBuffer<std::int32_t> out(n + 8);
  GPULAB_CUDA_CHECK(cudaMemcpy(in.data() + 3, host.data(), n * 2, cudaMemcpyHostToDevice));
  const std::size_t bytes = scan_temp_bytes<std::int16_t>(n);
  auto temp = zeroed_temp(bytes);
  for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    scan_with(kind, in.data() + 3, out.data() + 1, n, temp.data(), bytes);
    const CheckResult r = check_library<std::int16_t>(host, test::download(out.data() + 1, n), kind);
    EXPECT_TRUE(r.ok) << scan_kind_name(kind) << ": " << r.detail;
  }
}

TEST(ScanLibrary, RefusesBadArguments) {
  const std::size_t n = 1 << 20;
  DeviceBuffer<float> in(n), out(n);
  const std::size_t bytes = scan_temp_bytes<float>(n);
  auto temp = zeroed_temp(bytes);
  EXPECT_THROW(inclusive_scan(in.data(), out.data(), n, temp.data(), bytes - 1), Error);
  EXPECT_THROW(inclusive_scan<float>(nullptr, out.data(), n, temp.data(), bytes), Error);
  EXPECT_THROW(exclusive_scan(in.data(), static_cast<float*>(nullptr), n, temp.data(), bytes), Error);
  EXPECT_THROW(exclusive_scan(in.data(), out.data(), n, nullptr, bytes), Error);
  EXPECT_NO_THROW(inclusive_scan<float>(nullptr, nullptr, 0, nullptr, 0));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST(ScanLibrary, TemporaryStorageIsSmall) {
  // A flag and two values a tile of 4096 elements: under 0.5% of an 8-bit input.
  const std::size_t n = std::size_t{1} << 30;
  EXPECT_LT(scan_temp_bytes<std::int8_t>(n), n / 200);
  EXPECT_LT(scan_temp_bytes<double>(n), n * 8 / 1000);
}

// ---- the segmented scans: a segment starts at element 0 and at every nonzero head flag -------------

/// Head flags for n elements, segments of about `mean` elements (the bench's, segment_starts); mean 0:
/// no head at all.
std::vector<std::uint8_t> random_heads(std::size_t n, std::size_t mean, std::uint64_t seed) {
  std::vector<std::uint8_t> heads(n, 0);
  if (mean > 0) segment_starts(n, mean, seed, heads.data());
  return heads;
}

template <class In>
void segmented_with(ScanKind kind, const In* in, const std::uint8_t* heads, scan_result_t<In>* out, std::size_t n,
                    void* temp, std::size_t bytes, cudaStream_t stream = nullptr) {
  if (kind == ScanKind::inclusive) inclusive_segmented_scan(in, heads, out, n, temp, bytes, stream);
  else exclusive_segmented_scan(in, heads, out, n, temp, bytes, stream);
}

template <class In>
CheckResult check_segmented(std::span<const In> x, std::span<const std::uint8_t> heads,
                            std::span<const scan_result_t<In>> got, ScanKind kind) {
  std::vector<scan_ref_t<scan_result_t<In>>> ref(x.size());
  scan_reference<In>(x, kind, ref, heads);
  return check_scan<In>(got, x, ref, kind, {scan_accumulation_depth<In>(0), 1, scan_tile_elements<In>()}, heads);
}

/// Keys whose runs are the segments of `heads`: alternating values (a key may come back after
/// another), scaled past 32 bits for int64 keys.
template <class Key>
std::vector<Key> keys_of(std::span<const std::uint8_t> heads) {
  std::vector<Key> keys(heads.size());
  Key key = 0;
  for (std::size_t i = 0; i < heads.size(); ++i) {
    if (i > 0 && heads[i] != 0) key = key == 0 ? Key(sizeof(Key) == 8 ? (std::int64_t{1} << 33) + 1 : 1) : Key(0);
    keys[i] = key;
  }
  return keys;
}

/// Every kind, segment length and awkward size for In, the values, flags and keys each placed
/// `shift` elements past an aligned start (shift 0: the vector path). The library's output passes
/// the reference; the path the compiler's registers build and the scans by int32 and int64 keys
/// give its bits.
template <class In>
void check_segmented_sizes(std::size_t shift) {
  using Out = scan_result_t<In>;
  const std::size_t tile = scan_tile_elements<In>();
  const std::size_t max_n = 3 * tile + 1000;
  std::vector<In> host(max_n);
  fill_random<In>(host, 31);
  DeviceBuffer<In> in(max_n + 16);
  DeviceBuffer<Out> out(max_n + 16), other(max_n + 16);
  DeviceBuffer<std::uint8_t> flags(max_n + 16);
  DeviceBuffer<std::int32_t> keys32(max_n + 16);
  DeviceBuffer<std::int64_t> keys64(max_n + 16);
  GPULAB_CUDA_CHECK(cudaMemcpy(in.data() + shift, host.data(), max_n * sizeof(In), cudaMemcpyHostToDevice));
  const std::size_t bytes = scan_temp_bytes<In>(max_n);
  auto temp = zeroed_temp(bytes);
  for (std::size_t mean : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{100}, std::size_t{5000}, tile}) {
    const auto heads = random_heads(max_n, mean, 32 + mean);
    GPULAB_CUDA_CHECK(cudaMemcpy(flags.data() + shift, heads.data(), max_n, cudaMemcpyHostToDevice));
    const auto k32 = keys_of<std::int32_t>(heads);
    const auto k64 = keys_of<std::int64_t>(heads);
    GPULAB_CUDA_CHECK(cudaMemcpy(keys32.data() + shift, k32.data(), max_n * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    GPULAB_CUDA_CHECK(cudaMemcpy(keys64.data() + shift, k64.data(), max_n * sizeof(std::int64_t), cudaMemcpyHostToDevice));
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{33}, std::size_t{1000}, tile - 1, tile,
                          tile + 1, 2 * tile + 17, max_n})
      for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
        SCOPED_TRACE(fmt::format("{} mean={} n={} shift={} {}", dtype_name(dtype_of<In>()), mean, n, shift, scan_kind_name(kind)));
        const bool inclusive = kind == ScanKind::inclusive;
        poison_device(out.data(), (max_n + 16) * sizeof(Out), 0xFF, nullptr);
        segmented_with(kind, in.data() + shift, flags.data() + shift, out.data() + shift, n, temp.data(), bytes);
        const auto got = test::download(out.data() + shift, n);
        const CheckResult r = check_segmented<In>(std::span<const In>(host.data(), n),
                                                  std::span<const std::uint8_t>(heads.data(), n), got, kind);
        EXPECT_TRUE(r.ok) << r.detail;
        const auto same_bits = [&](const char* form, auto&& run) {
          poison_device(other.data(), (max_n + 16) * sizeof(Out), 0xFF, nullptr);
          run();
          const auto again = test::download(other.data() + shift, n);
          EXPECT_EQ(std::memcmp(again.data(), got.data(), n * sizeof(Out)), 0) << form;
        };
        same_bits("compiler_registers", [&] {
          scan_detail::segmented_scan_by_path(scan_detail::SegmentedScanPath::compiler_registers, in.data() + shift,
                                              flags.data() + shift, other.data() + shift, n, inclusive, temp.data(), bytes, nullptr);
        });
        same_bits("two_blocks", [&] {
          scan_detail::segmented_scan_by_path(scan_detail::SegmentedScanPath::two_blocks, in.data() + shift,
                                              flags.data() + shift, other.data() + shift, n, inclusive, temp.data(), bytes, nullptr);
        });
        same_bits("int32 keys", [&] {
          if (inclusive) inclusive_segmented_scan_by_key(in.data() + shift, keys32.data() + shift, other.data() + shift, n, temp.data(), bytes);
          else exclusive_segmented_scan_by_key(in.data() + shift, keys32.data() + shift, other.data() + shift, n, temp.data(), bytes);
        });
        same_bits("int64 keys", [&] {
          if (inclusive) inclusive_segmented_scan_by_key(in.data() + shift, keys64.data() + shift, other.data() + shift, n, temp.data(), bytes);
          else exclusive_segmented_scan_by_key(in.data() + shift, keys64.data() + shift, other.data() + shift, n, temp.data(), bytes);
        });
      }
  }
}

TEST(SegmentedScan, EverySegmentLengthTypeAndSize) {
  for (std::size_t shift : {std::size_t{0}, std::size_t{1}}) {
    check_segmented_sizes<std::int8_t>(shift);
    check_segmented_sizes<std::int16_t>(shift);
    check_segmented_sizes<std::int32_t>(shift);
    check_segmented_sizes<float>(shift);
    check_segmented_sizes<double>(shift);
  }
}

// With no head flag set, the segmented scans make the plain scans' additions: the same bits.
TEST(SegmentedScan, WithoutHeadsTheSameBitsAsThePlainScan) {
  const std::size_t n = (std::size_t{1} << 22) + 5;
  RandomScan<float> x(n, 33);
  DeviceBuffer<std::uint8_t> flags(n);
  GPULAB_CUDA_CHECK(cudaMemset(flags.data(), 0, n));
  DeviceBuffer<float> plain(n);
  for (ScanKind kind : {ScanKind::inclusive, ScanKind::exclusive}) {
    scan_with(kind, x.in.data(), plain.data(), n, x.temp.data(), x.temp_bytes);
    segmented_with(kind, x.in.data(), flags.data(), x.out.data(), n, x.temp.data(), x.temp_bytes);
    const auto a = test::download(plain.data(), n), b = test::download(x.out.data(), n);
    EXPECT_EQ(std::memcmp(a.data(), b.data(), n * sizeof(float)), 0) << scan_kind_name(kind);
  }
}

// Segments across many tiles, past 2^31 elements in all: wrapping int32 sums, each segment its own.
TEST(SegmentedScan, Int32Past2To31) {
  const std::size_t n = (std::size_t{1} << 31) + 4097;
  require_device_bytes(n * (2 * sizeof(std::int32_t) + 1), "huge segmented scan test");
  std::vector<std::int32_t> host(n);
  fill_random<std::int32_t>(host, 34);
  const auto heads = random_heads(n, 300'000'000, 35);
  const auto in = test::upload<std::int32_t>(host);
  const auto flags = test::upload<std::uint8_t>(heads);
  DeviceBuffer<std::int32_t> out(n);
  const std::size_t bytes = scan_temp_bytes<std::int32_t>(n);
  auto temp = zeroed_temp(bytes);
  inclusive_segmented_scan(in.data(), flags.data(), out.data(), n, temp.data(), bytes);
  const CheckResult r = check_segmented<std::int32_t>(host, heads, test::download(out.data(), n), ScanKind::inclusive);
  EXPECT_TRUE(r.ok) << r.detail;
}

// Float bits are the same on every call, whatever the timing of the blocks; in place works.
TEST(SegmentedScan, DeterministicAndInPlace) {
  const std::size_t n = (std::size_t{1} << 24) + 3;
  RandomScan<double> x(n, 36);
  const auto heads = random_heads(n, 700, 37);
  const auto flags = test::upload<std::uint8_t>(heads);
  exclusive_segmented_scan(x.in.data(), flags.data(), x.out.data(), n, x.temp.data(), x.temp_bytes);
  const auto first = test::download(x.out.data(), n);
  ASSERT_TRUE(check_segmented<double>(x.host, heads, first, ScanKind::exclusive).ok);
  for (int i = 0; i < 10; ++i) {
    exclusive_segmented_scan(x.in.data(), flags.data(), x.out.data(), n, x.temp.data(), x.temp_bytes);
    const auto again = test::download(x.out.data(), n);
    ASSERT_EQ(std::memcmp(again.data(), first.data(), n * sizeof(double)), 0) << "run " << i;
  }
  exclusive_segmented_scan(x.in.data(), flags.data(), x.in.data(), n, x.temp.data(), x.temp_bytes);
  const auto in_place = test::download(x.in.data(), n);
  EXPECT_EQ(std::memcmp(in_place.data(), first.data(), n * sizeof(double)), 0);
}

// Offsets in any order, repeated, past the end, negative, and CSR's closing n: a flag exactly where
// an offset in [0, n) points, for both offset types; a zero count leaves no flag.
template <class Offset>
void check_heads_from_offsets() {
  const std::size_t n = 3 * 12288 + 77;
  std::vector<Offset> offsets = {Offset(n), 5, 0, 5, Offset(n - 1), -1, Offset(n + 9), 12288, 12287};
  for (std::size_t i = 0; i < 5000; ++i) offsets.push_back(static_cast<Offset>((i * 2654435761u) % (n + 100)));
  std::vector<std::uint8_t> want(n, 0);
  for (Offset at : offsets)
    if (at >= 0 && static_cast<std::size_t>(at) < n) want[at] = 1;
  const auto d_offsets = test::upload<Offset>(offsets);
  DeviceBuffer<std::uint8_t> heads(n);
  poison_device(heads.data(), n, 0xAB, nullptr);
  segment_heads_from_offsets(d_offsets.data(), offsets.size(), n, heads.data());
  EXPECT_EQ(test::download(heads.data(), n), want) << sizeof(Offset) * 8 << "-bit offsets";
  segment_heads_from_offsets(d_offsets.data(), 0, n, heads.data());
  EXPECT_EQ(test::download(heads.data(), n), std::vector<std::uint8_t>(n, 0));
}

TEST(SegmentedScan, HeadsFromOffsets) {
  check_heads_from_offsets<std::int32_t>();
  check_heads_from_offsets<std::int64_t>();
  EXPECT_THROW(segment_heads_from_offsets(static_cast<const std::int32_t*>(nullptr), 3, 10, nullptr), Error);
  EXPECT_NO_THROW(segment_heads_from_offsets(static_cast<const std::int64_t*>(nullptr), 0, 0, nullptr));
}

TEST(SegmentedScan, RefusesBadArguments) {
  const std::size_t n = 1 << 20;
  DeviceBuffer<float> in(n), out(n);
  DeviceBuffer<std::uint8_t> flags(n);
  const std::size_t bytes = scan_temp_bytes<float>(n);
  auto temp = zeroed_temp(bytes);
  EXPECT_THROW(inclusive_segmented_scan(in.data(), flags.data(), out.data(), n, temp.data(), bytes - 1), Error);
  EXPECT_THROW(inclusive_segmented_scan(in.data(), static_cast<const std::uint8_t*>(nullptr), out.data(), n, temp.data(), bytes), Error);
  EXPECT_THROW(exclusive_segmented_scan<float>(nullptr, flags.data(), out.data(), n, temp.data(), bytes), Error);
  EXPECT_THROW(exclusive_segmented_scan(in.data(), reinterpret_cast<const std::uint8_t*>(out.data()) + 8, out.data(), n,
                                        temp.data(), bytes),
               Error);  // the flags overlap the output
  DeviceBuffer<std::int64_t> keys(n);
  EXPECT_THROW(inclusive_segmented_scan_by_key(in.data(), static_cast<const std::int32_t*>(nullptr), out.data(), n, temp.data(), bytes),
               Error);
  EXPECT_THROW(exclusive_segmented_scan_by_key(in.data(), keys.data(), out.data(), n, temp.data(), bytes - 1), Error);
  EXPECT_THROW(inclusive_segmented_scan_by_key(in.data(), reinterpret_cast<const std::int64_t*>(out.data()) + 1, out.data(), n,
                                               temp.data(), bytes),
               Error);  // the keys overlap the output
  EXPECT_NO_THROW(inclusive_segmented_scan<float>(nullptr, nullptr, nullptr, 0, nullptr, 0));
  EXPECT_NO_THROW((inclusive_segmented_scan_by_key<float, std::int32_t>(nullptr, nullptr, nullptr, 0, nullptr, 0)));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
