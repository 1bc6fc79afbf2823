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

/* A translation request a walk must make, and the bench's job it belongs to. */
struct walk_xreq_exp {
	struct xreq r;
	unsigned int job;
};

/* A beat the translator gives from cycle at on: a walk's (of job), or another client's. */
struct walk_ans {
	struct beat b;
	uint64_t at;
	unsigned int job;
	bool other; /* not the walker's: it must leave it (the bench takes it) */
};

/*
 * The MR translator as a bench agent, on the ports m_mr_req_* and s_mr_resp_* of the
 * model: each request taken must be the next a walk makes (walk_xlator_expect), and is
 * answered from the MR table as mr_translate does, its first beat 1 to lat_max cycles
 * later, each next 0 to lat_max after; an answer is offered at random once due and held
 * until taken; a request offered must hold until taken.
 */
struct walk_xlator {
	struct bench *b;
	const struct mr *mrs;
	struct bench_ring want; /* struct walk_xreq_exp */
	struct bench_ring ans;	/* struct walk_ans */
	bool valid;		/* the head answer is offered */
	bool held;		/* the request offered was not taken */
	bool any;		/* requests answered as they come (walk_xlator_answer_any) */
	unsigned int any_access;
	struct xreq last;
	const struct vmodel_port *req_key, *req_pd, *req_va, *req_len, *req_access, *req_valid,
		*req_ready, *resp_iova, *resp_len, *resp_last, *resp_status, *resp_valid,
		*resp_ready;
};

#define WALK_XLATOR_REQ 1u /* walk_xlator_sample: a request was taken */
#define WALK_XLATOR_ANS 2u /* an answer was taken */

/* Finds the ports (or exits naming the one missing); FIFOs of cap entries. */
void walk_xlator_open(struct walk_xlator *x, struct dut *d, const struct mr *mrs, unsigned int cap);
void walk_xlator_close(struct walk_xlator *x);
/*
 * For a bench that cannot know the order of the walks (they are made inside the model):
 * every request is answered from the MR table as it comes, and only its access checked.
 */
void walk_xlator_answer_any(struct walk_xlator *x, unsigned int access);
/* Expects walk w's requests (of job) after those expected; false if they do not fit. */
bool walk_xlator_expect(struct walk_xlator *x, const struct walk *w, unsigned int job);
/* Another client's answer, from cycle at on; false if it does not fit. */
bool walk_xlator_other(struct walk_xlator *x, const struct beat *b, uint64_t at);
/* Before the cycle's edge: the answer (due, offered at random) and the request's ready. */
void walk_xlator_drive(struct walk_xlator *x, uint64_t cycle, unsigned int ready_pct);
/*
 * Once the model settled: a request taken is checked and answered, an answer taken
 * leaves (*taken: it; another client's leaves as offered, and the model must not take
 * it). Returns WALK_XLATOR_* of what moved; the first error goes to err.
 */
unsigned int walk_xlator_sample(struct walk_xlator *x, uint64_t cycle, unsigned int lat_max,
				struct walk_ans *taken, char *err, size_t size);

#endif /* HROCE_WALK_MODEL_H */
