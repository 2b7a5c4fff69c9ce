#include "harness/model_waves.hpp"

namespace trn::tb {

ModelWaves& ModelWaves::get() {
  static ModelWaves w;
  return w;
}

int ModelWaves::declare(const std::string& scope, const std::string& name, unsigned width) {
  for (std::size_t i = 0; i < sigs_.size(); ++i)
    if (sigs_[i].scope == scope && sigs_[i].name == name && sigs_[i].width == width) return static_cast<int>(i);
  if (frozen_ || width == 0) return -1;
  sigs_.push_back(Sig{scope, name, width, Bits(width)});
  return static_cast<int>(sigs_.size() - 1);
}

}  // namespace trn::tb
