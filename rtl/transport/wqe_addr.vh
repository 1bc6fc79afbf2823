// Ring arithmetic of the work queues, included inside the engines' modules: a WQE's
// address, a read window's WQEs, a message's packets.
//
// The address of a work queue's WQE: the slot of a ring counter (index) in a ring of
// 2^log_size WQEs of 64 << stride bytes at base. Included inside the engines' modules.
function [63:0] wqe_addr(input [63:0] base, input [15:0] index, input [3:0] log_size,
                         input [1:0] stride);
    reg [15:0] slot;
    begin
        slot = index & ((16'd1 << log_size) - 16'd1);
        wqe_addr = base + ({48'd0, slot} << (6 + stride));
    end
endfunction

// The WQEs one read of a ring's window brings from the one at index on: up to 512 bytes
// (8 WQEs of 64 bytes, fewer of more), not past the ring's end, nor past the posted ones.
function [15:0] wqe_window(input [15:0] index, input [15:0] posted, input [3:0] log_size,
                           input [1:0] stride);
    reg [15:0] slots, to_end, block, n;
    begin
        slots = 16'd1 << log_size;
        to_end = slots - (index & (slots - 16'd1));
        block = 16'd8 >> stride;
        n = to_end < block ? to_end : block;
        wqe_window = posted < n ? posted : n;
    end
endfunction

// The packets (PSNs) of a message of len bytes at MTU 2^log_mtu: one at least.
function [24:0] msg_pkts(input [31:0] len, input [3:0] lg_mtu);
    reg [31:0] m1;
    begin
        m1 = (len - 32'd1) >> lg_mtu;
        msg_pkts = len == 32'd0 ? 25'd1 : m1[24:0] + 25'd1;
    end
endfunction
