/* SPDX-License-Identifier: MIT */
/*
 * C models of the scatter-gather walk (rtl/transport/sg_walk.v) and of the MR translation
 * it asks for (mr_translate's contract), shared by the benches of the walker and of the
 * engines that own one.
 *
 * The MRs: a table of WALK_NUM_MRS, each with a PD (WALK_PDS of them), rights, bounds, and
 * pages of its own size (4 to 16 KiB) at scattered IOVAs; one MR in four lacks some right,
 * one in four has a page whose table entry cannot be read (its last), one in ten lies near
 * the top of the address space. walk_translate answers one request as mr_translate does
 * (the beats of its pages, or a verdict); walk_reference gives everything a walk must do:
 * its requests, their beats, its chunks and its end (status, short, end position).
 */
#ifndef HROCE_WALK_MODEL_H
#define HROCE_WALK_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

#define WALK_NUM_MRS 12
#define WALK_PDS 3
#define WALK_MAX_REQS 64
#define WALK_MAX_BEATS 256
#define WALK_BAD_KEY_BASE 0x10000u /* above every MR's key */

struct mr {
	uint32_t key;
	uint32_t pd;
	unsigned int access;
	uint64_t va, len;
	unsigned int page_log;
	uint64_t iova[64]; /* per page of the MR (at most 64 pages) */
	int bad_page;	   /* a page whose table entry cannot be read, or -1 */
};

struct sge {
	uint64_t addr;
	uint32_t len, key;
};

struct xreq {
	uint32_t key, pd;
	uint64_t va;
	uint32_t len;
	unsigned int access;
};

struct beat {
	uint64_t iova;
	unsigned int len, status;
	bool last;
};

struct chunk {
	uint64_t iova;
	unsigned int len;
	bool last;
};

/* a walk and everything it must do */
struct walk {
	unsigned int sge, len, num_sge, pd, access;
	uint32_t off;
	struct sge list[32]; /* entries past num_sge are garbage the walker must not use */
	struct xreq req[WALK_MAX_REQS];
	unsigned int nreq;
	/* the responses of request i: beats first_beat[i] .. first_beat[i + 1] - 1 */
	struct beat beat[WALK_MAX_BEATS];
	unsigned int first_beat[WALK_MAX_REQS + 1];
	struct chunk chunk[WALK_MAX_BEATS];
	unsigned int nchunk;
	unsigned int status, end_sge;
	bool is_short;
	uint32_t end_off;
};

/* Fills mrs[0 .. WALK_NUM_MRS - 1]. */
void walk_make_mrs(struct bench *b, struct mr *mrs);
const struct mr *walk_find_mr(const struct mr *mrs, uint32_t key);
/*
 * Appends the beats of request r to beat[*nbeats ..] (room for 64 more); returns the
 * verdict (OK, or an MR_XLATE failure).
 */
unsigned int walk_translate(const struct mr *mrs, const struct xreq *r, struct beat *beat,
			    unsigned int *nbeats);
/* The walk's requests, beats, chunks and end, from its command and list. */
void walk_reference(const struct mr *mrs, struct walk *w);

/*
 * Stimulus for the engines' benches. An MR of PD pd granting access with every page
 * readable (every PD has one: see walk_make_mrs).
 */
const struct mr *walk_good_mr(struct bench *b, const struct mr *mrs, unsigned int pd,
			      unsigned int access);
/* An SGE inside such an MR: length 0 (one in ten) or 1 .. most bytes (at most its MR's). */
struct sge walk_good_sge(struct bench *b, const struct mr *mrs, unsigned int pd,
			 unsigned int access, uint32_t most);
/*
 * An SGE of at least one byte (at most 3000) whose translation fails: a key no MR has
 * (at or above WALK_BAD_KEY_BASE), an MR of another PD, bounds past its MR's end, the
 * PD's MR whose last page's table entry cannot be read, or (access not 0) an MR of the
 * PD that lacks a right asked for.
 */
struct sge walk_bad_sge(struct bench *b, const struct mr *mrs, unsigned int pd,
			unsigned int access);

#endif /* HROCE_WALK_MODEL_H */
