// SPDX-License-Identifier: MIT
/* The ICAPE3 model (icap_model.h). */
#include "icap_model.h"

#include <string.h>

void icap_model_init(struct icap_model *m)
{
	memset(m, 0, sizeof(*m));
}

uint32_t icap_bit_swap(uint32_t w)
{
	uint32_t r = 0;

	for (unsigned int k = 0; k < 32; k++)
		if (w >> ((k & ~7u) + 7 - (k & 7)) & 1)
			r |= 1u << k;
	return r;
}

static void packet_word(struct icap_model *m, uint32_t w)
{
	if (m->words) {
		m->words--;
		if (m->reg == ICAP_REG_WBSTAR) {
			m->wbstar = w;
		} else if (m->reg == ICAP_REG_CMD) {
			if (w == ICAP_CMD_IPROG) {
				m->iprogs++;
				m->iprog_wbstar = m->wbstar;
			} else if (w == ICAP_CMD_DESYNC) {
				m->synced = false;
			}
		}
		return;
	}
	if (w >> 29 != 1) {
		m->errors++;
		return;
	}
	switch (w >> 27 & 3) {
	case 0: /* NOOP */
		return;
	case 2: /* write */
		m->reg = w >> 13 & 0x1f;
		m->words = w & 0x7ff;
		return;
	default:
		m->errors++;
		return;
	}
}

void icap_model_clock(struct icap_model *m, bool csib, bool rdwrb, uint32_t i)
{
	uint32_t w;

	if (csib || rdwrb)
		return;
	w = icap_bit_swap(i);
	m->words_seen++;
	m->last_word = w;
	if (!m->synced) {
		if (w == ICAP_SYNC_WORD) {
			m->synced = true;
			m->words = 0;
		}
		return;
	}
	packet_word(m, w);
}
