/* SPDX-License-Identifier: MIT */
/*
 * An operation's way through two simulated NICs, from their events: the NICs' own
 * (MMIO, DMA bursts, frames) and their cores' trace ports' (HROCE_SIM_STAGE). An observer
 * logs each NIC's events; a list of points names the events of the way, each found as the
 * first at or after the point before it, so that each step between two points is a stage's
 * time. bench_rc prints its latencies stage by stage with them, hroce-lat its studies.
 */
#ifndef LAT_POINTS_H
#define LAT_POINTS_H

#include <stdbool.h>
#include <stdint.h>

#include "hroce_sim.h"

#define ARRAY_LEN(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define EV_MAX 8192

struct ev_log {
	struct hroce_sim_event ev[EV_MAX];
	int n;
	bool full; /* events were lost */
};

/* An observer (hroce_sim_set_observer) that appends to the struct ev_log ctx. */
void ev_observe(void *ctx, const struct hroce_sim *s, const struct hroce_sim_event *ev);

/* Which DMA burst a point takes: any, the one with the data's last byte, one outside the data. */
enum point_at { AT_ANY, AT_DATA, AT_OTHER };

struct point {
	int node; /* 0: the requester's NIC, 1: the responder's */
	enum hroce_sim_event_kind kind;
	unsigned int stage; /* HROCE_SIM_STAGE: HROCE_TRACE_* */
	enum point_at at;   /* DMA bursts */
	bool by_psn;	    /* a stage event of the message's last packet (its PSN) */
	/*
	 * A frame's first or last beat: the frame of a header of this stage (HROCE_TRACE_*;
	 * ~0u: any frame), told by its BTH: a request's (REQ_*) or a response's (RESP_*), of
	 * the last packet's PSN if by_psn
	 */
	unsigned int pair;
	const char *name;
};

#define MAX_POINTS 32

/*
 * The ways of one message: a WRITE, a SEND (to its receive completion), a READ; and a
 * SEND's ping-pong (one back when the first is received, to that one's completion).
 */
extern const struct point lat_write_points[];
extern const struct point lat_send_points[];
extern const struct point lat_read_points[];
extern const struct point lat_pingpong_points[];
extern const int lat_write_npoints, lat_send_npoints, lat_read_npoints, lat_pingpong_npoints;

/* Where a message's data lies in a node's IOVA space (len 0: that node takes none). */
struct lat_range {
	uint64_t iova, len;
};

/*
 * The points' times in ns (t[0..np-1]); data[node]: the message's bytes that node writes.
 * A point of a request's packet takes the last packet of its requester's last message
 * (the PSN of the last request header that node sent). False if a point is missing.
 */
bool lat_find(struct ev_log *const logs[2], const struct point *p, int np,
	      const struct lat_range data[2], uint64_t *t);

/* Each step's average (step_ns summed over n operations), in cycles of mhz. */
void lat_print_steps(const struct point *p, int np, const double *step_ns, int n, double mhz);

#endif /* LAT_POINTS_H */
