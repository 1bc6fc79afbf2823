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
	 * A frame's first or last beat: the frame that pairs with an event of this stage of
	 * the same node (HROCE_TRACE_*, ~0u: none), the k-th frame with its k-th event (the
	 * last packet's if by_psn, else the first): each RoCE frame has one header.
	 */
	unsigned int pair;
	const char *name;
};

#define MAX_POINTS 16

/* The ways of one message: a WRITE, a SEND (to its receive completion), a READ. */
extern const struct point lat_write_points[];
extern const struct point lat_send_points[];
extern const struct point lat_read_points[];
extern const int lat_write_npoints, lat_send_npoints, lat_read_npoints;

/*
 * The points' times in ns (t[0..np-1]); data: the message's bytes in the IOVA space of the
 * NIC that writes them; psn: its last packet's (the last request header node 0 sent).
 * False if a point is missing.
 */
bool lat_find(struct ev_log *const logs[2], const struct point *p, int np, uint64_t data_iova,
	      uint64_t data_len, uint64_t *t);

/* Each step's average (step_ns summed over n operations), in cycles of mhz. */
void lat_print_steps(const struct point *p, int np, const double *step_ns, int n, double mhz);

#endif /* LAT_POINTS_H */
