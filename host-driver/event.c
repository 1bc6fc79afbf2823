// SPDX-License-Identifier: MIT
/*
 * Asynchronous events: the event queue the core writes (one EQE per event, OWNER as in
 * CQ rings), and what the driver does about each before handing it out.
 *
 * The core keeps no consumer counter of the event queue: it is as large as the CQ table,
 * and a CQ raises one event in its life (its overrun), whose EQE is taken, or cleaned
 * out, before the CQ is destroyed. So the queue never holds more than it has room for.
 */
#include <errno.h>
#include <string.h>
#include <endian.h>

#include "hroce_priv.h"

/* An EQE type no event has: an event cleaned out of the queue (its CQ was destroyed). */
#define EQE_TYPE_CLEANED 0xff

static uint8_t *eqe_at(struct hroce_dev *dev, uint32_t index)
{
	return (uint8_t *)dev->eq.vaddr +
	       (size_t)HROCE_EQE_BYTES * (index & ((UINT32_C(1) << dev->eq_log) - 1));
}

/* Is the EQE at index new? Its OWNER bit, with the acquire of cq.c's CQE reads. */
static bool eqe_new(struct hroce_dev *dev, uint32_t index)
{
	const _Atomic uint64_t *word =
		(const _Atomic uint64_t *)(eqe_at(dev, index) + HROCE_EQE_OWNER_LSB / 64 * 8);
	uint64_t v = le64toh(atomic_load_explicit(word, memory_order_acquire));

	return hroce_field(v, HROCE_EQE_OWNER_LSB % 64, 1) == !((index >> dev->eq_log) & 1);
}

int hroce_eq_setup(struct hroce_dev *dev)
{
	uint64_t config = 0;
	int err;

	dev->eq_log = dev->params.log_cqs;
	dev->eq_ci = 0;
	err = hroce_dma_alloc(dev, (size_t)HROCE_EQE_BYTES << dev->eq_log, HROCE_PAGE, &dev->eq);
	if (err)
		return err;
	config |= (uint64_t)dev->eq_log << HROCE_EQ_CONFIG_LOG_SIZE_LSB;
	config |= (uint64_t)HROCE_ASYNC_VECTOR << HROCE_EQ_CONFIG_IRQ_VECTOR_LSB;
	config |= UINT64_C(1) << HROCE_EQ_CONFIG_ENABLE_LSB;
	hroce_mmio_write64(dev, HROCE_REG_EQ_BASE, dev->eq.iova);
	/* the write starts the queue again at its first entry, as the driver's counter */
	hroce_mmio_write64(dev, HROCE_REG_EQ_CONFIG, config);
	return 0;
}

void hroce_eq_stop(struct hroce_dev *dev)
{
	if (!dev->eq.vaddr)
		return;
	hroce_mmio_write64(dev, HROCE_REG_EQ_CONFIG, 0);
}

void hroce_eq_clean(struct hroce_dev *dev, uint32_t cqn)
{
	for (uint32_t ci = dev->eq_ci; eqe_new(dev, ci); ci++) {
		uint8_t *eqe = eqe_at(dev, ci);

		if (HROCE_EQE_GET(eqe, TYPE) == HROCE_EVENT_CQ_ERR &&
		    HROCE_EQE_GET(eqe, NUM) == cqn)
			HROCE_EQE_SET(eqe, TYPE, EQE_TYPE_CLEANED);
	}
}

/* IBTA: the QPs of an overrun CQ go to the error state (their flushes are lost with it). */
static void fail_cq_qps(struct hroce_dev *dev, struct hroce_cq *cq)
{
	const struct hroce_qp_attr err_state = { .qp_state = HROCE_QPS_ERR };
	uint32_t n = UINT32_C(1) << dev->params.log_qps;

	for (uint32_t qpn = 0; qpn < n; qpn++) {
		struct hroce_qp *qp = dev->qps[qpn];
		int err;

		if (!qp || (qp->send_cq != cq && qp->recv_cq != cq) ||
		    qp->state == HROCE_QPS_RESET || qp->state == HROCE_QPS_ERR)
			continue;
		err = hroce_modify_qp(qp, &err_state, HROCE_QP_STATE);
		if (err)
			hroce_log(HROCE_LOG_ERR, "%s: QP %u of overrun CQ %u not moved to ERR: %s",
				  dev->name, qpn, cq->cqn, strerror(err));
	}
}

int hroce_get_async_event(struct hroce_dev *dev, struct hroce_async_event *ev)
{
	while (eqe_new(dev, dev->eq_ci)) {
		const uint8_t *eqe = eqe_at(dev, dev->eq_ci);
		unsigned int type = HROCE_EQE_GET(eqe, TYPE);
		uint32_t num = HROCE_EQE_GET(eqe, NUM);
		struct hroce_cq *cq;

		dev->eq_ci++;
		if (type == EQE_TYPE_CLEANED)
			continue;
		cq = type == HROCE_EVENT_CQ_ERR && num < (UINT32_C(1) << dev->params.log_cqs)
			     ? dev->cqs[num]
			     : NULL;
		if (!cq) {
			hroce_log(HROCE_LOG_WARN,
				  "%s: event %u for object %u, which does not exist", dev->name,
				  type, num);
			continue;
		}
		hroce_log(HROCE_LOG_INFO, "%s: CQ %u overran: completions were lost", dev->name,
			  num);
		fail_cq_qps(dev, cq);
		memset(ev, 0, sizeof(*ev));
		ev->type = HROCE_ASYNC_CQ_ERR;
		ev->cq = cq;
		return 1;
	}
	return 0;
}
