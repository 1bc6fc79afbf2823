/* SPDX-License-Identifier: MIT */
/*
 * hroce-lat's perftest scenario: Debian's ib_send_lat between two processes through
 * hroce-run, in lockstep ($HROCE_LOCKSTEP=1), so that the same setup gives the same
 * simulated times every run; each message taken from the client's pcap (simulated-ns
 * departure times of the SENDs both ways).
 */
#ifndef LAT_PERFTEST_H
#define LAT_PERFTEST_H

#include <stdbool.h>

#include "lat_points.h"

struct lat_perftest_setup {
	unsigned int mhz, pcie_read_ns, pcie_write_ns, pcie_gbps, link_ns, link_gbps;
	unsigned int mtu, size;
	unsigned int quantum_ns; /* lockstep's (0: link_ns) */
	bool no_inline;		 /* perftest's -I 0 */
};

/* The points of its way: the client's SEND out, the server's, the client's next. */
extern const struct point lat_perftest_points[];
extern const int lat_perftest_npoints;

/*
 * Runs the pair once (files in dir, named by k: the configuration, both sides' output
 * and pcaps) with warm + n + 1 iterations, and fills total[m] (the round trip: the
 * client's SEND to its next) and steps[m * MAX_POINTS + i] (to point i) for the n
 * messages after warm. False, with a message on stderr, if a side failed or the
 * capture is not a ping-pong.
 */
bool lat_perftest_run(const char *dir, int k, const struct lat_perftest_setup *s, int warm, int n,
		      double *total, double *steps);

#endif /* LAT_PERFTEST_H */
