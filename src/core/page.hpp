// Pages people look at: one self-contained HTML file per run (`gpulab report`, and the suite's
// default page beside its JSON) and per comparison (`gpulab compare --html`). Tables come from
// core/tables.hpp like every other rendering; the charts come from the one plotting script
// (src/core/plots.py, installed beside the program as gpulab_plots.py) run with python3 and
// matplotlib, inlined as SVG so that the page opens without a network. Without Python or
// matplotlib the page still has every table, and says why the charts are missing.
#pragma once

#include "core/compare.hpp"
#include "core/report.hpp"

#include <string>
#include <utility>
#include <vector>

namespace gpulab {

struct Plot {
  std::string kind;     // "summary", "sweep" (a problem over one axis), "case" or "scaling" (a problem over GPUs)
  std::string title;
  std::string problem;  // sweeps and scaling: the problem
  int run = 0;          // reports: which of the runs
  int case_index = -1;  // "case": the case's index in its run (or in the comparison)
  std::string svg;
};

struct Plots {
  std::vector<Plot> plots;
  std::string missing;  // why there are none (no python3, no matplotlib, the script failed); "" when drawn
};

/// The plotting script: beside the program, in ../share/gpulab, or in the source tree; "" when none.
std::string plots_script();

/// Runs the plotting script (`report PATH...` or `compare PATH`) with $GPULAB_PYTHON or python3.
/// Never throws for a missing interpreter, library or script: `missing` says which.
Plots draw_plots(const std::vector<std::string>& script_args);

/// A page of one or more runs (each with the path it was read from).
std::string report_page(const std::vector<std::pair<std::string, Report>>& runs, const Plots& plots);

/// A page of a comparison.
std::string comparison_page(const Comparison& c, const Plots& plots);

/// `text` with &, <, >, " escaped.
std::string html_escape(const std::string& text);

}  // namespace gpulab
