#include "harness/cover.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

#include "harness/errors.hpp"

namespace trn::tb {

namespace {
std::vector<std::unique_ptr<CoverPoint>>& store() {
  static std::vector<std::unique_ptr<CoverPoint>> s;
  return s;
}
std::vector<CoverPoint*>& views() {
  static std::vector<CoverPoint*> v;
  return v;
}
std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
}  // namespace

CoverPoint::CoverPoint(std::string name, std::vector<std::string> bins)
    : name_(std::move(name)), bins_(std::move(bins)), counts_(bins_.size(), 0) {}

void CoverPoint::hit(std::string_view bin) {
  for (std::size_t i = 0; i < bins_.size(); ++i)
    if (bins_[i] == bin) {
      ++counts_[i];
      return;
    }
  throw HarnessError(fmt::format("cover point '{}' has no bin '{}'", name_, bin));
}

void CoverPoint::hit_index(std::size_t i) {
  if (i >= counts_.size()) throw HarnessError(fmt::format("cover point '{}' has no bin {}", name_, i));
  ++counts_[i];
}

void CoverPoint::hit(std::initializer_list<std::string_view> values) {
  std::string b;
  for (auto v : values) {
    if (!b.empty()) b += '*';
    b += v;
  }
  hit(std::string_view(b));
}

CoverPoint& cover_point(const std::string& name, std::vector<std::string> bins) {
  for (auto& p : store())
    if (p->name() == name) {
      if (p->bins() != bins) throw HarnessError(fmt::format("cover point '{}' declared twice with other bins", name));
      return *p;
    }
  if (bins.empty()) throw HarnessError(fmt::format("cover point '{}' has no bins", name));
  store().push_back(std::make_unique<CoverPoint>(name, std::move(bins)));
  views().push_back(store().back().get());
  return *store().back();
}

CoverPoint& cover_cross(const std::string& name, const std::vector<std::vector<std::string>>& axes) {
  std::vector<std::string> bins{""};
  for (const auto& axis : axes) {
    std::vector<std::string> next;
    for (const auto& b : bins)
      for (const auto& v : axis) next.push_back(b.empty() ? v : b + "*" + v);
    bins = std::move(next);
  }
  return cover_point(name, std::move(bins));
}

CoverPoint& range_point(const std::string& name) { return cover_point(name, {"min", "between", "max"}); }
CoverPoint& level_point(const std::string& name) { return cover_point(name, {"empty", "between", "full"}); }

void hit_range(CoverPoint& p, std::uint64_t value, std::uint64_t min, std::uint64_t max) {
  if (value <= min) p.hit_index(0);
  if (value >= max) p.hit_index(2);
  if (value > min && value < max) p.hit_index(1);
}

void cover_range(const std::string& name, std::uint64_t value, std::uint64_t min, std::uint64_t max) {
  hit_range(range_point(name), value, min, max);
}

void cover_level(const std::string& name, std::uint64_t level, std::uint64_t capacity) {
  hit_level(level_point(name), level, capacity);
}

std::vector<std::string> cover_names(const std::string& prefix, unsigned n) {
  std::vector<std::string> v;
  for (unsigned i = 0; i < n; ++i) v.push_back(prefix + std::to_string(i));
  return v;
}

const std::vector<CoverPoint*>& cover_points() { return views(); }

void write_coverage(const std::string& path) {
  if (path.empty()) return;
  std::string j = "{\"points\": {";
  bool first = true;
  for (const CoverPoint* p : views()) {
    j += fmt::format("{}\n  {}: {{\"bins\": {{", first ? "" : ",", json_string(p->name()));
    first = false;
    for (std::size_t i = 0; i < p->bins().size(); ++i)
      j += fmt::format("{}{}: {}", i ? ", " : "", json_string(p->bins()[i]), p->counts()[i]);
    j += "}}";
  }
  j += "\n}}\n";
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + tmp);
  std::fputs(j.c_str(), f);
  std::fclose(f);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write " + path);
}

}  // namespace trn::tb
