#include "core/cli_options.hpp"

#include "core/problem.hpp"
#include "core/sizes.hpp"

#include <gpulab/error.hpp>

#include <algorithm>

namespace gpulab {

CLI::Validator size_list_validator() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return parse_size_list(s) ? std::string() : "'" + s + "' is not a list of sizes like 2^24,1000,2^20+1";
      },
      "SIZES");
}

void usage_error(const std::string& message) { throw UsageError(message); }

std::vector<std::size_t> size_list(const std::string& text) {
  auto sizes = parse_size_list(text);
  if (!sizes) throw Error("'" + text + "' is not a list of sizes like 2^24,1000,2^20+1");
  return std::move(*sizes);
}

CLI::Validator word_list_validator(std::string what, std::string choices, std::function<bool(const std::string&)> known,
                                   std::string name) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        if (s == "all") return {};
        if (s.empty()) return "the list of " + what + " is empty";
        for (const auto& item : split_commas(s))
          if (!known(item)) return "'" + item + "' is not " + choices + " or all";
        return {};
      },
      std::move(name));
}

std::string type_choices(std::span<const DType> allowed) {
  std::string out;
  for (DType t : allowed) out += (out.empty() ? "" : ", ") + std::string(dtype_name(t));
  return out;
}

CLI::Validator type_list_validator(std::span<const DType> allowed) {
  const std::vector<DType> types(allowed.begin(), allowed.end());
  return word_list_validator("types", type_choices(allowed),
                             [types](const std::string& w) {
                               const auto t = parse_dtype(w);
                               return t && std::find(types.begin(), types.end(), *t) != types.end();
                             },
                             "TYPES");
}

std::vector<DType> parse_types(const std::string& text, std::span<const DType> allowed) {
  if (text == "all") return {allowed.begin(), allowed.end()};
  std::vector<DType> out;
  for (const auto& item : split_commas(text)) {
    const auto t = parse_dtype(item);
    if (!t || std::find(allowed.begin(), allowed.end(), *t) == allowed.end())
      throw Error("'" + item + "' is not " + type_choices(allowed) + " or all");
    out.push_back(*t);
  }
  return out;
}

}  // namespace gpulab
