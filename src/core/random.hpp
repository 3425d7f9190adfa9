// Reproducible random inputs: element i is a hash of (seed, i), so a fill is the same whatever
// the number of threads, and any element can be recomputed alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab {

/// splitmix64's finaliser: a well-mixed 64-bit value per (seed, index).
constexpr std::uint64_t hash64(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + index + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform in [-1, 1) from a hash: its top 24 bits (every float of that grid exactly).
constexpr float uniform_float(std::uint64_t h) { return static_cast<float>(static_cast<double>(h >> 40) * 0x1p-23 - 1.0); }

/// int8, int16, int32: uniform over the type's whole range (so sums overflow and must wrap);
/// float32/float64: uniform in [-1, 1) (so sums cancel). Parallel (OpenMP).
template <class T>
void fill_random(std::span<T> out, std::uint64_t seed);

}  // namespace gpulab
