// SPDX-License-Identifier: MIT
#include "lat_points.h"

#include <stdio.h>

#include "hroce_contract.h"

void ev_observe(void *ctx, const struct hroce_sim *s, const struct hroce_sim_event *ev)
{
	struct ev_log *log = ctx;

	(void)s;
	if (log->n < EV_MAX)
		log->ev[log->n++] = *ev;
	else
		log->full = true;
}

#define STAGE(n, s, psn, text)                                                               \
	{                                                                                    \
		.node = n, .kind = HROCE_SIM_STAGE, .stage = s, .at = AT_ANY, .by_psn = psn, \
		.pair = ~0u, .name = text                                                    \
	}
#define EVENT(n, k, where, text)                                             \
	{                                                                    \
		.node = n, .kind = k, .at = where, .pair = ~0u, .name = text \
	}
#define FRAME(n, k, with, psn, text)                                                          \
	{                                                                                     \
		.node = n, .kind = k, .at = AT_ANY, .by_psn = psn, .pair = with, .name = text \
	}

/* a message's requester side, up to its last header */
#define REQUESTER_POINTS                                                         \
	EVENT(0, HROCE_SIM_MMIO_WRITE, AT_ANY, "host's doorbell write"),         \
		STAGE(0, HROCE_TRACE_SQ_DB, false, "doorbell at the requester"), \
		STAGE(0, HROCE_TRACE_WQE, false, "WQE to the build stage"),      \
		STAGE(0, HROCE_TRACE_REQ_HDR, true, "header to TX")

/* a request's way on to the responder's placement (its last packet's) */
#define PLACEMENT_POINTS                                                                \
	FRAME(0, HROCE_SIM_TX_START, HROCE_TRACE_REQ_HDR, true, "first beat out"),      \
		FRAME(0, HROCE_SIM_TX_END, HROCE_TRACE_REQ_HDR, true, "last beat out"), \
		FRAME(1, HROCE_SIM_RX_END, HROCE_TRACE_REQ_IN, true, "last beat in"),   \
		STAGE(1, HROCE_TRACE_REQ_IN, true, "header at the responder"),          \
		STAGE(1, HROCE_TRACE_VERDICT, true, "ICRC verdict"),                    \
		STAGE(1, HROCE_TRACE_PLACE, true, "to placement"),                      \
		STAGE(1, HROCE_TRACE_PLACED, true, "writes committed")

/* clang-format off */
const struct point lat_write_points[] = {
	REQUESTER_POINTS,
	PLACEMENT_POINTS,
	EVENT(1, HROCE_SIM_DMA_WRITE, AT_DATA, "DMA write issued"),
	EVENT(1, HROCE_SIM_DMA_WRITE_DONE, AT_DATA, "in memory"),
};

const struct point lat_send_points[] = {
	REQUESTER_POINTS,
	PLACEMENT_POINTS,
	STAGE(1, HROCE_TRACE_ANSWERED, true, "writes answered"),
	STAGE(1, HROCE_TRACE_RQ_CQE, false, "completion to the CQ writer"),
	EVENT(1, HROCE_SIM_DMA_WRITE_DONE, AT_OTHER, "completion in memory"),
};

/* the first response's way, then the write of the data's last byte */
const struct point lat_read_points[] = {
	REQUESTER_POINTS,
	FRAME(0, HROCE_SIM_TX_END, HROCE_TRACE_REQ_HDR, true, "request's last beat out"),
	FRAME(1, HROCE_SIM_RX_END, HROCE_TRACE_REQ_IN, true, "last beat in"),
	STAGE(1, HROCE_TRACE_REQ_IN, true, "header at the responder"),
	STAGE(1, HROCE_TRACE_VERDICT, true, "ICRC verdict"),
	STAGE(1, HROCE_TRACE_RESP_HDR, false, "response header to TX (data read)"),
	FRAME(1, HROCE_SIM_TX_END, HROCE_TRACE_RESP_HDR, false, "response's last beat out"),
	FRAME(0, HROCE_SIM_RX_END, HROCE_TRACE_RESP_IN, false, "last beat in"),
	STAGE(0, HROCE_TRACE_RESP_IN, false, "header at the requester"),
	EVENT(0, HROCE_SIM_DMA_WRITE, AT_DATA, "DMA write issued"),
	EVENT(0, HROCE_SIM_DMA_WRITE_DONE, AT_DATA, "in memory"),
};
/* clang-format on */

const int lat_write_npoints = ARRAY_LEN(lat_write_points);
const int lat_send_npoints = ARRAY_LEN(lat_send_points);
const int lat_read_npoints = ARRAY_LEN(lat_read_points);

/* The PSN of the last request header node 0 sent, or ~0u. */
static uint32_t last_psn(const struct ev_log *l)
{
	uint32_t psn = ~0u;

	for (int k = 0; k < l->n; k++)
		if (l->ev[k].kind == HROCE_SIM_STAGE && l->ev[k].stage == HROCE_TRACE_REQ_HDR)
			psn = l->ev[k].tag;
	return psn;
}

static bool takes(const struct point *p, const struct hroce_sim_event *ev, uint32_t psn,
		  uint64_t first_byte, uint64_t last_byte)
{
	if (ev->kind != p->kind)
		return false;
	if (p->kind == HROCE_SIM_STAGE)
		return ev->stage == p->stage && (!p->by_psn || ev->tag == psn);
	if (p->at == AT_DATA)
		return ev->addr <= last_byte && last_byte < ev->addr + ev->len;
	if (p->at == AT_OTHER)
		return ev->addr > last_byte || ev->addr + ev->len <= first_byte;
	return true;
}

/*
 * Of the events of a node, the ordinal of its pair stage's event (the last packet's, or
 * the first), then the time of its kind's event of that ordinal; 0 if there is none.
 */
static uint64_t paired(const struct ev_log *l, const struct point *p, uint32_t psn)
{
	int ord = -1, seen = 0;

	for (int k = 0; k < l->n && ord < 0; k++) {
		const struct hroce_sim_event *ev = &l->ev[k];

		if (ev->kind != HROCE_SIM_STAGE || ev->stage != p->pair)
			continue;
		if (!p->by_psn || ev->tag == psn)
			ord = seen;
		seen++;
	}
	for (int k = 0; k < l->n && ord >= 0; k++)
		if (l->ev[k].kind == p->kind && ord-- == 0)
			return l->ev[k].time_ns;
	return 0;
}

bool lat_find(struct ev_log *const logs[2], const struct point *p, int np, uint64_t data_iova,
	      uint64_t data_len, uint64_t *t)
{
	uint32_t psn = last_psn(logs[0]);
	uint64_t at = 0, last_byte = data_iova + data_len - 1;

	for (int i = 0; i < np; i++) {
		const struct ev_log *l = logs[p[i].node];
		bool found = false;

		if (p[i].pair != ~0u) {
			t[i] = paired(l, &p[i], psn);
			found = t[i] != 0 && t[i] >= at;
		}
		for (int k = 0; k < l->n && !found && p[i].pair == ~0u; k++)
			if (l->ev[k].time_ns >= at &&
			    takes(&p[i], &l->ev[k], psn, data_iova, last_byte)) {
				t[i] = l->ev[k].time_ns;
				found = true;
			}
		if (!found)
			return false;
		at = t[i];
	}
	return true;
}

void lat_print_steps(const struct point *p, int np, const double *step_ns, int n, double mhz)
{
	printf("    stage by stage, cycles of %.0f ns (the trace port's events and the NICs'):",
	       1000.0 / mhz);
	for (int i = 1; i < np; i++)
		printf("%s %s %.1f", i > 1 ? "," : "", p[i].name, step_ns[i] / n / (1000.0 / mhz));
	printf("\n");
}
