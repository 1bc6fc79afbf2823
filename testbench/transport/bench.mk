# Benches of the transport's stages, each alone against a C model. Included by the top
# Makefile. Their models are built from rtl/lib and the stage's own file, so that work on
# the engines does not rebuild them.

# sg_walk: the scatter-gather walker (SGE list -> MR translation -> DMA chunks)
$(eval $(call model,sg_walk,sg_walk,,$(wildcard rtl/lib/*.v) rtl/transport/sg_walk.v))
$(eval $(call program,test_sg_walk,testbench/transport/test_sg_walk.c \
	testbench/transport/walk_model.c $(BENCH_SRCS),sg_walk))
BLOCK_TESTS += test_sg_walk
CORE_LINT_TOPS += sg_walk

# wqe_info: the requester's facts of the WQEs it sent, at the core's size and tiny (16
# entries: lines taken by other WQEs all the time)
$(eval $(call model,wqe_info,wqe_info,,rtl/transport/wqe_info.v))
$(eval $(call model,wqe_info_tiny,wqe_info,-GADDR_WIDTH=4,rtl/transport/wqe_info.v))
$(eval $(call program,test_wqe_info,testbench/transport/test_wqe_info.c $(BENCH_SRCS),\
	wqe_info wqe_info_tiny))
BLOCK_TESTS += test_wqe_info
CORE_LINT_TOPS += wqe_info

# rx_dispatch: headers before their ICRC verdict, the verdicts, the payloads of good frames
$(eval $(call model,rx_dispatch,rx_dispatch,,$(wildcard rtl/lib/*.v) rtl/net/ip6_ours.v \
	rtl/transport/rx_dispatch.v))
$(eval $(call program,test_rx_dispatch,testbench/transport/test_rx_dispatch.c $(WIRE_SRCS) \
	$(BENCH_SRCS),rx_dispatch))
BLOCK_TESTS += test_rx_dispatch
CORE_LINT_TOPS += rx_dispatch

# fifo_merge: the FIFO of req_tx's messages to req_ack, a waiting word replaced by a newer
# one of its key
$(eval $(call model,fifo_merge,fifo_merge,-GWIDTH=16 -GKEY_WIDTH=4 -GADDR_WIDTH=3,\
	rtl/lib/fifo_merge.v))
$(eval $(call program,test_fifo_merge,testbench/transport/test_fifo_merge.c $(BENCH_SRCS),\
	fifo_merge))
BLOCK_TESTS += test_fifo_merge
CORE_LINT_TOPS += fifo_merge

# req_ack: the requester's acknowledging engine (CQEs, rewinds, timers, READ placement),
# against a C requester, responder and lossy wire
$(eval $(call model,req_ack,req_ack,,$(wildcard rtl/lib/*.v) rtl/transport/sg_walk.v \
	rtl/transport/req_ack.v))
$(eval $(call program,test_req_ack,testbench/transport/test_req_ack.c $(BENCH_SRCS),req_ack))
BLOCK_TESTS += test_req_ack
CORE_LINT_TOPS += req_ack

# rq_db_merge: the responder's RQ doorbells merged by QP, at the core's size and tiny (4
# entries: full most of the time)
$(eval $(call model,rq_db_merge,rq_db_merge,,rtl/transport/rq_db_merge.v))
$(eval $(call model,rq_db_merge_tiny,rq_db_merge,-GLOG=2,rtl/transport/rq_db_merge.v))
$(eval $(call program,test_rq_db_merge,testbench/transport/test_rq_db_merge.c $(BENCH_SRCS),\
	rq_db_merge rq_db_merge_tiny))
BLOCK_TESTS += test_rq_db_merge
CORE_LINT_TOPS += rq_db_merge

# wqe_fetch: the requester's windows on the send queues, at the core's size (8 slots) and
# tiny (2 slots: every fill and push takes a window another QP may want)
$(eval $(call model,wqe_fetch,wqe_fetch,,rtl/transport/wqe_fetch.v))
$(eval $(call model,wqe_fetch_tiny,wqe_fetch,-GSLOT_LOG=1,rtl/transport/wqe_fetch.v))
$(eval $(call program,test_wqe_fetch,testbench/transport/test_wqe_fetch.c $(BENCH_SRCS),\
	wqe_fetch wqe_fetch_tiny))
BLOCK_TESTS += test_wqe_fetch
CORE_LINT_TOPS += wqe_fetch

# req_build: the requester's packet build stage (jobs -> SGE walk -> DMA reads, inline
# bytes -> headers, payloads and messages), against a C control, WQE slots, translator,
# host memory and link, at the core's size
REQ_BUILD_SRCS := $(wildcard rtl/lib/*.v) rtl/transport/sg_walk.v rtl/transport/req_build.v
$(eval $(call model,req_build,req_build,,$(REQ_BUILD_SRCS)))
# and tiny: two WQE slots (a turn often waits for one), four packets to the link, eight jobs
$(eval $(call model,req_build_tiny,req_build,-GSLOT_LOG=1 -GPKT_LOG=2 -GJOB_LOG=3,\
	$(REQ_BUILD_SRCS)))
$(eval $(call program,test_req_build,testbench/transport/test_req_build.c \
	testbench/transport/walk_model.c testbench/transport/pay_stream.c $(BENCH_SRCS),\
	req_build req_build_tiny))
BLOCK_TESTS += test_req_build
CORE_LINT_TOPS += req_build

# resp_place: the responder's placement stage (jobs -> SGE or range walk -> committed DMA
# writes, payloads written or dropped, writes answered, faults), against a C resp_engine
# control, translator, payload stream and DMA writer, at the core's size
RESP_PLACE_SRCS := $(wildcard rtl/lib/*.v) rtl/transport/sg_walk.v rtl/transport/resp_place.v
$(eval $(call model,resp_place,resp_place,,$(RESP_PLACE_SRCS)))
# and tiny: two jobs, 32 chunks (a walk starts only with the chunk FIFO empty), four
# packets' writes tracked, eight faults (four of them for refused writes)
$(eval $(call model,resp_place_tiny,resp_place,-GJOB_LOG=1 -GCHUNK_ADDR_WIDTH=5 \
	-GWREC_ADDR_WIDTH=2 -GFAULT_LOG=3,$(RESP_PLACE_SRCS)))
$(eval $(call program,test_resp_place,testbench/transport/test_resp_place.c \
	testbench/transport/walk_model.c $(BENCH_SRCS),resp_place resp_place_tiny))
BLOCK_TESTS += test_resp_place
CORE_LINT_TOPS += resp_place

# resp_cqe: the responder's RECV completions waiting for their data, at the core's size (4)
# and tiny (2), against a C placement stage and fault table
$(eval $(call model,resp_cqe,resp_cqe,,rtl/transport/resp_cqe.v))
$(eval $(call model,resp_cqe_tiny,resp_cqe,-GLOG=1,rtl/transport/resp_cqe.v))
$(eval $(call program,test_resp_cqe,testbench/transport/test_resp_cqe.c $(BENCH_SRCS),\
	resp_cqe resp_cqe_tiny))
BLOCK_TESTS += test_resp_cqe
CORE_LINT_TOPS += resp_cqe

# req_tx: the requester's sending side (doorbells, the QP scheduler, its WQE windows,
# segmentation and headers, its build stage), against a C context memory, host (SQ rings,
# payload), translator, req_ack and link, at the core's size
REQ_TX_SRCS := $(wildcard rtl/lib/*.v) rtl/transport/sg_walk.v rtl/transport/wqe_fetch.v \
	rtl/transport/req_build.v rtl/transport/req_tx.v
$(eval $(call model,req_tx,req_tx,,$(REQ_TX_SRCS)))
# and tiny: two windows, four packets to the link, a work FIFO of 8 QPs
$(eval $(call model,req_tx_tiny,req_tx,-GWQE_SLOT_LOG=1 -GPKT_LOG=2 -GWORK_ADDR_WIDTH=3,\
	$(REQ_TX_SRCS)))
$(eval $(call program,test_req_tx,testbench/transport/test_req_tx.c \
	testbench/transport/walk_model.c testbench/transport/pay_stream.c $(BENCH_SRCS),\
	req_tx req_tx_tiny))
BLOCK_TESTS += test_req_tx
CORE_LINT_TOPS += req_tx
