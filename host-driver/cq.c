// SPDX-License-Identifier: MIT
/*
 * Completion queues: a ring of CQEs the core writes, polled by their OWNER bit (1 on the
 * first pass through the ring, 0 on the second, ...). The core learns the consumer counter
 * from a CQ doorbell after each poll that took completions (CI_ONLY) and at each arming,
 * so that it never writes over a CQE not polled yet: a ring that fills up overruns the CQ
 * instead (event.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <endian.h>

#include "hroce_priv.h"

#define MAX_LOG_CQE 22

/*
 * The OWNER bit of a CQE, read with an acquire load of the 8-byte word that holds it (the
 * CQE's last): the device writes a CQE in address order, so the rest of it is in memory
 * once the bit is, and the acquire keeps the reads of the rest after this one.
 */
static unsigned int cqe_owner(const uint8_t *cqe)
{
	const _Atomic uint64_t *word =
		(const _Atomic uint64_t *)(cqe + HROCE_CQE_OWNER_LSB / 64 * 8);
	uint64_t v = le64toh(atomic_load_explicit(word, memory_order_acquire));

	return (unsigned int)hroce_field(v, HROCE_CQE_OWNER_LSB % 64, 1);
}

struct hroce_cq *hroce_create_cq(struct hroce_dev *dev, unsigned int cqe, unsigned int vector)
{
	uint8_t cqc[HROCE_CQC_BYTES] = { 0 };
	uint32_t n = 1u << dev->params.log_cqs, cqn;
	struct hroce_cq *cq;
	int err;

	if (!cqe || cqe >= 1u << MAX_LOG_CQE || vector >= 1u << HROCE_CQC_IRQ_VECTOR_WIDTH ||
	    vector == HROCE_ASYNC_VECTOR) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	/* the CQN is claimed at once: another open of the device may be looking too */
	pthread_mutex_lock(&dev->lock);
	for (cqn = 0; cqn < n && dev->cqs[cqn]; cqn++)
		;
	if (cqn < n)
		dev->cqs[cqn] = cq;
	pthread_mutex_unlock(&dev->lock);
	if (cqn == n) {
		err = ENOMEM;
		goto err_free;
	}
	cq->dev = dev;
	cq->cqn = cqn;
	cq->vector = vector;
	while ((1u << cq->log_size) < cqe)
		cq->log_size++;
	err = hroce_dma_alloc(dev, (size_t)HROCE_CQE_BYTES << cq->log_size, HROCE_PAGE, &cq->ring);
	if (err)
		goto err_cqn;
	HROCE_CQC_SET(cqc, LOG_SIZE, cq->log_size);
	HROCE_CQC_SET(cqc, IRQ_VECTOR, vector);
	HROCE_CQC_SET(cqc, BASE, cq->ring.iova);
	err = hroce_cmd(dev, HROCE_CMD_OP_CREATE_CQ, cqn, 0, cqc, sizeof(cqc), NULL, 0);
	if (err)
		goto err_ring;
	return cq;

err_ring:
	hroce_dma_free(dev, &cq->ring);
err_cqn:
	pthread_mutex_lock(&dev->lock);
	dev->cqs[cqn] = NULL;
	pthread_mutex_unlock(&dev->lock);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

int hroce_destroy_cq(struct hroce_cq *cq)
{
	struct hroce_dev *dev = cq->dev;
	int err;

	if (cq->users)
		return EBUSY;
	err = hroce_cmd(dev, HROCE_CMD_OP_DESTROY_CQ, cq->cqn, 0, NULL, 0, NULL, 0);
	if (err)
		return err;
	/* an overrun not taken yet must not reach the next CQ of that number */
	hroce_eq_clean(dev, cq->cqn);
	pthread_mutex_lock(&dev->lock);
	dev->cqs[cq->cqn] = NULL;
	pthread_mutex_unlock(&dev->lock);
	hroce_dma_free(dev, &cq->ring);
	free(cq);
	return 0;
}

unsigned int hroce_cq_size(const struct hroce_cq *cq)
{
	return 1u << cq->log_size;
}

/* The CQ doorbell: the consumer counter; an arming too unless ci_only. */
static void cq_doorbell(struct hroce_cq *cq, bool ci_only, bool solicited)
{
	uint64_t v = (uint64_t)cq->cqn << HROCE_DOORBELL_NUM_LSB |
		     (uint64_t)solicited << HROCE_DOORBELL_SOLICITED_LSB |
		     (uint64_t)ci_only << HROCE_DOORBELL_CI_ONLY_LSB |
		     (uint64_t)(cq->ci & 0xffff) << HROCE_DOORBELL_INDEX_LSB |
		     (uint64_t)(cq->ci >> 16) << HROCE_DOORBELL_INDEX_HIGH_LSB;

	/* the CQEs were read before the core may write over them */
	atomic_thread_fence(memory_order_release);
	hroce_mmio_write64(cq->dev, HROCE_REG_DB_CQ, v);
}

/* The wr_id of a CQE's WQE, and what the completion says of its work queue. */
static void complete(struct hroce_dev *dev, const uint8_t *cqe, struct hroce_wc *wc)
{
	uint32_t qpn = HROCE_CQE_GET(cqe, QPN);
	uint16_t index = HROCE_CQE_GET(cqe, WQE_INDEX);
	struct hroce_qp *qp = hroce_dev_qp(dev, qpn);
	struct hroce_wq *wq;

	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qpn;
	wc->status = HROCE_CQE_GET(cqe, STATUS);
	wc->opcode = HROCE_CQE_GET(cqe, OPCODE);
	wc->byte_len = HROCE_CQE_GET(cqe, BYTE_LEN);
	if (HROCE_CQE_GET(cqe, WITH_IMM)) {
		wc->wc_flags |= HROCE_WC_WITH_IMM;
		wc->imm_data = htobe32((uint32_t)HROCE_CQE_GET(cqe, IMM));
	}
	if (HROCE_CQE_GET(cqe, SOLICITED))
		wc->wc_flags |= HROCE_WC_SOLICITED;
	if (!qp) {
		hroce_log(HROCE_LOG_WARN, "%s: a completion for QP %u, which does not exist",
			  dev->name, qpn);
		return;
	}
	wq = HROCE_CQE_GET(cqe, FROM_SQ) ? &qp->sq : &qp->rq;
	wc->wr_id = wq->wr_id[index & ((1u << wq->log_size) - 1)];
	/* the WQEs before it completed too (unsignaled ones, on the SQ): their slots are free */
	atomic_store_explicit(&wq->cc, (uint16_t)(index + 1), memory_order_release);
}

int hroce_poll_cq(struct hroce_cq *cq, int n, struct hroce_wc *wc)
{
	uint32_t start = cq->ci;
	int got = 0;

	while (got < n) {
		const uint8_t *cqe =
			(const uint8_t *)cq->ring.vaddr +
			(size_t)HROCE_CQE_BYTES * (cq->ci & ((1u << cq->log_size) - 1));
		unsigned int owner = !((cq->ci >> cq->log_size) & 1);

		/* the rest of the CQE is read after its owner bit said it is new */
		if (cqe_owner(cqe) != owner)
			break;
		cq->ci++;
		/* the completions of a destroyed QP were cleaned out of the ring */
		if (HROCE_CQE_GET(cqe, QPN) == CQE_QPN_CLEANED)
			continue;
		complete(cq->dev, cqe, &wc[got]);
		got++;
	}
	/* room in the ring: the core must know before it writes the next completion */
	if (cq->ci != start)
		cq_doorbell(cq, true, false);
	return got;
}

void hroce_cq_clean(struct hroce_cq *cq, uint32_t qpn)
{
	for (uint32_t ci = cq->ci;; ci++) {
		uint8_t *cqe = (uint8_t *)cq->ring.vaddr +
			       (size_t)HROCE_CQE_BYTES * (ci & ((1u << cq->log_size) - 1));

		if (cqe_owner(cqe) != !((ci >> cq->log_size) & 1))
			break;
		if (HROCE_CQE_GET(cqe, QPN) == qpn)
			HROCE_CQE_SET(cqe, QPN, CQE_QPN_CLEANED);
	}
}

int hroce_req_notify_cq(struct hroce_cq *cq, bool solicited_only)
{
	cq_doorbell(cq, false, solicited_only);
	return 0;
}
