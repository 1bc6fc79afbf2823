/* SPDX-License-Identifier: MIT */
/*
 * The configuration port (ICAPE3) at its pins, as far as a reload uses it: words written
 * while CSIB is low and RDWRB is low are bit-swapped back (UG570: each byte of I[31:0]
 * carries its bits in the reverse order of the bitstream), then decoded as configuration
 * packets: nothing counts before the sync word AA995566h; Type 1 packet headers
 * (bits 31:29 = 001) with opcode NOOP (00) or write (10), register address in bits 17:13
 * and word count in bits 10:0, followed by that many words. A write of WBSTAR (10h) is
 * kept; a write of IPROG (0Fh) to CMD (04h) counts a reload with the WBSTAR of that time;
 * DESYNC (0Dh) ends the packets. Anything else after sync is a protocol error.
 */
#ifndef HROCE_ICAP_MODEL_H
#define HROCE_ICAP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define ICAP_SYNC_WORD 0xaa995566u
#define ICAP_REG_CMD 0x04u
#define ICAP_REG_WBSTAR 0x10u
#define ICAP_CMD_IPROG 0x0fu
#define ICAP_CMD_DESYNC 0x0du

struct icap_model {
	bool synced;
	uint32_t reg;	    /* register of the packet being written */
	unsigned int words; /* words of it still to come */
	uint32_t wbstar;
	unsigned int iprogs; /* reloads seen */
	uint32_t iprog_wbstar;
	unsigned int errors;
	unsigned int words_seen;
	uint32_t last_word;
};

void icap_model_init(struct icap_model *m);
/* The bits of each byte in reverse order (the same both ways). */
uint32_t icap_bit_swap(uint32_t w);
/* One rising edge of the ICAP clock. */
void icap_model_clock(struct icap_model *m, bool csib, bool rdwrb, uint32_t i);

#endif /* HROCE_ICAP_MODEL_H */
