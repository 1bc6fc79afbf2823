# HardRoCE — build, lint, test, synthesis, benchmarks and demo.
#
#   make          build everything (models, tests, tools)
#   make test     lint, then every test; ends with "N passed, N failed"
#   make lint     Verilator -Wall, Icarus, clang-format, cppcheck
#   make synth    Yosys synth_xilinx (UltraScale+): LUT/FF/BRAM per module
#   make bench    throughput and simulation-speed figures
#   make demo     perftest (ib_write_bw, ib_send_lat, ib_read_bw) between two simulated NICs
#   make demo-pcap  hroce-pcap on a capture made by the RTL TX path, and on ../shared/pcap
#   make deps     install the Debian packages all of this needs (as root; idempotent)
#   make interop-guest  the rxe guest: build/interop/{vmlinuz,modules,initramfs.cpio.gz}
#   make interop-selftest  two rxe guests on one link, no HardRoCE (proves the guest side)
#   TRACE=1       build into build/trace with FST tracing compiled in (--trace FILE.fst)

SHELL := /bin/bash
.DEFAULT_GOAL := all
# a recipe that fails leaves no target behind (a model whose Verilator run failed is not
# taken as built by the next make)
.DELETE_ON_ERROR:

ifeq ($(TRACE),1)
BUILD := build/trace
VTRACE := --trace-fst --trace-structs
ADAPTER_TRACE := --trace
TRACE_LIBS := -lz
else
BUILD := build
endif
GEN := build/gen
OBJ := $(BUILD)/obj
BIN := $(BUILD)/bin

VERILATOR_INC := /usr/share/verilator/include
RTL_DIRS := rtl/lib rtl/net rtl/mem rtl/host rtl/transport
RTL_SRCS := $(foreach d,rtl $(RTL_DIRS),$(wildcard $(d)/*.v))
# included inside modules (functions two of them share)
RTL_VH := $(foreach d,$(RTL_DIRS),$(wildcard $(d)/*.vh))
# the network blocks' models are built from these alone, so that core work does not rebuild them
NET_RTL_SRCS := $(wildcard rtl/lib/*.v rtl/net/*.v)
GEN_VH := $(GEN)/hroce_contract.vh $(GEN)/roce_icrc_tables.vh
GEN_H := $(GEN)/hroce_contract.h $(GEN)/req_msg.h

VFLAGS := --cc -Wall rtl/hroce.vlt -O3 --x-assign fast --x-initial fast $(addprefix -I,$(RTL_DIRS)) -I$(GEN)
# everything is position-independent: the verbs provider is a shared library holding the
# driver, the platform and the core's model
VCXXFLAGS := -std=gnu++14 -O2 -fPIC -faligned-new -fcf-protection=none -Wno-bool-operation \
	-I$(VERILATOR_INC) -I$(VERILATOR_INC)/vltstd -Isim/vmodel -DVM_TRACE=$(if $(VTRACE),1,0)
CFLAGS := -std=gnu11 -O2 -g -fPIC -Wall -Wextra -Werror -I$(GEN) -Isim/vmodel -Isim/wire -Itestbench/net \
	-Itestbench/lib
LDLIBS := -lstdc++ -lpthread -lm $(TRACE_LIBS)
# Objects of a tree built before a change of the flags above that make objects
# incompatible (-fPIC) are older than this stamp, so they are rebuilt: rename it when such
# a flag changes again.
FLAGS_STAMP := $(BUILD)/.flags-pic
$(FLAGS_STAMP):
	@mkdir -p $(BUILD) && touch $@

# ---------------------------------------------------------------------------------------
# Dependencies from Debian

DEPS_STAMP := build/.deps-ok
.PHONY: deps
deps:
	@scripts/install-deps.sh
$(DEPS_STAMP): scripts/install-deps.sh
	@scripts/install-deps.sh
	@mkdir -p build && touch $@

# ---------------------------------------------------------------------------------------
# Generated sources: the contract and the CRC tables

$(GEN)/hroce_contract.h $(GEN)/hroce_contract.vh &: contract/hroce.contract scripts/gen_contract.py | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	python3 scripts/gen_contract.py $< $(GEN)/hroce_contract.h $(GEN)/hroce_contract.vh

# the layout of req_tx's and req_ack's messages, for the benches that drive them
$(GEN)/req_msg.h: rtl/transport/req_msg.vh scripts/gen_msg_h.py | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	python3 scripts/gen_msg_h.py $< $@

$(GEN)/roce_icrc_tables.vh: scripts/gen_crc32.py | $(DEPS_STAMP)
	@mkdir -p $(GEN)
	python3 scripts/gen_crc32.py $@

# ---------------------------------------------------------------------------------------
# Verilated models: $(call model,NAME,TOP,PARAMS,SOURCES) makes $(OBJ)/NAME/model.a, a C-callable
# archive exporting vmodel_VNAME (see sim/vmodel/vmodel.h).

define model
$(OBJ)/$(1)/V$(1).h: $(4) $(RTL_VH) rtl/hroce.vlt $(GEN_VH) $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(OBJ)/$(1) && rm -f $(OBJ)/$(1)/*.o $(OBJ)/$(1)/*.a
	verilator $(VFLAGS) $(VTRACE) --prefix V$(1) --top-module $(2) $(3) -Mdir $(OBJ)/$(1) \
		$(4)
	@touch $$@
$(OBJ)/$(1)/V$(1)__ALL.a: $(OBJ)/$(1)/V$(1).h
	$(MAKE) -s -C $(OBJ)/$(1) -f V$(1).mk OPT_FAST=-O2 OPT=-fPIC V$(1)__ALL.a >/dev/null
$(OBJ)/$(1)/adapter.o: $(OBJ)/$(1)/V$(1).h scripts/gen_vadapter.py
	python3 scripts/gen_vadapter.py V$(1) $$< $(OBJ)/$(1)/adapter.cpp $(ADAPTER_TRACE)
	$(CXX) $(VCXXFLAGS) -I$(OBJ)/$(1) -c $(OBJ)/$(1)/adapter.cpp -o $$@
MODEL_$(1) := $(OBJ)/$(1)/adapter.o $(OBJ)/$(1)/V$(1)__ALL.a
endef

$(eval $(call model,roce_icrc_w64,roce_icrc,-GDATA_WIDTH=64,$(NET_RTL_SRCS)))
$(eval $(call model,roce_icrc_w512,roce_icrc,-GDATA_WIDTH=512,$(NET_RTL_SRCS)))
$(eval $(call model,roce_rx_w64,roce_rx,-GDATA_WIDTH=64,$(NET_RTL_SRCS)))
$(eval $(call model,roce_rx_w512,roce_rx,-GDATA_WIDTH=512,$(NET_RTL_SRCS)))
# headers before their ICRC verdict, as the core uses it
$(eval $(call model,roce_rx_early_w64,roce_rx,-GDATA_WIDTH=64 -GEARLY_HDR=1,$(NET_RTL_SRCS)))
$(eval $(call model,roce_rx_early_w512,roce_rx,-GDATA_WIDTH=512 -GEARLY_HDR=1,$(NET_RTL_SRCS)))
$(eval $(call model,roce_tx_w64,roce_tx,-GDATA_WIDTH=64,$(NET_RTL_SRCS)))
$(eval $(call model,roce_tx_w512,roce_tx,-GDATA_WIDTH=512,$(NET_RTL_SRCS)))
# with its trace port (a board's build ties it to zero)
$(eval $(call model,hroce_core,hroce_core,-GTRACE=1,$(RTL_SRCS)))
# ARP and ICMP echo, and the frame arbiter in front of the link (as the core has it: 5 sources)
$(eval $(call model,arp_w64,arp,-GDATA_WIDTH=64,$(NET_RTL_SRCS)))
$(eval $(call model,arp_w512,arp,-GDATA_WIDTH=512,$(NET_RTL_SRCS)))
$(eval $(call model,icmp_echo_w64,icmp_echo,-GDATA_WIDTH=64,$(NET_RTL_SRCS)))
$(eval $(call model,icmp_echo_w512,icmp_echo,-GDATA_WIDTH=512,$(NET_RTL_SRCS)))
$(eval $(call model,icmp6_echo_w64,icmp_echo,-GDATA_WIDTH=64 -GIPV6=1,$(NET_RTL_SRCS)))
$(eval $(call model,icmp6_echo_w512,icmp_echo,-GDATA_WIDTH=512 -GIPV6=1,$(NET_RTL_SRCS)))
# IPv6 neighbour discovery: its frames (nd), and nd beside the cache (nd_neigh)
$(eval $(call model,nd_w64,nd,-GDATA_WIDTH=64,$(NET_RTL_SRCS)))
$(eval $(call model,nd_w512,nd,-GDATA_WIDTH=512,$(NET_RTL_SRCS)))
$(eval $(call model,nd_neigh_w64,nd_neigh,-GDATA_WIDTH=64,$(NET_RTL_SRCS)))
$(eval $(call model,nd_neigh_w512,nd_neigh,-GDATA_WIDTH=512,$(NET_RTL_SRCS)))
$(eval $(call model,axis_frame_arb_w64,axis_frame_arb,-GDATA_WIDTH=64 -GS_COUNT=5,$(NET_RTL_SRCS)))
$(eval $(call model,axis_frame_arb_w512,axis_frame_arb,-GDATA_WIDTH=512 -GS_COUNT=5,$(NET_RTL_SRCS)))

VRUNTIME := $(addprefix $(OBJ)/runtime/,verilated.o verilated_threads.o \
	$(if $(VTRACE),verilated_fst_c.o))
$(OBJ)/runtime/%.o: $(VERILATOR_INC)/%.cpp $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(OBJ)/runtime
	$(CXX) $(VCXXFLAGS) -c $< -o $@

# ---------------------------------------------------------------------------------------
# C libraries and programs

WIRE_SRCS := sim/wire/roce_wire.c sim/wire/pcap.c sim/wire/roce_bus.c sim/wire/net_wire.c sim/wire/nd_wire.c
BENCH_SRCS := testbench/lib/bench.c testbench/lib/axis.c sim/vmodel/vmodel.c
C_HDRS = $(GEN_H) $(wildcard sim/*/*.h testbench/*/*.h host-driver/*.h provider/*.h)

$(OBJ)/c/%.o: %.c $(C_HDRS) $(FLAGS_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

cobjs = $(patsubst %.c,$(OBJ)/c/%.o,$(1))

# $(call program,NAME,C SOURCES,MODELS)
define program
$(BIN)/$(1): $(call cobjs,$(2)) $(foreach m,$(3),$(MODEL_$(m))) $(if $(3),$(VRUNTIME))
	@mkdir -p $(BIN)
	$(CC) -o $$@ $$^ $(LDLIBS)
PROGRAMS += $(BIN)/$(1)
endef

$(eval $(call program,test_wire,testbench/wire/test_wire.c testbench/net/roce_random.c testbench/net/roce_oracle.c $(WIRE_SRCS) testbench/lib/bench.c sim/vmodel/vmodel.c))
$(eval $(call program,test_icrc,testbench/net/test_icrc.c $(WIRE_SRCS) $(BENCH_SRCS),roce_icrc_w64 roce_icrc_w512))
$(eval $(call program,test_rx,testbench/net/test_rx.c testbench/net/roce_random.c $(WIRE_SRCS) $(BENCH_SRCS),roce_rx_w64 roce_rx_w512 \
	roce_rx_early_w64 roce_rx_early_w512))
$(eval $(call program,test_tx,testbench/net/test_tx.c testbench/net/roce_random.c testbench/net/roce_oracle.c $(WIRE_SRCS) $(BENCH_SRCS),roce_tx_w64 roce_tx_w512))

$(eval $(call program,test_icmp,testbench/net/test_icmp.c testbench/net/net_oracle.c $(WIRE_SRCS) $(BENCH_SRCS),icmp_echo_w64 icmp_echo_w512 icmp6_echo_w64 icmp6_echo_w512))
$(eval $(call program,test_nd,testbench/net/test_nd.c $(WIRE_SRCS) $(BENCH_SRCS),nd_w64 nd_w512))
$(eval $(call program,test_nd_neigh,testbench/net/test_nd_neigh.c $(WIRE_SRCS) $(BENCH_SRCS),nd_neigh_w64 nd_neigh_w512))
$(eval $(call program,test_arp,testbench/net/test_arp.c testbench/net/net_oracle.c $(WIRE_SRCS) $(BENCH_SRCS),arp_w64 arp_w512))
$(eval $(call program,test_frame_arb,testbench/net/test_frame_arb.c $(WIRE_SRCS) $(BENCH_SRCS),axis_frame_arb_w64 axis_frame_arb_w512))

$(eval $(call program,hroce-pcap,sim/tools/hroce-pcap.c sim/vmodel/vmodel.c $(WIRE_SRCS),roce_rx_w64 roce_rx_w512 roce_tx_w64 roce_tx_w512))
$(eval $(call program,bench_net,testbench/net/bench_net.c testbench/net/roce_random.c $(WIRE_SRCS) $(BENCH_SRCS),roce_rx_w64 roce_rx_w512 roce_tx_w64 roce_tx_w512))
$(eval $(call program,test_hroce_pcap,testbench/tools/test_hroce_pcap.c testbench/net/roce_oracle.c $(WIRE_SRCS) testbench/lib/bench.c sim/vmodel/vmodel.c))
$(BIN)/test_hroce_pcap: | $(BIN)/hroce-pcap

# libhroce-sim (sim/platform/hroce_sim.h): simulated NICs around the core's model, or around
# the board shell's with the core inside (model = shell: its flash and ICAP models too). A
# program that simulates NICs links $(HROCE_SIM_LIBS): the library, the two models (the
# shell's is MODEL_fw_shell of testbench/firmware/bench.mk, included below), the runtime.
SIM_PLATFORM_SRCS := $(wildcard sim/platform/*.c) sim/vmodel/vmodel.c sim/wire/pcap.c sim/wire/roce_wire.c \
	sim/firmware/flash_model.c sim/firmware/icap_model.c sim/firmware/fw_sim.c
LIBHROCE_SIM := $(BUILD)/lib/libhroce-sim.a
HROCE_SIM_LIBS := $(LIBHROCE_SIM) $(MODEL_hroce_core) $(OBJ)/fw_shell/adapter.o \
	$(OBJ)/fw_shell/Vfw_shell__ALL.a $(VRUNTIME)
$(OBJ)/c/sim/platform/%.o $(OBJ)/c/testbench/sim/%.o: CFLAGS += -Isim/platform -Isim/firmware
$(LIBHROCE_SIM): $(call cobjs,$(SIM_PLATFORM_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^
$(BIN)/test_sim: $(call cobjs,testbench/sim/test_sim.c testbench/net/roce_random.c \
		testbench/lib/bench.c) $(HROCE_SIM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_sim
# the fault model of links and wires on its own
$(eval $(call program,test_faults,testbench/sim/test_faults.c sim/platform/sim_faults.c \
	sim/wire/roce_wire.c testbench/net/roce_random.c testbench/lib/bench.c sim/vmodel/vmodel.c))
# the page checks and pinning of application memory, alone
$(eval $(call program,test_pin,testbench/sim/test_pin.c $(addprefix sim/platform/,sim_pin.c \
	sim_iommu.c sim_log.c) testbench/lib/bench.c sim/vmodel/vmodel.c))

# ---------------------------------------------------------------------------------------
# Block benches of the core's blocks: models built from rtl/lib and rtl/mem only, so that
# work on the engines does not rebuild them.

MEM_RTL_SRCS := $(wildcard rtl/lib/*.v rtl/mem/*.v)
# the core's blocks, at the product width only
CORE_LINT_TOPS := hroce_core host_regs cmd_engine inval_fanout req_engine resp_engine rx_dispatch tx_arbiter retry_timer \
	cq_writer ctx_cache resp_tx mr_arb fifo_commit stat_counters neigh_cache neigh_engine
$(OBJ)/c/testbench/mem/%.o: CFLAGS += -Isim/platform -Itestbench/mem
BLOCK_TESTS :=

# @@dma@@
# dma_rd (3 aligned, 3 stream clients) and dma_wr (clients of ALIGN_LOG 0, 5 and 6, with
# buffers of 8 to 128 beats), which test_dma runs behind the PCIe host-memory model; the
# tiny ones have the smallest buffers and the fewest bursts in flight, to stress the
# credits and the cutting of bursts
DMA_RD_PARAMS := -GCLIENTS=6 -GSTREAM=6\'b111000
DMA_WR_PARAMS := -GCLIENTS=6 -GALIGN_LOG=18\'o665500
$(eval $(call model,dma_rd_t,dma_rd,$(DMA_RD_PARAMS),$(MEM_RTL_SRCS)))
$(eval $(call model,dma_rd_tiny,dma_rd,$(DMA_RD_PARAMS) -GSTREAM_BUF_ADDR_WIDTH=5 \
	-GALIGNED_BUF_ADDR_WIDTH=1 -GBURST_ADDR_WIDTH=1,$(MEM_RTL_SRCS)))
$(eval $(call model,dma_wr_t,dma_wr,$(DMA_WR_PARAMS) -GBUF_ADDR_WIDTH=24\'h737457,$(MEM_RTL_SRCS)))
$(eval $(call model,dma_wr_tiny,dma_wr,$(DMA_WR_PARAMS) -GBUF_ADDR_WIDTH=24\'h524232 \
	-GBURST_ADDR_WIDTH=1 -GCMD_ADDR_WIDTH=1,$(MEM_RTL_SRCS)))
DMA_SIM_SRCS := $(addprefix sim/platform/,sim_pcie.c sim_iommu.c sim_bus.c sim_log.c)
$(eval $(call program,test_dma,testbench/mem/test_dma.c $(DMA_SIM_SRCS) $(BENCH_SRCS),\
	dma_rd_t dma_rd_tiny dma_wr_t dma_wr_tiny))
BLOCK_TESTS += test_dma
CORE_LINT_TOPS += dma_rd dma_wr

# @@mr@@
# mr_translate: the product caches, and tiny ones with short pieces to force conflicts
MR_TINY_PARAMS := -GCTX_CACHE_LOG=1 -GPT_CACHE_LOG=1 -GMAX_PIECE_LOG=12
$(eval $(call model,mr_translate,mr_translate,,$(MEM_RTL_SRCS)))
$(eval $(call model,mr_translate_tiny,mr_translate,$(MR_TINY_PARAMS),$(MEM_RTL_SRCS)))
$(eval $(call program,test_mr,testbench/mem/test_mr.c testbench/lib/bench.c \
	sim/vmodel/vmodel.c,mr_translate mr_translate_tiny))
BLOCK_TESTS += test_mr
CORE_LINT_TOPS += mr_translate

# @@db_pages@@
# the doorbell pages: pushed WQEs, malformed writes, back-pressure and hold
$(eval $(call model,db_pages,db_pages,,$(wildcard rtl/lib/*.v) rtl/host/db_pages.v))
$(eval $(call program,test_db_pages,testbench/host/test_db_pages.c $(BENCH_SRCS),db_pages))
BLOCK_TESTS += test_db_pages
CORE_LINT_TOPS += db_pages

# @@ctx@@
# ctx_cache: caches of a few sets over a table of 4096 entries, so that most lookups miss
# and most misses evict: a QP-context-like one of 2 ways (the owned bytes in the last beat
# but one), one of 4 ways, and a CQ-context-like one (one beat, all of it owned)
CTX_QP_PARAMS := -GLINE_BYTES=256 -GWB_BYTES=32
$(eval $(call model,ctx_cache_qp2,ctx_cache,$(CTX_QP_PARAMS) -GWB_OFFSET=160 -GCACHE_LOG=4 \
	-GWAY_LOG=1,$(MEM_RTL_SRCS)))
$(eval $(call model,ctx_cache_qp4,ctx_cache,$(CTX_QP_PARAMS) -GWB_OFFSET=128 -GCACHE_LOG=3 \
	-GWAY_LOG=2,$(MEM_RTL_SRCS)))
$(eval $(call model,ctx_cache_cq2,ctx_cache,-GLINE_BYTES=64 -GWB_OFFSET=0 -GWB_BYTES=64 \
	-GCACHE_LOG=2 -GWAY_LOG=1,$(MEM_RTL_SRCS)))
$(eval $(call program,test_ctx,testbench/mem/test_ctx.c testbench/lib/bench.c \
	sim/vmodel/vmodel.c,ctx_cache_qp2 ctx_cache_qp4 ctx_cache_cq2))
BLOCK_TESTS += test_ctx

# @@transport@@ the transport's stages alone
include testbench/transport/bench.mk

# @@firmware@@ (begin) -- the board shell, its benches, the flash tool and the board builds
include testbench/firmware/bench.mk
# @@firmware@@ (end)

# ---------------------------------------------------------------------------------------
# libhroce (host-driver/hroce.h): the host driver. Only its sim backend uses sim/.

LIBHROCE_SRCS := $(wildcard host-driver/*.c)
LIBHROCE := $(BUILD)/lib/libhroce.a
$(OBJ)/c/host-driver/%.o: CFLAGS += -Isim/platform -Ihost-driver
$(LIBHROCE): $(call cobjs,$(LIBHROCE_SRCS))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

# System benches: NICs in one process, driven through libhroce
$(OBJ)/c/testbench/system/%.o: CFLAGS += -Isim/platform -Ihost-driver -Itestbench/system
SYSTEM_LIBS := $(LIBHROCE) $(HROCE_SIM_LIBS)
$(BIN)/test_rc: $(call cobjs,testbench/system/test_rc.c testbench/system/rc_env.c \
		testbench/lib/bench.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_rc
$(BIN)/test_ipv6: $(call cobjs,testbench/system/test_ipv6.c testbench/system/rc_env.c \
		testbench/lib/bench.c sim/wire/roce_wire.c sim/wire/pcap.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_ipv6
$(OBJ)/c/testbench/system/lat_perftest.o: CFLAGS += -Itestbench/e2e
$(BIN)/hroce-lat: $(call cobjs,testbench/system/hroce_lat.c testbench/system/rc_env.c \
		testbench/system/lat_points.c testbench/system/lat_perftest.c \
		testbench/e2e/e2e_proc.c testbench/lib/bench.c) $(SYSTEM_LIBS) | $(BIN)/hroce-run
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS) -lm
PROGRAMS += $(BIN)/hroce-lat
$(BIN)/test_hroce_lat: $(call cobjs,testbench/system/test_hroce_lat.c testbench/lib/bench.c) \
		$(SYSTEM_LIBS) | $(BIN)/hroce-lat
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_hroce_lat
$(BIN)/test_trace: $(call cobjs,testbench/system/test_trace.c testbench/system/rc_env.c \
		testbench/system/lat_points.c testbench/lib/bench.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_trace
$(BIN)/test_retry: $(call cobjs,testbench/system/test_retry.c testbench/system/rc_env.c \
		testbench/lib/bench.c sim/wire/roce_wire.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_retry
$(BIN)/test_net: $(call cobjs,testbench/system/test_net.c testbench/system/rc_env.c \
		testbench/lib/bench.c testbench/net/net_oracle.c sim/wire/net_wire.c sim/wire/nd_wire.c) \
		$(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_net
$(BIN)/test_cq_overrun: $(call cobjs,testbench/system/test_cq_overrun.c testbench/system/rc_env.c \
		testbench/lib/bench.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_cq_overrun
$(BIN)/bench_rc: $(call cobjs,testbench/system/bench_rc.c testbench/system/rc_env.c \
		testbench/system/lat_points.c testbench/lib/bench.c sim/wire/roce_wire.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/bench_rc

# libhroce's vfio backend up to where a machine without VFIO can take it (the library
# links the sim backend, hence the simulation libraries)
$(OBJ)/c/testbench/host/%.o: CFLAGS += -Ihost-driver
$(BIN)/test_vfio: $(call cobjs,testbench/host/test_vfio.c testbench/lib/bench.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_vfio

# Simulated NICs the way applications get them: the configuration, NICs that hroce_open
# creates and runs in a thread, shared-memory wires between processes
$(OBJ)/c/testbench/sim/test_config.o $(OBJ)/c/testbench/sim/test_simrun.o: CFLAGS += -Ihost-driver
$(BIN)/test_config: $(call cobjs,testbench/sim/test_config.c testbench/lib/bench.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_config
$(BIN)/test_simrun: $(call cobjs,testbench/sim/test_simrun.c testbench/lib/bench.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_simrun
# a NIC of model = shell (the board shell with the core inside) through libhroce, against a
# core NIC on a link; its speed beside a core NIC's, and the shell's MAC RX FIFO under load
$(OBJ)/c/testbench/sim/test_shell_nic.o: CFLAGS += -Ihost-driver -Itestbench/system -Ifirmware/tool
$(BIN)/test_shell_nic: $(call cobjs,testbench/sim/test_shell_nic.c testbench/system/rc_env.c \
		firmware/tool/fw_flash.c testbench/lib/bench.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_shell_nic
# the external port alone: a simulated NIC on a UDP socket, this test at the other end
$(OBJ)/c/testbench/sim/test_port.o: CFLAGS += -Ihost-driver
$(BIN)/test_port: $(call cobjs,testbench/sim/test_port.c testbench/lib/bench.c \
		sim/wire/net_wire.c sim/wire/nd_wire.c) $(SYSTEM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_port

# ---------------------------------------------------------------------------------------
# The verbs provider (provider/): libhroce-verbs.so, preloaded by hroce-run into unmodified
# verbs programs; it holds libhroce, and for simulated NICs libhroce-sim and the core

PROVIDER_SRCS := $(wildcard provider/*.c)
LIBHROCE_VERBS := $(BUILD)/lib/libhroce-verbs.so
$(OBJ)/c/provider/%.o: CFLAGS += -Ihost-driver -fvisibility=hidden
$(LIBHROCE_VERBS): $(call cobjs,$(PROVIDER_SRCS)) $(LIBHROCE) $(HROCE_SIM_LIBS) provider/verbs.map
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ -Wl,--version-script=provider/verbs.map -Wl,--no-undefined \
		$(filter %.o %.a,$^) $(LDLIBS) -ldl
$(BIN)/hroce-run: provider/hroce-run | $(LIBHROCE_VERBS)
	@mkdir -p $(BIN)
	install -m 755 $< $@
PROGRAMS += $(LIBHROCE_VERBS) $(BIN)/hroce-run

# End to end: Debian's perftest and ibverbs-utils through hroce-run, two processes
$(BIN)/test_perftest: $(call cobjs,testbench/e2e/test_perftest.c testbench/e2e/e2e_proc.c \
		testbench/lib/bench.c sim/vmodel/vmodel.c) \
		| $(BIN)/hroce-run
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_perftest

# Lockstep: a perftest pair run twice, its pcaps compared
$(BIN)/test_lockstep: $(call cobjs,testbench/e2e/test_lockstep.c testbench/e2e/e2e_proc.c \
		testbench/lib/bench.c sim/vmodel/vmodel.c sim/wire/pcap.c) \
		| $(BIN)/hroce-run
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_lockstep

# Bad input through the real libibverbs API: verbs programs run under hroce-run with two
# simulated NICs in one process, each driven by a test (testbench/e2e/verbs_run.c)
VERBS_PAIR_SRCS := testbench/e2e/verbs_pair.c
$(OBJ)/c/testbench/e2e/verbs_%.o $(OBJ)/c/testbench/e2e/test_%.o: CFLAGS += -Itestbench/e2e
define verbs_test
$(BIN)/$(1): $(call cobjs,testbench/e2e/$(1).c $(VERBS_PAIR_SRCS))
	@mkdir -p $(BIN)
	$(CC) -o $$@ $$^ -libverbs
$(BIN)/test_$(1): testbench/e2e/verbs_run.c $(FLAGS_STAMP) | $(BIN)/$(1) $(BIN)/hroce-run
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -DVERBS_PROG='"$(1)"' -o $$@ $$<
PROGRAMS += $(BIN)/$(1) $(BIN)/test_$(1)
endef
$(eval $(call verbs_test,verbs_attr))
$(eval $(call verbs_test,verbs_cq_overrun))
# threads posting at once on their own queues, and on a shared CQ
$(eval $(call verbs_test,verbs_threads))
# End to end: a verbs program of bad input (libibverbs only: hroce-run brings the rest),
# and its driver, which runs it against two simulated NICs in one process
$(BIN)/badinput_verbs: $(call cobjs,testbench/e2e/badinput_verbs.c)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ -libverbs
$(BIN)/test_badinput: $(call cobjs,testbench/e2e/test_badinput.c testbench/e2e/e2e_proc.c \
		testbench/lib/bench.c sim/vmodel/vmodel.c) | $(BIN)/hroce-run $(BIN)/badinput_verbs
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/badinput_verbs $(BIN)/test_badinput

# @@interop-guest@@
# The Linux Soft-RoCE peer (testbench/interop/): Debian's kernel, its rdma_rxe and a small
# initramfs with rdma-core and perftest, booted in QEMU by testbench/interop/rxe-guest
INTEROP := build/interop
.PHONY: interop-guest interop-selftest
interop-guest: $(BIN)/rkey_probe | $(DEPS_STAMP)
	@testbench/interop/build-initramfs.sh $(INTEROP) $(BIN)/rkey_probe
# a wrong R_Key, from either side (libibverbs only: for the guest, and for hroce-run)
$(BIN)/rkey_probe: testbench/interop/rkey_probe.c | $(DEPS_STAMP)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $< -libverbs
PROGRAMS += $(BIN)/rkey_probe
# two rxe guests on one link, no HardRoCE: ibv_rc_pingpong, ib_write_bw, every ICRC checked
interop-selftest: interop-guest
	@testbench/interop/selftest.sh $(INTEROP)/selftest
# the independent ICRC check of the interop captures, tested on testbench/data
$(eval $(call program,test_icrc_check,testbench/interop/test_icrc_check.c sim/wire/pcap.c \
	testbench/lib/bench.c sim/vmodel/vmodel.c))
# @@interop-guest@@ end

# Interop with Linux Soft-RoCE: our NIC under hroce-run, its port a UDP socket, and an rxe
# guest on the other end; both directions, unmodified tools (testbench/interop/test_interop.c)
$(OBJ)/c/testbench/interop/test_interop.o: CFLAGS += -Itestbench/e2e
$(BIN)/test_interop: $(call cobjs,testbench/interop/test_interop.c testbench/e2e/e2e_proc.c \
		sim/wire/pcap.c sim/wire/roce_wire.c testbench/lib/bench.c sim/vmodel/vmodel.c) \
		| $(BIN)/hroce-run $(BIN)/hroce-pcap $(BIN)/rkey_probe $(INTEROP)/initramfs.cpio.gz
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS)
PROGRAMS += $(BIN)/test_interop
$(INTEROP)/initramfs.cpio.gz: testbench/interop/build-initramfs.sh testbench/interop/get-kernel.sh \
		testbench/interop/guest-init $(BIN)/rkey_probe | $(DEPS_STAMP)
	@testbench/interop/build-initramfs.sh $(INTEROP) $(BIN)/rkey_probe
.PHONY: interop
interop: $(BIN)/test_interop
	@$(BIN)/test_interop

# Tests in the order they run; each prints "ok NAME" / "not ok NAME: why" lines.
TESTS := test_wire test_icrc test_rx test_tx test_hroce_pcap test_arp test_icmp test_nd test_nd_neigh
TESTS += test_frame_arb
TESTS += $(BLOCK_TESTS)
TESTS += test_vfio test_pin test_sim test_faults test_rc test_ipv6 test_trace test_hroce_lat test_retry test_net test_config test_simrun test_port
TESTS += test_shell_nic
TESTS += test_perftest test_lockstep test_badinput test_cq_overrun test_verbs_attr test_verbs_cq_overrun
TESTS += test_verbs_threads
TESTS += $(FW_TESTS) # @@firmware@@
TESTS += test_icrc_check test_interop

.PHONY: all test lint synth bench demo demo-pcap clean check-valgrind soak soak-manyqp
all: $(PROGRAMS)

test: lint all
	@testbench/run-tests.sh $(BIN) $(TESTS)

# badinput_verbs under valgrind (registrations, pages gone behind MRs, sizes, a QP pair): 0 errors
check-valgrind: all
	@command -v valgrind >/dev/null || { echo "check-valgrind: install valgrind"; exit 1; }
	@$(BIN)/test_badinput --valgrind

# ---------------------------------------------------------------------------------------
# Lint: Verilator -Wall and Icarus on every top at both widths, clang-format, cppcheck

LINT_TOPS := roce_icrc roce_rx roce_tx arp arp_rx arp_tx icmp_echo nd nd_neigh axis_frame_arb
C_LINT := $(filter-out $(GEN)/%,$(wildcard sim/*/*.[ch] testbench/*/*.[ch] host-driver/*.[ch] \
	provider/*.[ch]))

# the C checks run on the second core beside the RTL's (each alone takes a third of the time)
lint: $(GEN_VH) $(GEN_H)
	@set -e; clog=$$(mktemp); trap 'kill $$cpid 2>/dev/null || true; rm -f $$clog' EXIT; \
	{ clang-format --dry-run --Werror $(C_LINT) && \
	  cppcheck -q --error-exitcode=1 --enable=warning,portability --inline-suppr \
		-I$(GEN) -Isim/vmodel -Isim/wire -Isim/platform -Ihost-driver -Itestbench/lib \
		-Itestbench/system -Iprovider $(C_LINT); } >$$clog 2>&1 & cpid=$$!; \
	for top in $(LINT_TOPS); do for w in 64 512; do \
		verilator --lint-only -Wall rtl/hroce.vlt $(addprefix -I,$(RTL_DIRS)) -I$(GEN) \
			--top-module $$top -GDATA_WIDTH=$$w $(RTL_SRCS); \
		iverilog -g2005 -Wall -Wno-timescale -o /dev/null $(addprefix -I,$(RTL_DIRS)) -I$(GEN) \
			-s $$top -P$$top.DATA_WIDTH=$$w $(RTL_SRCS); \
	done; done; \
	for top in $(CORE_LINT_TOPS); do \
		verilator --lint-only -Wall rtl/hroce.vlt $(addprefix -I,$(RTL_DIRS)) -I$(GEN) \
			--top-module $$top $(RTL_SRCS); \
		iverilog -g2005 -Wall -Wno-timescale -o /dev/null $(addprefix -I,$(RTL_DIRS)) -I$(GEN) \
			-s $$top $(RTL_SRCS); \
	done; \
	if wait $$cpid; then cat $$clog; else cat $$clog; exit 1; fi
	@echo "lint: clean ($(words $(LINT_TOPS)) tops x 2 widths, $(words $(CORE_LINT_TOPS)) core tops, $(words $(C_LINT)) C files)"

clean:
	rm -rf build


# the long run of reliable delivery: 16 QPs, 100 000 messages of 0 B to 1 MiB mixed, over a
# link that loses (1 %, and bursts), flips, duplicates and reorders (about an hour)
soak: $(BIN)/test_rc
	HROCE_SOAK=100000 $(BIN)/test_rc

# the lossy random mix (5 QP pairs both ways, 16 messages each way) from fresh NICs, 200
# times, each run a seed of its own that replays alone (about 15 minutes)
soak-lossy: $(BIN)/test_rc
	HROCE_LOSSY_RUNS=200 $(BIN)/test_rc

# the many-QP random mix, bigger: 2000 QP pairs (more than the QP context caches' lines),
# both ways, 8 messages each way on each (about 10 minutes)
soak-manyqp: $(BIN)/test_rc
	HROCE_MANYQP=2000 HROCE_MANYQP_OPS=8 $(BIN)/test_rc

bench: $(BIN)/bench_net $(BIN)/bench_rc $(BIN)/hroce-run $(LIBHROCE_VERBS) $(BIN)/hroce-pcap | $(DEPS_STAMP)
	@$(BIN)/bench_net
	@$(BIN)/bench_rc
	@echo "The simulator's speed: ib_write_bw, 64 KiB, between two processes (make demo's first run)"
	@scripts/demo.sh $(BIN) build/bench-speed write_bw

synth: $(GEN_VH) | $(DEPS_STAMP)
	@scripts/synth.sh build/synth roce_icrc:64 roce_icrc:512 roce_rx:64 roce_rx:512 roce_tx:64 roce_tx:512 \
		arp:64 arp:512 neigh_cache:- icmp_echo:64 icmp_echo:512 icmp_echo:64:IPV6=1 icmp_echo:512:IPV6=1 \
		nd:64 nd:512 nd_neigh:64 nd_neigh:512 \
		axis_frame_arb:64 axis_frame_arb:512
	@scripts/synth_core.sh build/synth/core


# the main job: Debian's perftest through hroce-run, two processes, two simulated NICs
demo: $(BIN)/hroce-run $(LIBHROCE_VERBS) $(BIN)/hroce-pcap | $(DEPS_STAMP)
	@scripts/demo.sh $(BIN) build/demo

demo-pcap: $(BIN)/hroce-pcap
	@mkdir -p build/demo
	$(BIN)/hroce-pcap generate --frames 74 build/demo/rtl-tx.pcap
	$(BIN)/hroce-pcap check build/demo/rtl-tx.pcap
	@if ls ../shared/pcap/*.pcap >/dev/null 2>&1; then \
		echo "$(BIN)/hroce-pcap check ../shared/pcap/*.pcap"; \
		$(BIN)/hroce-pcap check ../shared/pcap/*.pcap; \
	fi
