// SPDX-License-Identifier: MIT
/*
 * The rules of modify_qp for RC: which transitions IBTA allows (10.3.1), which attributes
 * each one requires and which it allows besides, as the kernel's ib_modify_qp_is_ok()
 * tables them; and the range of every value, from what the device reports. One table,
 * used by hroce_modify_qp() and by the verbs provider above it, so that a modify is
 * refused before anything is sent to the core and the QP stays as it was.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "hroce_priv.h"

#define NSTATES (HROCE_QPS_ERR + 1)

/* The attributes IBTA defines for a modify but the core does not serve. */
#define NOT_SERVED (HROCE_QP_ALT_PATH | HROCE_QP_PATH_MIG_STATE | HROCE_QP_EN_SQD_ASYNC_NOTIFY)

/* The access rights a QP grants to its peer (IBV_ACCESS_* bits that apply to a QP). */
#define QP_ACCESS_KNOWN                                                                    \
	(HROCE_ACCESS_LOCAL_WRITE | HROCE_ACCESS_REMOTE_WRITE | HROCE_ACCESS_REMOTE_READ | \
	 HROCE_ACCESS_REMOTE_ATOMIC)

#define PSN_MASK ((UINT32_C(1) << 24) - 1)
#define QPN_LIMIT (UINT32_C(1) << 24)
#define TIMER_LIMIT 32 /* timeout and min_rnr_timer: 5-bit codes */
#define RETRY_LIMIT 8  /* retry_cnt and rnr_retry: 3-bit counts */
#define PKEY_TABLE_LEN 1
#define PORT_NUM 1

struct qp_transition {
	bool valid;
	unsigned int required, optional;
};

/* [current][next], for RC; transitions not listed are not allowed */
static const struct qp_transition rc_rules[NSTATES][NSTATES] = {
	[HROCE_QPS_RESET] = {
		[HROCE_QPS_RESET] = { .valid = true },
		[HROCE_QPS_INIT] = {
			.valid = true,
			.required = HROCE_QP_PKEY_INDEX | HROCE_QP_PORT | HROCE_QP_ACCESS_FLAGS,
		},
	},
	[HROCE_QPS_INIT] = {
		[HROCE_QPS_RESET] = { .valid = true },
		[HROCE_QPS_ERR] = { .valid = true },
		[HROCE_QPS_INIT] = {
			.valid = true,
			.optional = HROCE_QP_PKEY_INDEX | HROCE_QP_PORT | HROCE_QP_ACCESS_FLAGS,
		},
		[HROCE_QPS_RTR] = {
			.valid = true,
			.required = HROCE_QP_AV | HROCE_QP_PATH_MTU | HROCE_QP_DEST_QPN |
				    HROCE_QP_RQ_PSN | HROCE_QP_MAX_DEST_RD_ATOMIC |
				    HROCE_QP_MIN_RNR_TIMER,
			.optional = HROCE_QP_ALT_PATH | HROCE_QP_ACCESS_FLAGS | HROCE_QP_PKEY_INDEX,
		},
	},
	[HROCE_QPS_RTR] = {
		[HROCE_QPS_RESET] = { .valid = true },
		[HROCE_QPS_ERR] = { .valid = true },
		[HROCE_QPS_RTS] = {
			.valid = true,
			.required = HROCE_QP_SQ_PSN | HROCE_QP_TIMEOUT | HROCE_QP_RETRY_CNT |
				    HROCE_QP_RNR_RETRY | HROCE_QP_MAX_QP_RD_ATOMIC,
			.optional = HROCE_QP_CUR_STATE | HROCE_QP_ALT_PATH | HROCE_QP_ACCESS_FLAGS |
				    HROCE_QP_MIN_RNR_TIMER | HROCE_QP_PATH_MIG_STATE,
		},
	},
	[HROCE_QPS_RTS] = {
		[HROCE_QPS_RESET] = { .valid = true },
		[HROCE_QPS_ERR] = { .valid = true },
		[HROCE_QPS_RTS] = {
			.valid = true,
			.optional = HROCE_QP_CUR_STATE | HROCE_QP_ACCESS_FLAGS | HROCE_QP_ALT_PATH |
				    HROCE_QP_PATH_MIG_STATE | HROCE_QP_MIN_RNR_TIMER,
		},
		[HROCE_QPS_SQD] = {
			.valid = true,
			.optional = HROCE_QP_EN_SQD_ASYNC_NOTIFY,
		},
	},
	[HROCE_QPS_SQD] = {
		[HROCE_QPS_RESET] = { .valid = true },
		[HROCE_QPS_ERR] = { .valid = true },
		[HROCE_QPS_RTS] = {
			.valid = true,
			.optional = HROCE_QP_CUR_STATE | HROCE_QP_ALT_PATH | HROCE_QP_ACCESS_FLAGS |
				    HROCE_QP_MIN_RNR_TIMER | HROCE_QP_PATH_MIG_STATE,
		},
		[HROCE_QPS_SQD] = {
			.valid = true,
			.optional = HROCE_QP_PORT | HROCE_QP_AV | HROCE_QP_TIMEOUT |
				    HROCE_QP_RETRY_CNT | HROCE_QP_RNR_RETRY |
				    HROCE_QP_MAX_QP_RD_ATOMIC | HROCE_QP_MAX_DEST_RD_ATOMIC |
				    HROCE_QP_ALT_PATH | HROCE_QP_ACCESS_FLAGS | HROCE_QP_PKEY_INDEX |
				    HROCE_QP_MIN_RNR_TIMER | HROCE_QP_PATH_MIG_STATE,
		},
	},
	/* SQE -> RTS is for UC and UD QPs: an RC QP never leaves SQE but for ERR or RESET */
	[HROCE_QPS_SQE] = {
		[HROCE_QPS_RESET] = { .valid = true },
		[HROCE_QPS_ERR] = { .valid = true },
	},
	[HROCE_QPS_ERR] = {
		[HROCE_QPS_RESET] = { .valid = true },
		[HROCE_QPS_ERR] = { .valid = true },
	},
};

/* The first value of attr that mask sets out of its range, as a sentence; NULL if none. */
static const char *out_of_range(const struct hroce_dev_attr *da, const struct hroce_qp_attr *attr,
				unsigned int mask)
{
	if ((mask & HROCE_QP_PORT) && attr->port_num != PORT_NUM)
		return "port_num: the device has port 1 only";
	if ((mask & HROCE_QP_PKEY_INDEX) && attr->pkey_index >= PKEY_TABLE_LEN)
		return "pkey_index: the P_Key table has one entry";
	if ((mask & HROCE_QP_ACCESS_FLAGS) && (attr->qp_access_flags & ~QP_ACCESS_KNOWN))
		return "qp_access_flags: unknown access bits";
	if ((mask & HROCE_QP_PATH_MTU) &&
	    (attr->path_mtu < HROCE_PATH_MTU_MIN || attr->path_mtu > HROCE_PATH_MTU_MAX))
		return "path_mtu: not 256..4096 (the port's active MTU is 4096)";
	if ((mask & HROCE_QP_DEST_QPN) && attr->dest_qp_num >= QPN_LIMIT)
		return "dest_qp_num: QPNs are 24 bits";
	if ((mask & HROCE_QP_TIMEOUT) && attr->timeout >= TIMER_LIMIT)
		return "timeout: a 5-bit code (0..31)";
	if ((mask & HROCE_QP_MIN_RNR_TIMER) && attr->min_rnr_timer >= TIMER_LIMIT)
		return "min_rnr_timer: a 5-bit code (0..31)";
	if ((mask & HROCE_QP_RETRY_CNT) && attr->retry_cnt >= RETRY_LIMIT)
		return "retry_cnt: 0..7";
	if ((mask & HROCE_QP_RNR_RETRY) && attr->rnr_retry >= RETRY_LIMIT)
		return "rnr_retry: 0..7 (7: retry without end)";
	if ((mask & HROCE_QP_MAX_QP_RD_ATOMIC) && attr->max_rd_atomic > da->max_qp_init_rd_atom)
		return "max_rd_atomic: above the device's max_qp_init_rd_atom";
	if ((mask & HROCE_QP_MAX_DEST_RD_ATOMIC) && attr->max_dest_rd_atomic > da->max_qp_rd_atom)
		return "max_dest_rd_atomic: above the device's max_qp_rd_atom";
	if ((mask & HROCE_QP_SQ_PSN) && attr->sq_psn > PSN_MASK)
		return "sq_psn: PSNs are 24 bits";
	if ((mask & HROCE_QP_RQ_PSN) && attr->rq_psn > PSN_MASK)
		return "rq_psn: PSNs are 24 bits";
	return NULL;
}

/*
 * A path toward the device itself. The core has no internal loopback (a frame to its own
 * MAC leaves on the wire and never comes back), so such a QP would never complete.
 */
static bool loopback(struct hroce_dev *dev, const struct hroce_dev_attr *da,
		     const struct hroce_ah_attr *ah)
{
	static const uint8_t no_mac[6];

	return hroce_gid_index(dev, ah->dgid) >= 0 ||
	       (memcmp(ah->dmac, no_mac, 6) && !memcmp(ah->dmac, da->mac, 6));
}

/* What is wrong with a path (hroce_ah_attr), as a sentence; NULL if nothing. */
static const char *bad_path(struct hroce_dev *dev, const struct hroce_ah_attr *ah)
{
	uint8_t sgid[16];
	uint32_t ip;

	if (hroce_query_gid(dev, ah->sgid_index, sgid))
		return "ah_attr.sgid_index: not an index of the device's GID table";
	if (hroce_gid_is_ipv4(sgid, NULL) != hroce_gid_is_ipv4(ah->dgid, NULL))
		return hroce_gid_is_ipv4(sgid, NULL)
			       ? "ah_attr: the source GID is IPv4 (::ffff:a.b.c.d) and the "
				 "destination GID IPv6: both must be of one family"
			       : "ah_attr: the source GID is IPv6 and the destination GID IPv4 "
				 "(::ffff:a.b.c.d): both must be of one family";
	if (hroce_gid_is_ipv4(ah->dgid, &ip) ? ip == 0 || ip >> 28 == 0xe || ip == UINT32_MAX
					     : !!hroce_ipv6_unusable(ah->dgid))
		return "ah_attr.dgid: not a unicast address";
	if (ah->flow_label >> 20)
		return "ah_attr.flow_label: 20 bits";
	return NULL;
}

int hroce_qp_check_modify(struct hroce_dev *dev, enum hroce_qp_state cur,
			  const struct hroce_qp_attr *attr, unsigned int mask, const char **why)
{
	enum hroce_qp_state next;
	const struct qp_transition *t;
	struct hroce_dev_attr da;
	const char *bad;
	int err;

	if (why)
		*why = NULL;
	if ((mask & HROCE_QP_CUR_STATE) && (unsigned int)attr->cur_qp_state >= NSTATES)
		bad = "cur_qp_state: not a QP state";
	else if ((mask & HROCE_QP_STATE) && (unsigned int)attr->qp_state >= NSTATES)
		bad = "qp_state: not a QP state";
	else
		bad = NULL;
	if (bad)
		goto invalid;
	if (mask & HROCE_QP_CUR_STATE)
		cur = attr->cur_qp_state;
	next = (mask & HROCE_QP_STATE) ? attr->qp_state : cur;
	t = &rc_rules[cur][next];
	if (!t->valid) {
		bad = "a transition IBTA does not allow for an RC QP";
		goto invalid;
	}
	if ((mask & t->required) != t->required) {
		bad = "an attribute the transition requires is missing";
		goto invalid;
	}
	if (mask & ~(t->required | t->optional | HROCE_QP_STATE)) {
		bad = "an attribute the transition does not allow";
		goto invalid;
	}
	err = hroce_query_dev(dev, &da);
	if (err)
		return err;
	bad = out_of_range(&da, attr, mask);
	if (!bad && (mask & HROCE_QP_AV))
		bad = bad_path(dev, &attr->ah_attr);
	if (bad)
		goto invalid;
	if (mask & NOT_SERVED) {
		if (why)
			*why = "alternate paths, path migration and SQD notification are not served";
		return EOPNOTSUPP;
	}
	if ((mask & HROCE_QP_AV) && loopback(dev, &da, &attr->ah_attr)) {
		if (why)
			*why = "a path to the device's own address (loopback) is not served: the "
			       "core has no internal loopback, its frames would never come back";
		return EOPNOTSUPP;
	}
	return 0;

invalid:
	if (why)
		*why = bad;
	return EINVAL;
}
