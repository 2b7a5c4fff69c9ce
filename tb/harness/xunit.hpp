// results.xml in the xUnit form cocotb 1.8 writes, and cocotb's console summary table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trn::tb {

struct TestResult {
  std::string name;       ///< test function name
  std::string classname;  ///< the bench (cocotb: the test module)
  std::string file;
  int line = 0;
  enum class Status { Pass, Fail, Skip } status = Status::Pass;
  double wall_s = 0;
  double sim_ns = 0;
  std::string message;  ///< the failure report
};

/// Write results.xml; throws std::runtime_error if the file cannot be written.
void write_results_xml(const std::string& path, std::uint32_t seed, const std::vector<TestResult>& results);
/// cocotb's summary table.
std::string summary_table(const std::vector<TestResult>& results);
/// XML attribute/text escaping.
std::string xml_escape(const std::string& s);

}  // namespace trn::tb
