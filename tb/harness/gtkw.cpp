#include "harness/gtkw.hpp"

#include <cstdio>
#include <algorithm>
#include <map>
#include <stdexcept>

namespace trn::tb {

std::string fst_name(const Signal& s) {
  return s.width() == 1 ? "TOP." + s.name() : fmt::format("TOP.{}[{}:0]", s.name(), s.width() - 1);
}

void write_gtkw(const std::string& path, const std::string& fst, PortTable& ports, std::optional<std::uint64_t> marker_ps) {
  std::string g = "[*] trn-rtl: generated with the waveform of one test run\n";
  g += fmt::format("[dumpfile] \"{}\"\n[savefile] \"{}\"\n[timestart] 0\n", fst, path);
  g += fmt::format("*-20.000000 {}", marker_ps ? static_cast<long long>(*marker_ps) : -1LL);
  for (int i = 0; i < 26; ++i) g += " -1";
  g += "\n[sst_width] 240\n[signals_width] 320\n[sst_expanded] 1\n";
  // Groups in order of first appearance; clock and reset on their own first.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Signal*>> groups;
  for (auto& s : ports.all()) {
    // a probed unit port ("core.u_te.st_req_o") goes in its instance's group
    const auto dot = s.name().rfind('.');
    std::string grp = s.name() == "clk_i" || s.name() == "rst_ni" ? std::string("clock_reset")
                      : dot != std::string::npos                  ? s.name().substr(0, dot)
                                                                  : s.name().substr(0, s.name().find('_'));
    if (!groups.count(grp)) order.push_back(grp);
    groups[grp].push_back(&s);
  }
  std::stable_partition(order.begin(), order.end(), [](const std::string& n) { return n == "clock_reset"; });
  for (const auto& grp : order) {
    g += fmt::format("@800200\n-{}\n", grp);
    for (const Signal* s : groups[grp]) g += fmt::format("{}\n{}\n", s->width() == 1 ? "@28" : "@22", fst_name(*s));
    g += fmt::format("@1000200\n-{}\n", grp);
  }
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fputs(g.c_str(), f);
  std::fclose(f);
}

}  // namespace trn::tb
