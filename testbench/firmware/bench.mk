# Benches of the board shell (firmware/rtl) and the flash tool: their models and programs.
# Included by the top Makefile.

# the shell's blocks alone (no core: work on the core does not rebuild them), and the shell
FW_VLT := firmware/rtl/firmware.vlt
FW_BLOCK_SRCS := $(filter-out firmware/rtl/hroce_shell.v,$(wildcard firmware/rtl/*.v))
FW_SHELL_SRCS := $(wildcard firmware/rtl/*.v) $(RTL_SRCS)
FW_SIM_SRCS := sim/firmware/flash_model.c sim/firmware/icap_model.c sim/firmware/fw_sim.c \
	firmware/tool/fw_flash.c
$(OBJ)/c/testbench/firmware/%.o $(OBJ)/c/sim/firmware/%.o $(OBJ)/c/firmware/%.o: CFLAGS += \
	-Isim/firmware -Ifirmware/tool

# the board register block with the SPI controller and the reload (a small SCK divider)
$(eval $(call model,fw_board,board_regs,$(FW_VLT) -GSPI_DIV_DEFAULT=0 \
	-GGIT_HASH=32\'h1234abcd -GBUILD_STAMP=32\'d1700000000,$(FW_BLOCK_SRCS)))
# and as the board builds it: ICAPE3 clocked at half the rate, each word held two cycles
$(eval $(call model,fw_board_icap2,board_regs,$(FW_VLT) -GICAP_WORD_CYCLES=2,$(FW_BLOCK_SRCS)))
$(eval $(call program,test_fw_board,testbench/firmware/test_fw_board.c $(FW_SIM_SRCS) \
	$(BENCH_SRCS),fw_board fw_board_icap2))

# the MAC FIFOs: RX (drops whole frames) and TX (holds the writer back), small and 64-bit
$(eval $(call model,fw_fifo_rx,axis_async_frame_fifo,$(FW_VLT) -GDATA_WIDTH=64 -GDEPTH_LOG=5 \
	-GDROP_WHEN_FULL=1,$(FW_BLOCK_SRCS)))
$(eval $(call model,fw_fifo_tx,axis_async_frame_fifo,$(FW_VLT) -GDATA_WIDTH=64 -GDEPTH_LOG=5 \
	-GDROP_WHEN_FULL=0,$(FW_BLOCK_SRCS)))
$(eval $(call program,test_fw_mac_fifo,testbench/firmware/test_fw_mac_fifo.c $(BENCH_SRCS),\
	fw_fifo_rx fw_fifo_tx))

$(eval $(call model,fw_msix,msix_table,$(FW_VLT),$(FW_BLOCK_SRCS)))
$(eval $(call program,test_fw_msix,testbench/firmware/test_fw_msix.c testbench/firmware/fw_axil.c \
	$(BENCH_SRCS),fw_msix))

# the whole shell with the core inside, and the BAR0 bridge alone (to see the core's side)
$(eval $(call model,fw_shell,hroce_shell,$(FW_VLT),$(FW_SHELL_SRCS)))
$(eval $(call model,fw_bridge,axil_reg_bridge,$(FW_VLT),$(FW_BLOCK_SRCS)))
# the core's AXI4 master goes to the platform's host-memory model
$(OBJ)/c/testbench/firmware/test_fw_shell.o: CFLAGS += -Isim/platform
$(eval $(call program,test_fw_shell,testbench/firmware/test_fw_shell.c \
	testbench/firmware/fw_axil.c $(FW_SIM_SRCS) $(DMA_SIM_SRCS) $(BENCH_SRCS),fw_shell fw_bridge))

# the board top's split of the bridge's BAR master: register path and doorbell pages
$(eval $(call model,fw_db_split,axi_db_split,$(FW_VLT),$(FW_BLOCK_SRCS)))
$(eval $(call program,test_fw_db_split,testbench/firmware/test_fw_db_split.c $(BENCH_SRCS),\
	fw_db_split))

FW_TESTS := test_fw_board test_fw_mac_fifo test_fw_msix test_fw_shell test_fw_db_split

# The flash tool: libpci for boards, libhroce's bus (VFIO, or a simulated NIC: libhroce-sim,
# which also holds the flash and ICAP models), the board block's model for sim: devices
FW_TOOL_SRCS := $(addprefix firmware/tool/,hroce-fw.c fw_flash.c fw_image.c fw_pci.c)
$(OBJ)/c/firmware/tool/hroce-fw.o: CFLAGS += -Ihost-driver
# (libhroce by its path: this file is included before the top Makefile names it)
$(BIN)/hroce-fw: $(call cobjs,$(FW_TOOL_SRCS)) $(MODEL_fw_board) $(BUILD)/lib/libhroce.a \
		$(HROCE_SIM_LIBS)
	@mkdir -p $(BIN)
	$(CC) -o $@ $^ $(LDLIBS) -lpci
PROGRAMS += $(BIN)/hroce-fw
$(eval $(call program,test_fw_tool,testbench/firmware/test_fw_tool.c $(BENCH_SRCS)))
$(BIN)/test_fw_tool: | $(BIN)/hroce-fw
FW_TESTS += test_fw_tool

# Lint of the shell's RTL (every block, and the shell with the core) and of the tool's C;
# sim/firmware and testbench/firmware are in the top lint's C files already
FW_LINT_TOPS := axil_reg_bridge board_regs spi_flash_ctrl icap_reload axis_async_frame_fifo \
	msix_table axil_bar_split axi_db_split
FW_C_LINT := $(wildcard firmware/tool/*.[ch])
.PHONY: lint-firmware
lint: lint-firmware
lint-firmware: $(GEN_VH) $(GEN_H)
	@set -e; for top in $(FW_LINT_TOPS); do \
		verilator --lint-only -Wall $(FW_VLT) --top-module $$top $(FW_BLOCK_SRCS); \
		iverilog -g2005 -Wall -Wno-timescale -o /dev/null -s $$top $(FW_BLOCK_SRCS); \
	done
	@verilator --lint-only -Wall rtl/hroce.vlt $(FW_VLT) $(addprefix -I,$(RTL_DIRS)) -I$(GEN) \
		--top-module hroce_shell $(FW_SHELL_SRCS)
	@iverilog -g2005 -Wall -Wno-timescale -o /dev/null $(addprefix -I,$(RTL_DIRS)) -I$(GEN) \
		-s hroce_shell $(FW_SHELL_SRCS)
	@verilator --lint-only -Wall rtl/hroce.vlt $(FW_VLT) firmware/stubs/stubs.vlt \
		firmware/boards/common/board.vlt $(addprefix -I,$(RTL_DIRS)) -I$(GEN) \
		--top-module hroce_board_top firmware/boards/common/hroce_board_top.v \
		firmware/stubs/*.v $(FW_SHELL_SRCS)
	@clang-format --dry-run --Werror $(FW_C_LINT)
	@cppcheck -q --error-exitcode=1 --enable=warning,portability --inline-suppr \
		-I$(GEN) -Isim/vmodel -Isim/firmware -Ifirmware/tool $(FW_C_LINT) \
		$(wildcard sim/firmware/*.[ch] testbench/firmware/*.[ch])
	@echo "lint-firmware: clean ($(words $(FW_LINT_TOPS)) blocks, the shell, the board top, $(words $(FW_C_LINT)) tool files)"

# The boards: Yosys figures of the shell, and the Vivado build (where Vivado is installed)
BOARD ?= u200
GIT_HASH ?= $(shell git rev-parse --short=8 HEAD 2>/dev/null || echo 00000000)
.PHONY: synth-shell board
synth-shell: $(GEN_VH) | $(DEPS_STAMP)
	@scripts/synth_shell.sh build/synth/shell
board: $(GEN_VH)
	@command -v vivado >/dev/null || { echo "make board: Vivado is not on PATH (see README:" \
		"Running on a board)"; exit 1; }
	vivado -mode batch -nojournal -log build/board/$(BOARD)/vivado.log \
		-source firmware/boards/common/build.tcl \
		-tclargs firmware/boards/$(BOARD) build/board/$(BOARD) $(GEN) $(GIT_HASH) \
		$(shell date +%s)

# Every board top against the stubs, the build scripts under tclsh, the shell through Yosys
$(eval $(call program,test_fw_boards,testbench/firmware/test_fw_boards.c $(BENCH_SRCS)))
$(BIN)/test_fw_boards: | $(GEN_VH)
FW_TESTS += test_fw_boards
