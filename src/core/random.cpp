#include "core/random.hpp"

#include <cstdint>
#include <type_traits>

namespace gpulab {

template <class T>
void fill_random(std::span<T> out, std::uint64_t seed) {
  const auto n = static_cast<std::int64_t>(out.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t h = hash64(seed, static_cast<std::uint64_t>(i));
    if constexpr (std::is_integral_v<T>) {  // the top bits, uniform over T's whole range
      using U = std::make_unsigned_t<T>;
      out[static_cast<std::size_t>(i)] = static_cast<T>(static_cast<U>(h >> (64 - 8 * sizeof(T))));
    } else if constexpr (sizeof(T) == 4) {  // float: 24 random bits
      out[static_cast<std::size_t>(i)] = uniform_float(h);
    } else {  // double: 53 random bits
      out[static_cast<std::size_t>(i)] = static_cast<T>(static_cast<double>(h >> 11) * 0x1p-52 - 1.0);
    }
  }
}

template void fill_random<std::int8_t>(std::span<std::int8_t>, std::uint64_t);
template void fill_random<std::int16_t>(std::span<std::int16_t>, std::uint64_t);
template void fill_random<std::int32_t>(std::span<std::int32_t>, std::uint64_t);
template void fill_random<float>(std::span<float>, std::uint64_t);
template void fill_random<double>(std::span<double>, std::uint64_t);

}  // namespace gpulab
