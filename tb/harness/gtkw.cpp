#include "harness/gtkw.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "harness/model_waves.hpp"

namespace trn::tb {

namespace {
std::string sized(const std::string& path, unsigned width) {
  return width == 1 ? path : fmt::format("{}[{}:0]", path, width - 1);
}
std::string trace_line(const std::string& path, unsigned width) {
  return fmt::format("{}\n{}\n", width == 1 ? "@28" : "@22", sized(path, width));
}
/// The interface group of a port: its name up to the first '_'; a probed unit port
/// ("core.u_te.st_req_o") goes in its instance's group; clock and reset together.
std::string group_of(const std::string& name) {
  if (name == "clk_i" || name == "rst_ni") return "clock_reset";
  const auto dot = name.rfind('.');
  return dot != std::string::npos ? name.substr(0, dot) : name.substr(0, name.find('_'));
}
constexpr unsigned kWindowCycles = 40;  // the view around a failure
constexpr double kWavePixels = 1200;    // about the width of GTKWave's wave pane
}  // namespace

std::string fst_name(const Signal& s) { return sized("TOP." + s.name(), s.width()); }

void write_gtkw(const std::string& path, const std::string& fst, PortTable& ports, const std::optional<WaveFocus>& focus) {
  const auto& extra = ModelWaves::get().all();
  auto extra_of = [&](const std::string& scope, const std::string& name) -> const ModelWaves::Sig* {
    for (const auto& s : extra)
      if (s.scope == scope && s.name == name) return &s;
    return nullptr;
  };
  std::string g = "[*] trn-rtl: generated with the waveform of one test run\n";
  g += fmt::format("[dumpfile] \"{}\"\n[savefile] \"{}\"\n", fst, path);
  if (focus) {
    // GTKWave's zoom z shows 2^-z time units per pixel: a window of kWindowCycles cycles, the
    // failure a quarter of the way from its right edge.
    const double period = focus->period_ps ? static_cast<double>(focus->period_ps) : 10000.0;
    const double window = kWindowCycles * period;
    const double zoom = -std::log2(window / kWavePixels);
    const double start = std::max(0.0, static_cast<double>(focus->marker_ps) - 0.75 * window);
    g += fmt::format("[timestart] {}\n*{:.6f} {}", static_cast<long long>(start), zoom,
                     static_cast<long long>(focus->marker_ps));
  } else {
    g += "[timestart] 0\n*-20.000000 -1";
  }
  for (int i = 0; i < 26; ++i) g += " -1";
  g += "\n[sst_width] 240\n[signals_width] 360\n[sst_expanded] 1\n";

  std::vector<std::string> order;
  std::map<std::string, std::vector<const Signal*>> groups;
  for (auto& s : ports.all()) {
    const std::string grp = group_of(s.name());
    if (!groups.count(grp)) order.push_back(grp);
    groups[grp].push_back(&s);
  }
  std::stable_partition(order.begin(), order.end(), [](const std::string& n) { return n == "clock_reset"; });
  // The failing port's interface first, with the mismatch flag and the model's view of each output.
  std::string failing = focus ? focus->port : std::string();
  if (!failing.empty() && !ports.find(failing)) failing.clear();
  if (!failing.empty()) {
    const std::string grp = group_of(failing);
    g += fmt::format("@800200\n-first mismatch: {}\n", failing);
    if (const auto* m = extra_of("", "mismatch")) g += trace_line("TOP.mismatch", m->width);
    std::vector<const Signal*> sigs = groups[grp];
    std::stable_partition(sigs.begin(), sigs.end(), [&](const Signal* s) { return s->name() == failing; });
    for (const Signal* s : sigs) {
      if (const auto* m = extra_of("model", s->name())) g += trace_line("TOP.model." + s->name(), m->width);
      if (const auto* m = extra_of("sampled", s->name())) g += trace_line("TOP.sampled." + s->name(), m->width);
      g += trace_line("TOP." + s->name(), s->width());
    }
    g += fmt::format("@1000200\n-first mismatch: {}\n", failing);
    order.erase(std::remove(order.begin(), order.end(), grp), order.end());
  }
  for (const auto& grp : order) {
    g += fmt::format("@800200\n-{}\n", grp);
    for (const Signal* s : groups[grp]) g += trace_line("TOP." + s->name(), s->width());
    g += fmt::format("@1000200\n-{}\n", grp);
  }
  // Everything else the harness added (collapsed): the model's outputs and the mismatch flag.
  bool any = false;
  for (const auto& s : extra) {
    if (s.scope != "model" && !(failing.empty() && s.scope.empty())) continue;
    if (!any) g += "@c00200\n-model (expected)\n";
    any = true;
    g += trace_line(s.scope.empty() ? "TOP." + s.name : "TOP." + s.scope + "." + s.name, s.width);
  }
  if (any) g += "@1401200\n-model (expected)\n";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fputs(g.c_str(), f);
  std::fclose(f);
}

}  // namespace trn::tb
