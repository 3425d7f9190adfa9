#include "core/cli_options.hpp"

#include "core/sizes.hpp"

#include <gpulab/error.hpp>

namespace gpulab {

CLI::Validator size_list_validator() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return parse_size_list(s) ? std::string() : "'" + s + "' is not a list of sizes like 2^24,1000,2^20+1";
      },
      "SIZES");
}

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

CLI::Validator type_list_validator() {
  return word_list_validator("types", "int32, float32, float64",
                             [](const std::string& w) { return parse_dtype(w).has_value(); }, "TYPES");
}

std::vector<DType> parse_types(const std::string& text) {
  if (text == "all") return {DType::int32, DType::float32, DType::float64};
  std::vector<DType> out;
  for (const auto& item : split_commas(text)) out.push_back(*parse_dtype(item));
  return out;
}

}  // namespace gpulab
