# Shared settings of the cocotb suite (run by scripts/cocotb, which sets PATH and PYTHONPATH to
# cocotb 1.8.1 in build/pylib and runs each test's Makefile from its directory under
# build/cocotb/). Each test's Makefile sets TOPLEVEL, MODULE, VERILOG_SOURCES and its -G parameters
# (EXTRA_ARGS), then includes this file.
TRN_ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
SIM ?= verilator
TOPLEVEL_LANG = verilog
COCOTB_HDL_TIMEUNIT = 1ns
COCOTB_HDL_TIMEPRECISION = 1ps
# The project's Verilator options (CMakeLists.txt, TRN_VERILATOR_ARGS), and its waivers.
EXTRA_ARGS += --x-initial unique --x-assign unique -Wall -Wno-fatal $(TRN_ROOT)/rtl/lint.vlt
# ccache for the Verilated C++ (Verilator's makefile reads OBJCACHE).
BUILD_ARGS += OBJCACHE=$(shell command -v ccache 2>/dev/null)
ifeq ($(WAVES),1)
  EXTRA_ARGS += --trace-fst --trace-structs
endif
include $(shell cocotb-config --makefiles)/Makefile.sim
