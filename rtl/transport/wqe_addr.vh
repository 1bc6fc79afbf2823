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
