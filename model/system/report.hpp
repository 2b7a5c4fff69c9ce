// trn::system reports — what `trnsim system` prints (docs/system.md): a system's composition as a
// tree, its composed totals beside the published ones (every miss over 2 % named), its network
// figures, as text or JSON; and two systems side by side.
#pragma once

#include <string>
#include <vector>

#include "system/system.hpp"

namespace trn::system {

/// A composed figure against a published one.
struct Comparison {
  std::string scope;   ///< "chip" or "system"
  std::string metric;  ///< a known_metric() name
  double composed = 0, published = 0;
  double ratio() const { return composed / published; }
  bool miss() const;  ///< more than 2 % apart
};
/// A claimed ratio against another system, and the composed one.
struct ClaimCheck {
  Claim claim;
  double composed = 0;  ///< this system's metric over the other's
  bool miss() const;
};

/// Everything the report shows of one system, computed once.
struct Summary {
  const System* system = nullptr;
  Totals chip, total;
  RouteStats routes;
  Bisection bisect;
  std::vector<Comparison> published;
  std::vector<ClaimCheck> claims;
  std::vector<const Comparison*> misses() const;
};
/// Compose the figures (routes of every pair up to `max_all` chips, else sampled). Claims need
/// the presets to build the systems they compare against.
Summary summarize(const System& s, const Presets& presets, unsigned max_all = 1024);

/// A figure as the report prints it: thousands grouped, four significant digits below 1,000.
std::string num(double v);
/// The report's label of a metric ("peak BF16 TFLOPS", "HBM GB/s", ...).
std::string metric_label(const std::string& metric);

std::string text_report(const Summary& s);
std::string json_report(const Summary& s);
/// Two systems side by side, with a / b for every figure, and a's claims against b.
std::string compare_report(const Summary& a, const Summary& b);
/// The presets, one line each.
std::string list_report(const Presets& p);

}  // namespace trn::system
