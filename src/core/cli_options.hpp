// Option parsing the problems share (CLI11 validators and their parsers), written once.
#pragma once

#include "core/dtype.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <span>
#include <string>
#include <vector>

namespace gpulab {

/// "2^20,2^24+1,1000".
CLI::Validator size_list_validator();
/// The sizes of a list size_list_validator() accepted (throws gpulab::Error otherwise).
std::vector<std::size_t> size_list(const std::string& text);

/// A comma list of words `known` accepts, or "all". `what`: "types"; `choices`: the words, for the
/// message ("int32, float32, float64").
CLI::Validator word_list_validator(std::string what, std::string choices, std::function<bool(const std::string&)> known,
                                   std::string name);

/// A comma list of the types in `allowed` (int32, float32, float64 unless given) or all.
CLI::Validator type_list_validator(std::span<const DType> allowed = kCommonTypes);
std::vector<DType> parse_types(const std::string& text, std::span<const DType> allowed = kCommonTypes);
/// "int32, float32, float64": the allowed types, for help texts.
std::string type_choices(std::span<const DType> allowed = kCommonTypes);

}  // namespace gpulab
