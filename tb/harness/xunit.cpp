#include "harness/xunit.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

namespace trn::tb {

std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\n':
        o += "&#10;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
          o += ' ';
        else
          o += c;
    }
  }
  return o;
}

void write_results_xml(const std::string& path, std::uint32_t seed, const std::vector<TestResult>& results) {
  std::string x = "<testsuites name=\"results\">\n  <testsuite name=\"all\" package=\"all\">\n";
  x += fmt::format("    <property name=\"random_seed\" value=\"{}\" />\n", seed);
  for (const auto& r : results) {
    const double ratio = r.wall_s > 0 ? r.sim_ns / r.wall_s : 0.0;
    x += fmt::format(
        "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" lineno=\"{}\" time=\"{:.6f}\" "
        "sim_time_ns=\"{:.3f}\" ratio_time=\"{:.3f}\"",
        xml_escape(r.name), xml_escape(r.classname), xml_escape(r.file), r.line, r.wall_s, r.sim_ns, ratio);
    if (r.status == TestResult::Status::Pass) {
      x += " />\n";
      continue;
    }
    x += ">\n";
    if (r.status == TestResult::Status::Skip)
      x += "      <skipped />\n";
    else
      x += fmt::format("      <failure message=\"Test failed with RANDOM_SEED={}\">{}</failure>\n", seed,
                       xml_escape(r.message));
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  // Write then rename, so an interrupted run never leaves half a file.
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  const bool ok = std::fwrite(x.data(), 1, x.size(), f) == x.size();
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot write " + path);
}

std::string summary_table(const std::vector<TestResult>& results) {
  std::size_t w = 4;
  for (const auto& r : results) w = std::max(w, r.classname.size() + 1 + r.name.size());
  const std::string bar(w + 70, '*');
  std::string s = bar + "\n";
  s += fmt::format("** {:<{}}  STATUS  SIM TIME (ns)  REAL TIME (s)  RATIO (ns/s) **\n", "TEST", w);
  s += bar + "\n";
  int pass = 0, fail = 0, skip = 0;
  double sim = 0, wall = 0;
  for (const auto& r : results) {
    const char* st = "PASS";
    if (r.status == TestResult::Status::Fail) {
      st = "FAIL";
      ++fail;
    } else if (r.status == TestResult::Status::Skip) {
      st = "SKIP";
      ++skip;
    } else {
      ++pass;
    }
    sim += r.sim_ns;
    wall += r.wall_s;
    s += fmt::format("** {:<{}}  {:>6}  {:>13.2f}  {:>13.2f}  {:>12.2f} **\n", r.classname + "." + r.name, w, st,
                     r.sim_ns, r.wall_s, r.wall_s > 0 ? r.sim_ns / r.wall_s : 0.0);
  }
  s += bar + "\n";
  s += fmt::format("** {:<{}}          {:>13.2f}  {:>13.2f}  {:>12.2f} **\n",
                   fmt::format("TESTS={} PASS={} FAIL={} SKIP={}", results.size(), pass, fail, skip), w, sim, wall,
                   wall > 0 ? sim / wall : 0.0);
  s += bar + "\n";
  return s;
}

}  // namespace trn::tb
