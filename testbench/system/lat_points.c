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

/* node q's requester: the WQE's last packet to the build stage, its header out */
#define BUILD_POINTS(q, pre)                                            \
	STAGE(q, HROCE_TRACE_WQE, false, pre "WQE to the build stage"), \
		STAGE(q, HROCE_TRACE_REQ_HDR, true, pre "header to TX")

/* node 0's host rings, its requester builds */
#define REQUESTER_POINTS                                                         \
	EVENT(0, HROCE_SIM_MMIO_WRITE, AT_ANY, "host's doorbell write"),         \
		STAGE(0, HROCE_TRACE_SQ_DB, false, "doorbell at the requester"), \
		BUILD_POINTS(0, "")

/* a request of node q's on to the other's placement (its last packet's) */
#define PLACEMENT_POINTS(q, pre)                                                              \
	FRAME(q, HROCE_SIM_TX_START, HROCE_TRACE_REQ_HDR, true, pre "first beat out"),        \
		FRAME(q, HROCE_SIM_TX_END, HROCE_TRACE_REQ_HDR, true, pre "last beat out"),   \
		FRAME(1 - q, HROCE_SIM_RX_END, HROCE_TRACE_REQ_IN, true, pre "last beat in"), \
		STAGE(1 - q, HROCE_TRACE_REQ_IN, true, pre "header at the responder"),        \
		STAGE(1 - q, HROCE_TRACE_VERDICT, true, pre "ICRC verdict"),                  \
		STAGE(1 - q, HROCE_TRACE_PLACE, true, pre "to placement"),                    \
		STAGE(1 - q, HROCE_TRACE_PLACED, true, pre "writes committed")

/* a SEND of node q's: its writes answered at the other, its receive completion there */
#define RECEIVE_POINTS(q, pre)                                                              \
	STAGE(1 - q, HROCE_TRACE_ANSWERED, true, pre "writes answered"),                    \
		STAGE(1 - q, HROCE_TRACE_RQ_CQE, false, pre "completion to the CQ writer"), \
		EVENT(1 - q, HROCE_SIM_DMA_WRITE_DONE, AT_OTHER, pre "completion in memory")

/* clang-format off */
const struct point lat_write_points[] = {
	REQUESTER_POINTS,
	PLACEMENT_POINTS(0, ""),
	EVENT(1, HROCE_SIM_DMA_WRITE, AT_DATA, "DMA write issued"),
	EVENT(1, HROCE_SIM_DMA_WRITE_DONE, AT_DATA, "in memory"),
};

const struct point lat_send_points[] = {
	REQUESTER_POINTS,
	PLACEMENT_POINTS(0, ""),
	RECEIVE_POINTS(0, ""),
};

/* node 0's SEND to node 1's completion, node 1's host posting one back, its way back */
const struct point lat_pingpong_points[] = {
	REQUESTER_POINTS,
	PLACEMENT_POINTS(0, ""),
	RECEIVE_POINTS(0, ""),
	STAGE(1, HROCE_TRACE_SQ_DB, false, "host's answer at the requester"),
	BUILD_POINTS(1, "back: "),
	PLACEMENT_POINTS(1, "back: "),
	RECEIVE_POINTS(1, "back: "),
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
const int lat_pingpong_npoints = ARRAY_LEN(lat_pingpong_points);

/* The PSN of the last request header a node sent, or ~0u. */
static uint32_t last_psn(const struct ev_log *l)
{
	uint32_t psn = ~0u;

	for (int k = 0; k < l->n; k++)
		if (l->ev[k].kind == HROCE_SIM_STAGE && l->ev[k].stage == HROCE_TRACE_REQ_HDR)
			psn = l->ev[k].tag;
	return psn;
}

/* Which node's request a point's stage event (or its frame) belongs to: its requester. */
static int requester_of(const struct point *p)
{
	unsigned int stage = p->kind == HROCE_SIM_STAGE ? p->stage : p->pair;

	return stage == HROCE_TRACE_REQ_HDR ? p->node : 1 - p->node;
}

static bool takes(const struct point *p, const struct hroce_sim_event *ev, uint32_t psn,
		  uint64_t first_byte, uint64_t last_byte)
{
	bool response = ev->aux >= HROCE_RC_OP_READ_RESP_FIRST && ev->aux <= HROCE_RC_OP_ATOMIC_ACK;

	if (ev->kind != p->kind)
		return false;
	if (p->kind == HROCE_SIM_STAGE)
		return ev->stage == p->stage && (!p->by_psn || ev->tag == psn);
	if (p->pair != ~0u) /* a request's frame, or a response's, by its BTH */
		return ev->bth && (!p->by_psn || ev->tag == psn) &&
		       response ==
			       (p->pair == HROCE_TRACE_RESP_HDR || p->pair == HROCE_TRACE_RESP_IN);
	if (p->at == AT_DATA)
		return ev->addr <= last_byte && last_byte < ev->addr + ev->len;
	if (p->at == AT_OTHER)
		return ev->addr > last_byte || ev->addr + ev->len <= first_byte;
	return true;
}

bool lat_find(struct ev_log *const logs[2], const struct point *p, int np,
	      const struct lat_range data[2], uint64_t *t)
{
	const uint32_t psn[2] = { last_psn(logs[0]), last_psn(logs[1]) };
	uint64_t at = 0;

	for (int i = 0; i < np; i++) {
		const struct ev_log *l = logs[p[i].node];
		const struct lat_range *d = &data[p[i].node];
		bool found = false;

		for (int k = 0; k < l->n && !found; k++)
			if (l->ev[k].time_ns >= at &&
			    takes(&p[i], &l->ev[k], psn[requester_of(&p[i])], d->iova,
				  d->iova + d->len - 1)) {
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
