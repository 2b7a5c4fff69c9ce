// The port lists of the models: generated from the RTL modules' headers by scripts/gen_pkg.py
// (<build>/gen/sv/ports/<module>.hpp), so a model and its RTL unit have one list of ports.
#pragma once

/// Declares a model class's visit_in/visit_out (the lockstep's and the probes' view of its ports)
/// as the generated port list of RTL module `module`, with the module's parameters from the class's
/// sv_params(). The class's In/Out members are named after the module's ports.
#define TRN_MODULE_PORTS(module)                              \
  template <class V>                                          \
  void visit_in(In& in, V&& v) const {                        \
    ::trn::sv::ports::module::visit_in(sv_params(), in, v);   \
  }                                                           \
  template <class V>                                          \
  void visit_out(Out& out, V&& v) const {                     \
    ::trn::sv::ports::module::visit_out(sv_params(), out, v); \
  }
