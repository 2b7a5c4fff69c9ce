// trn::tb functional coverage: named cover points and crosses that a bench declares with their
// bins and samples as it runs. Every run writes the counts to FCOV_FILE when that is set
// (scripts/regress --coverage sets it), after every test, as JSON:
//   {"points": {"<point>": {"bins": {"<bin>": <count>, ...}}, ...}}
// and the regression sums them over runs and lists the bins no run hit (scripts/trnlib/coverage.py).
// A run whose tests all expect a failure (the self-tests of a wrong DUT or model) writes none: its
// coverage is of the broken thing, not the design.
//
//   auto& mode = cover_point("dma.order_mode", {"none", "waw", "sow"});
//   mode.hit("waw");
//   auto& x = cover_cross("dma.mode_x_reorder", {{"none", "waw", "sow"}, {"in_order", "reordered"}});
//   x.hit({"waw", "reordered"});
//   cover_range("dma.desc.bytes", bytes, 1, max_bytes);   // bins min, max, between
//   cover_level("fifo.usage", usage, depth);              // bins empty, full, between
//
// Declaring a point again returns the same point (its bins must be the same); a bin that was not
// declared is a harness error, so a typo cannot hide a hole.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace trn::tb {

class CoverPoint {
 public:
  CoverPoint(std::string name, std::vector<std::string> bins);
  const std::string& name() const { return name_; }
  const std::vector<std::string>& bins() const { return bins_; }
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  void hit(std::string_view bin);
  void hit_index(std::size_t i);
  /// A cross: one value per axis, in order ("waw", "reordered" -> bin "waw*reordered").
  void hit(std::initializer_list<std::string_view> values);

 private:
  std::string name_;
  std::vector<std::string> bins_;
  std::vector<std::uint64_t> counts_;
};

/// The point `name` with these bins (declared on the first call).
CoverPoint& cover_point(const std::string& name, std::vector<std::string> bins);
/// A cross of axes: its bins are every combination, "a*b*c".
CoverPoint& cover_cross(const std::string& name, const std::vector<std::vector<std::string>>& axes);
/// A field's value at its minimum, at its maximum, or between (bins "min", "max", "between").
void cover_range(const std::string& name, std::uint64_t value, std::uint64_t min, std::uint64_t max);
/// A buffer's occupancy: "empty", "full" or "between".
void cover_level(const std::string& name, std::uint64_t level, std::uint64_t capacity);

/// The same, for a point the bench keeps by reference (no lookup by name per sample): the points
/// with cover_range's and cover_level's bins, and their hits. A range whose minimum is its maximum
/// hits both "min" and "max".
CoverPoint& range_point(const std::string& name);
CoverPoint& level_point(const std::string& name);
void hit_range(CoverPoint& p, std::uint64_t value, std::uint64_t min, std::uint64_t max);
/// cover_level's bin index: 0 empty, 1 between, 2 full.
inline std::size_t level_bin(std::uint64_t level, std::uint64_t capacity) {
  return level == 0 ? 0 : level >= capacity ? 2 : 1;
}
inline void hit_level(CoverPoint& p, std::uint64_t level, std::uint64_t capacity) {
  p.hit_index(level_bin(level, capacity));
}

/// Bin names prefix0 .. prefix{n-1} ("e0", "e1", ...), for per-port or per-endpoint points.
std::vector<std::string> cover_names(const std::string& prefix, unsigned n);

/// Every point declared in this process.
const std::vector<CoverPoint*>& cover_points();
/// Write the counts as JSON (see above); a no-op for an empty path.
void write_coverage(const std::string& path);

}  // namespace trn::tb
