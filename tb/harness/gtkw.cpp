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
/// A signal's line, or "" when it is left out. With WAVES_SCOPE (a system's failing chip) the save
/// file lists the clock, reset and mismatch flag and the harness's model and sampled copies within
/// the scope: the view is of the failing part, and its copies hold the values the lockstep
/// compared; the DUT's own signals are in the FST (GTKWave's tree) but not listed. (A packed
/// struct or array port that is listed is traced by Verilator as its fields and elements:
/// scripts/wave fits the save file to the FST.)
std::string trace_line(const std::string& path, unsigned width, const std::string& alias = "") {
  const RunOptions& o = options();
  if (!o.wave_scopes.empty()) {
    const bool mine = path == "TOP.clk_i" || path == "TOP.rst_ni" || path == "TOP.mismatch";
    const bool copy = path.rfind("TOP.model.", 0) == 0 || path.rfind("TOP.sampled.", 0) == 0;
    if (!mine && !(copy && wave_traced(o, path))) return "";
  }
  return fmt::format("{}\n{}{}\n", width == 1 ? "@28" : "@22", alias.empty() ? "" : "+{" + alias + "} ",
                     sized(path, width));
}
/// The interface group of a port: its name up to the first '_'; a probed unit port
/// ("core.u_te.st_req_o") goes in its instance's group; clock and reset together.
std::string group_of(const std::string& name) {
  if (name == "clk_i" || name == "rst_ni") return "clock_reset";
  const auto dot = name.rfind('.');
  return dot != std::string::npos ? name.substr(0, dot) : name.substr(0, name.find('_'));
}
constexpr unsigned kWindowCycles = 40;  // the view around a failure
// GTKWave 3.3's zoom z shows 2^-z / 200 time units per pixel (measured with
// scripts/wave_screenshot); its wave pane is about 940 pixels wide in a 1600-pixel window with the
// widths set below.
constexpr double kZoomUnits = 200;
constexpr double kWavePixels = 940;
}  // namespace

std::string fst_name(const Signal& s) { return sized("TOP." + s.name(), s.width()); }

void write_gtkw(const std::string& path, const std::string& fst, PortTable& ports,
                const std::optional<WaveFocus>& focus) {
  const auto& extra = ModelWaves::get().all();
  auto extra_of = [&](const std::string& scope, const std::string& name) -> const ModelWaves::Sig* {
    for (const auto& s : extra)
      if (s.scope == scope && s.name == name) return &s;
    return nullptr;
  };
  std::string g = "[*] trn-rtl: generated with the waveform of one test run\n";
  g += fmt::format("[dumpfile] \"{}\"\n[savefile] \"{}\"\n", fst, path);
  if (focus) {
    // A window of kWindowCycles cycles, the failure a quarter of the way from its right edge (or
    // nearer it when the waveform ends there, as it does when the failure ended the run).
    const double period = focus->period_ps ? static_cast<double>(focus->period_ps) : 10000.0;
    const double window = kWindowCycles * period;
    const double zoom = -std::log2(kZoomUnits * window / kWavePixels);
    double start = static_cast<double>(focus->marker_ps) - 0.75 * window;
    if (focus->end_ps) start = std::min(start, static_cast<double>(focus->end_ps) - window);
    start = std::max(0.0, start);
    g += fmt::format("[timestart] {}\n*{:.6f} {}", static_cast<long long>(start), zoom,
                     static_cast<long long>(focus->marker_ps));
  } else {
    g += "[timestart] 0\n*-20.000000 -1";
  }
  for (int i = 0; i < 26; ++i) g += " -1";
  g += "\n[size] 1600 900\n[pos] 0 0\n[sst_width] 240\n[signals_width] 360\n[sst_expanded] 1\n";

  std::vector<std::string> order;
  std::map<std::string, std::vector<const Signal*>> groups;
  for (auto& s : ports.all()) {
    const std::string grp = group_of(s.name());
    if (!groups.count(grp)) order.push_back(grp);
    groups[grp].push_back(&s);
  }
  std::stable_partition(order.begin(), order.end(), [](const std::string& n) { return n == "clock_reset"; });
  // The failing port's interface first, with the mismatch flag and the model's view of each output.
  // The failing port: the longest prefix of the failing signal that is a port of the top.
  std::string failing = focus ? focus->port : std::string();
  while (!failing.empty() && !ports.find(failing)) {
    const auto dot = failing.rfind('.');
    failing = dot == std::string::npos ? std::string() : failing.substr(0, dot);
  }
  if (!failing.empty()) {
    const std::string grp = group_of(failing);
    g += fmt::format("@800200\n-first mismatch: {}\n", failing);
    if (const auto* m = extra_of("", "mismatch")) g += trace_line("TOP.mismatch", m->width, "mismatch");
    std::vector<const Signal*> sigs = groups[grp];
    std::stable_partition(sigs.begin(), sigs.end(), [&](const Signal* s) { return s->name() == failing; });
    for (const Signal* s : sigs) {
      const auto* m = extra_of("model", s->name());
      const auto* d = extra_of("sampled", s->name());
      if (m) g += trace_line("TOP.model." + s->name(), m->width, "model." + s->name() + " (expected)");
      if (d) g += trace_line("TOP.sampled." + s->name(), d->width, "sampled." + s->name() + " (DUT as compared)");
      g += trace_line("TOP." + s->name(), s->width(), m ? s->name() + " (DUT, live)" : "");
    }
    g += fmt::format("@1000200\n-first mismatch: {}\n", failing);
    order.erase(std::remove(order.begin(), order.end(), grp), order.end());
  }
  for (const auto& grp : order) {
    std::string lines;
    for (const Signal* s : groups[grp]) lines += trace_line("TOP." + s->name(), s->width());
    if (!lines.empty()) g += fmt::format("@800200\n-{}\n{}@1000200\n-{}\n", grp, lines, grp);
  }
  // Everything else the harness added (collapsed): the model's outputs and the mismatch flag.
  bool any = false;
  for (const auto& s : extra) {
    if (s.scope != "model" && !(failing.empty() && s.scope.empty())) continue;
    const std::string line = trace_line(s.scope.empty() ? "TOP." + s.name : "TOP." + s.scope + "." + s.name, s.width,
                                        s.scope.empty() ? s.name : s.scope + "." + s.name);
    if (line.empty()) continue;
    if (!any) g += "@c00200\n-model (expected)\n";
    any = true;
    g += line;
  }
  if (any) g += "@1401200\n-model (expected)\n";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fputs(g.c_str(), f);
  std::fclose(f);
}

}  // namespace trn::tb
