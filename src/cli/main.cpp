#include "cli/cli.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return gpulab::run_cli(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
}
