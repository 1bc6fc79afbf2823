// SPDX-License-Identifier: MIT
/*
 * A device: its bus, the DMA memory of its context tables and mailbox, the IOVA space, the
 * command mailbox, and the registers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hroce_config.h"
#include "hroce_priv.h"

#define DEFAULT_LOG_QPS 10
#define DEFAULT_LOG_CQS 10
#define DEFAULT_LOG_MRS 12
/* IOVAs handed out start here, so that 0 and low addresses stay unmapped */
#define IOVA_BASE (UINT64_C(1) << 32)
/* a command the core does not finish in this many status reads has hung */
#define CMD_POLLS 100000

static void (*log_fn)(void *ctx, enum hroce_log_level level, const char *msg);
static void *log_ctx;

void hroce_set_log(void (*fn)(void *ctx, enum hroce_log_level level, const char *msg), void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void hroce_log(enum hroce_log_level level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (log_fn)
		log_fn(log_ctx, level, msg);
	else if (level <= HROCE_LOG_WARN)
		fprintf(stderr, "libhroce: %s: %s\n", names[level], msg);
}

/* Where the next range may start: a guard page after [iova, iova + len) */
static uint64_t iova_end(uint64_t iova, uint64_t len)
{
	/* an overrun faults instead of landing in the next range */
	return (iova + len + 2 * HROCE_PAGE - 1) & ~(uint64_t)(HROCE_PAGE - 1);
}

uint64_t hroce_iova_alloc(struct hroce_dev *dev, uint64_t len, uint64_t align, uint64_t offset)
{
	uint64_t base, iova;

	pthread_mutex_lock(&dev->lock);
	base = (dev->iova_next + align - 1) & ~(align - 1);
	iova = base + offset;
	dev->iova_before_last = dev->iova_next;
	dev->iova_next = iova_end(iova, len);
	pthread_mutex_unlock(&dev->lock);
	return iova;
}

void hroce_iova_free(struct hroce_dev *dev, uint64_t iova, uint64_t len)
{
	pthread_mutex_lock(&dev->lock);
	/* the last one handed out: everything from where it was taken goes back */
	if (dev->iova_next == iova_end(iova, len))
		dev->iova_next = dev->iova_before_last;
	pthread_mutex_unlock(&dev->lock);
}

int hroce_dma_alloc(struct hroce_dev *dev, size_t len, uint64_t align, struct hroce_dma *dma)
{
	size_t size = (len + HROCE_PAGE - 1) & ~(size_t)(HROCE_PAGE - 1);
	int err;

	if (align < HROCE_PAGE)
		align = HROCE_PAGE;
	dma->vaddr = aligned_alloc(HROCE_PAGE, size);
	if (!dma->vaddr)
		return ENOMEM;
	memset(dma->vaddr, 0, size);
	dma->len = size;
	dma->iova = hroce_iova_alloc(dev, size, align, 0);
	err = dev->bus->ops->dma_map(dev->bus, dma->vaddr, dma->iova, size, HROCE_BUS_DMA_WRITE);
	if (err) {
		hroce_log(HROCE_LOG_ERR, "%s: cannot map %zu bytes of DMA memory: %s", dev->name,
			  size, strerror(err));
		free(dma->vaddr);
		dma->vaddr = NULL;
		return err;
	}
	return 0;
}

void hroce_dma_free(struct hroce_dev *dev, struct hroce_dma *dma)
{
	if (!dma->vaddr)
		return;
	dev->bus->ops->dma_unmap(dev->bus, dma->iova, dma->len);
	free(dma->vaddr);
	dma->vaddr = NULL;
}

void hroce_mmio_write64(struct hroce_dev *dev, uint64_t offset, uint64_t value)
{
	dev->bus->ops->mmio_write(dev->bus, offset, &value, sizeof(value));
}

uint64_t hroce_mmio_read64(struct hroce_dev *dev, uint64_t offset)
{
	return dev->bus->ops->mmio_read64(dev->bus, offset);
}

void hroce_doorbell(struct hroce_dev *dev, uint64_t reg, uint32_t num, uint16_t index)
{
	uint64_t v = (uint64_t)num << HROCE_DOORBELL_NUM_LSB | (uint64_t)index
								       << HROCE_DOORBELL_INDEX_LSB;

	/* what the device will read (WQEs, ring entries) is in memory before it learns of it */
	atomic_thread_fence(memory_order_release);
	hroce_mmio_write64(dev, reg, v);
}

static int cmd_errno(unsigned int result)
{
	switch (result) {
	case HROCE_CMD_RESULT_OK:
		return 0;
	case HROCE_CMD_RESULT_BAD_OP:
		return EOPNOTSUPP;
	case HROCE_CMD_RESULT_BAD_NUM:
		return ENOENT;
	case HROCE_CMD_RESULT_BAD_STATE:
	case HROCE_CMD_RESULT_BAD_PARAM:
		return EINVAL;
	case HROCE_CMD_RESULT_EXISTS:
		return EEXIST;
	case HROCE_CMD_RESULT_NO_TABLE:
		return ENXIO;
	default:
		return EIO;
	}
}

static int cmd_locked(struct hroce_dev *dev, unsigned int op, uint32_t num, uint64_t arg,
		      const void *in, size_t in_len, void *out, size_t out_len);

int hroce_cmd(struct hroce_dev *dev, unsigned int op, uint32_t num, uint64_t arg, const void *in,
	      size_t in_len, void *out, size_t out_len)
{
	int err;

	/* one mailbox for every open of the device */
	pthread_mutex_lock(&dev->lock);
	err = cmd_locked(dev, op, num, arg, in, in_len, out, out_len);
	pthread_mutex_unlock(&dev->lock);
	return err;
}

static int cmd_locked(struct hroce_dev *dev, unsigned int op, uint32_t num, uint64_t arg,
		      const void *in, size_t in_len, void *out, size_t out_len)
{
	uint8_t *mb = dev->mailbox.vaddr;
	uint16_t seq = dev->cmd_seq + 1;
	uint64_t status = 0;
	unsigned int result;
	int i;

	memset(mb, 0, HROCE_CMD_MAILBOX_OUT);
	if (in)
		memcpy(mb, in, in_len);
	atomic_thread_fence(memory_order_release);
	hroce_mmio_write64(dev, HROCE_REG_CMD_ARG, arg);
	hroce_mmio_write64(dev, HROCE_REG_CMD,
			   (uint64_t)op << HROCE_CMD_OP_LSB | (uint64_t)num << HROCE_CMD_NUM_LSB);
	for (i = 0; i < CMD_POLLS; i++) {
		status = hroce_mmio_read64(dev, HROCE_REG_CMD);
		if (status == ~UINT64_C(0))
			break; /* the device is gone */
		if (!HROCE_REG_FIELD(status, CMD_STATUS, BUSY) &&
		    HROCE_REG_FIELD(status, CMD_STATUS, SEQ) == seq)
			break;
	}
	if (i == CMD_POLLS || status == ~UINT64_C(0)) {
		hroce_log(HROCE_LOG_ERR, "%s: command %s %u: no answer from the device", dev->name,
			  hroce_cmd_op_name(op), num);
		return ETIMEDOUT;
	}
	dev->cmd_seq = seq;
	result = HROCE_REG_FIELD(status, CMD_STATUS, RESULT);
	if (result != HROCE_CMD_RESULT_OK) {
		hroce_log(HROCE_LOG_DEBUG, "%s: command %s %u: %s", dev->name,
			  hroce_cmd_op_name(op), num, hroce_cmd_result_name(result));
		return cmd_errno(result);
	}
	if (out) {
		atomic_thread_fence(memory_order_acquire);
		memcpy(out, mb + HROCE_CMD_MAILBOX_OUT, out_len);
	}
	return 0;
}

/*
 * No MAC and no address given: those the configuration has for the device, if any. A
 * configuration that cannot be read fails the open (its message said why).
 */
static int config_addresses(struct hroce_dev *dev, const char *spec)
{
	static const uint8_t zero[6];
	const struct hroce_config_dev *d;
	struct hroce_config *cfg;
	int err;

	if (memcmp(dev->params.mac, zero, 6) || dev->params.ipv4)
		return 0;
	err = hroce_config_load(&cfg);
	if (err)
		return err;
	d = hroce_config_find_spec(cfg, spec);
	if (d) {
		memcpy(dev->params.mac, d->mac, 6);
		dev->params.ipv4 = d->ipv4;
		memcpy(dev->params.ipv6, d->ipv6, sizeof(d->ipv6));
		dev->params.nipv6 = d->nipv6;
	}
	hroce_config_free(cfg);
	return 0;
}

static int setup_tables(struct hroce_dev *dev)
{
	const struct hroce_dev_params *p = &dev->params;
	unsigned int nqp = 1u << p->log_qps, ncq = 1u << p->log_cqs, nmr = 1u << p->log_mrs;
	int err;

	err = hroce_dma_alloc(dev, (size_t)nqp * HROCE_QPC_BYTES, HROCE_PAGE, &dev->qpc);
	err = err ?: hroce_dma_alloc(dev, (size_t)ncq * HROCE_CQC_BYTES, HROCE_PAGE, &dev->cqc);
	err = err ?: hroce_dma_alloc(dev, (size_t)nmr * HROCE_MRC_BYTES, HROCE_PAGE, &dev->mrc);
	err = err ?: hroce_dma_alloc(dev, HROCE_CMD_MAILBOX_BYTES, HROCE_PAGE, &dev->mailbox);
	if (err)
		return err;
	dev->qps = calloc(nqp, sizeof(*dev->qps));
	dev->cqs = calloc(ncq, sizeof(*dev->cqs));
	dev->mr_used = calloc(nmr, 1);
	dev->mr_tag = calloc(nmr, 1);
	if (!dev->qps || !dev->cqs || !dev->mr_used || !dev->mr_tag)
		return ENOMEM;
	hroce_mmio_write64(dev, HROCE_REG_QPC_BASE, dev->qpc.iova);
	hroce_mmio_write64(dev, HROCE_REG_QPC_LOG, p->log_qps);
	hroce_mmio_write64(dev, HROCE_REG_CQC_BASE, dev->cqc.iova);
	hroce_mmio_write64(dev, HROCE_REG_CQC_LOG, p->log_cqs);
	hroce_mmio_write64(dev, HROCE_REG_MRC_BASE, dev->mrc.iova);
	hroce_mmio_write64(dev, HROCE_REG_MRC_LOG, p->log_mrs);
	hroce_mmio_write64(dev, HROCE_REG_CMD_MAILBOX, dev->mailbox.iova);
	return hroce_eq_setup(dev);
}

/* The tables' memory, and the driver's arrays; the device's mappings of it are not touched. */
static void free_tables_memory(struct hroce_dev *dev)
{
	struct hroce_dma *dma[] = { &dev->eq, &dev->mailbox, &dev->mrc, &dev->cqc, &dev->qpc };

	free(dev->qps);
	free(dev->cqs);
	free(dev->mr_used);
	free(dev->mr_tag);
	for (size_t i = 0; i < sizeof(dma) / sizeof(dma[0]); i++) {
		free(dma[i]->vaddr);
		dma[i]->vaddr = NULL;
	}
}

static void free_tables(struct hroce_dev *dev)
{
	struct hroce_dma *dma[] = { &dev->eq, &dev->mailbox, &dev->mrc, &dev->cqc, &dev->qpc };

	for (size_t i = 0; i < sizeof(dma) / sizeof(dma[0]); i++)
		if (dma[i]->vaddr)
			dev->bus->ops->dma_unmap(dev->bus, dma[i]->iova, dma[i]->len);
	free_tables_memory(dev);
}

/* The devices this process opened (a child of fork() finds its parent's: not its own). */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hroce_dev *open_list;

static struct hroce_dev *open_device(const char *spec, const struct hroce_dev_params *params);

struct hroce_dev *hroce_open(const char *spec, const struct hroce_dev_params *params)
{
	struct hroce_dev *dev;

	if (!spec) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&open_lock);
	for (dev = open_list; dev; dev = dev->next_open) {
		if (!strcmp(dev->name, spec) && dev->owner == getpid()) {
			dev->opens++;
			break;
		}
	}
	if (!dev) {
		dev = open_device(spec, params);
		if (dev) {
			dev->opens = 1;
			dev->next_open = open_list;
			open_list = dev;
		}
	}
	pthread_mutex_unlock(&open_lock);
	return dev;
}

_Static_assert(HROCE_DEV_IPV6_MAX == HROCE_IPV6_ADDRS && HROCE_CONFIG_IPV6_MAX == HROCE_IPV6_ADDRS,
	       "a device has as many IPv6 addresses as the core's REG_IPV6 holds");

/* The IPv6 addresses the device is given: unicast, distinct, not its link-local one. */
static int check_ipv6(struct hroce_dev *dev, const char *spec)
{
	char text[INET6_ADDRSTRLEN];
	const char *why = NULL;
	uint8_t ll[16];
	unsigned int i;

	if (dev->params.nipv6 > HROCE_DEV_IPV6_MAX) {
		hroce_log(HROCE_LOG_ERR, "%s: %u IPv6 addresses, the core takes %u", spec,
			  dev->params.nipv6, HROCE_DEV_IPV6_MAX);
		return EINVAL;
	}
	hroce_link_local(dev->params.mac, ll);
	for (i = 0; i < dev->params.nipv6 && !why; i++) {
		const uint8_t *a = dev->params.ipv6[i];

		why = hroce_ipv6_unusable(a);
		if (!why && !memcmp(a, ll, 16))
			why = "the link-local address, which the device always has (GID 0)";
		for (unsigned int j = 0; j < i && !why; j++)
			if (!memcmp(a, dev->params.ipv6[j], 16))
				why = "given twice";
	}
	if (!why)
		return 0;
	inet_ntop(AF_INET6, dev->params.ipv6[i - 1], text, sizeof(text));
	hroce_log(HROCE_LOG_ERR, "%s: IPv6 address %s: %s", spec, text, why);
	return EINVAL;
}

static struct hroce_dev *open_device(const char *spec, const struct hroce_dev_params *params)
{
	struct hroce_dev *dev;
	uint64_t mac = 0, status;
	int err, i;

	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", spec);
	if (params)
		dev->params = *params;
	if (!dev->params.log_qps)
		dev->params.log_qps = DEFAULT_LOG_QPS;
	if (!dev->params.log_cqs)
		dev->params.log_cqs = DEFAULT_LOG_CQS;
	if (!dev->params.log_mrs)
		dev->params.log_mrs = DEFAULT_LOG_MRS;
	dev->iova_next = IOVA_BASE;
	dev->next_pdn = 1;
	dev->owner = getpid();
	pthread_mutex_init(&dev->lock, NULL);
	err = config_addresses(dev, spec);
	err = err ?: check_ipv6(dev, spec);
	err = err ?: hroce_bus_open(spec, &dev->bus);
	if (err)
		goto err_free;

	dev->core_id = (uint32_t)hroce_mmio_read64(dev, HROCE_REG_ID);
	if (dev->core_id != HROCE_CORE_ID) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: not a HardRoCE core (ID register reads 0x%08x, expected 0x%08x)",
			  spec, dev->core_id, HROCE_CORE_ID);
		err = ENODEV;
		goto err_bus;
	}
	dev->core_version = (uint32_t)hroce_mmio_read64(dev, HROCE_REG_VERSION);
	if ((dev->core_version >> 16 & 0xff) != (HROCE_CORE_VERSION >> 16 & 0xff)) {
		hroce_log(HROCE_LOG_ERR,
			  "%s: the core is version %u.%u.%u, this driver speaks %u.x: rebuild one "
			  "of them from the same tree",
			  spec, dev->core_version >> 16 & 0xff, dev->core_version >> 8 & 0xff,
			  dev->core_version & 0xff, HROCE_CORE_VERSION >> 16 & 0xff);
		err = ENODEV;
		goto err_bus;
	}
	dev->caps = hroce_mmio_read64(dev, HROCE_REG_CAPS);
	if (dev->params.log_qps > HROCE_REG_FIELD(dev->caps, CAPS, LOG_MAX_QP) ||
	    dev->params.log_cqs > HROCE_REG_FIELD(dev->caps, CAPS, LOG_MAX_CQ) ||
	    dev->params.log_mrs > HROCE_REG_FIELD(dev->caps, CAPS, LOG_MAX_MR)) {
		hroce_log(HROCE_LOG_ERR, "%s: tables larger than the core supports", spec);
		err = EINVAL;
		goto err_bus;
	}
	status = hroce_mmio_read64(dev, HROCE_REG_CMD);
	dev->cmd_seq = HROCE_REG_FIELD(status, CMD_STATUS, SEQ);
	for (i = 0; i < 6; i++)
		mac = mac << 8 | dev->params.mac[i];
	hroce_mmio_write64(dev, HROCE_REG_MAC, mac);
	hroce_mmio_write64(dev, HROCE_REG_IPV4, dev->params.ipv4);
	for (i = 0; i < (int)dev->params.nipv6; i++)
		for (int half = 0; half < 2; half++) {
			uint64_t w = 0;

			for (int b = 0; b < 8; b++)
				w = w << 8 | dev->params.ipv6[i][half * 8 + b];
			hroce_mmio_write64(dev, HROCE_REG_IPV6 + 16 * i + 8 * half, w);
		}
	hroce_mmio_write64(dev, HROCE_REG_IPV6_VALID, (UINT64_C(1) << dev->params.nipv6) - 1);
	/*
	 * Writes are posted: the read flushes them, so that the core has its addresses when
	 * open returns (a peer's ARP request may come in at once, and must be answered).
	 */
	if (hroce_mmio_read64(dev, HROCE_REG_IPV4) != dev->params.ipv4) {
		hroce_log(HROCE_LOG_ERR, "%s: the core did not take its IPv4 address", spec);
		err = EIO;
		goto err_bus;
	}
	err = setup_tables(dev);
	if (err)
		goto err_tables;
	return dev;

err_tables:
	free_tables(dev);
err_bus:
	dev->bus->ops->close(dev->bus);
err_free:
	pthread_mutex_destroy(&dev->lock);
	free(dev);
	errno = err;
	return NULL;
}

void hroce_close(struct hroce_dev *dev)
{
	if (!dev)
		return;
	pthread_mutex_lock(&open_lock);
	if (dev->owner == getpid() && --dev->opens) {
		pthread_mutex_unlock(&open_lock); /* another open still uses it */
		return;
	}
	for (struct hroce_dev **pp = &open_list; *pp; pp = &(*pp)->next_open) {
		if (*pp == dev) {
			*pp = dev->next_open;
			break;
		}
	}
	pthread_mutex_unlock(&open_lock);
	if (dev->owner != getpid()) {
		/*
		 * A child of fork() closing its copy: the device, its tables and its mappings
		 * stay its parent's; only the child's memory goes.
		 */
		free_tables_memory(dev);
		dev->bus->ops->close(dev->bus);
		free(dev);
		return;
	}
	/* the core stops using the tables before their memory goes */
	hroce_mmio_write64(dev, HROCE_REG_QPC_LOG, 0);
	hroce_mmio_write64(dev, HROCE_REG_CQC_LOG, 0);
	hroce_mmio_write64(dev, HROCE_REG_MRC_LOG, 0);
	hroce_eq_stop(dev);
	(void)hroce_mmio_read64(dev, HROCE_REG_ID);
	free_tables(dev);
	dev->bus->ops->close(dev->bus);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

const char *hroce_dev_name(const struct hroce_dev *dev)
{
	return dev->name;
}

int hroce_query_dev(struct hroce_dev *dev, struct hroce_dev_attr *attr)
{
	unsigned int log_wqe = HROCE_REG_FIELD(dev->caps, CAPS, LOG_MAX_WQE);

	memset(attr, 0, sizeof(*attr));
	attr->core_id = dev->core_id;
	attr->core_version = dev->core_version;
	/* QPNs 0 and 1 are the special QPs of InfiniBand: not handed out */
	attr->max_qp = (1u << dev->params.log_qps) - 2;
	attr->max_cq = 1u << dev->params.log_cqs;
	attr->max_mr = 1u << dev->params.log_mrs;
	attr->max_qp_wr = (1u << log_wqe) - 1;
	attr->max_cqe = (1u << 22) - 1;
	attr->max_sge = HROCE_REG_FIELD(dev->caps, CAPS, MAX_SGE);
	attr->max_inline = HROCE_MAX_INLINE;
	attr->max_qp_rd_atom = 16;
	/*
	 * the requester only counts its READs in flight (QPC RD_INFLIGHT, 8 bits): as many as
	 * rxe allows, whose perftest peers ask for 128 (perftest moves to RTS with the
	 * responder's number)
	 */
	attr->max_qp_init_rd_atom = 128;
	attr->max_mr_size = HROCE_MAX_MR_SIZE;
	attr->max_msg_sz = UINT32_C(1) << 31;
	attr->qp_cache_lines = HROCE_REG_FIELD(dev->caps, CAPS, QP_CACHE_LINES);
	attr->mr_cache_lines = HROCE_REG_FIELD(dev->caps, CAPS, MR_CACHE_LINES);
	memcpy(attr->mac, dev->params.mac, 6);
	attr->ipv4 = dev->params.ipv4;
	attr->gid_tbl_len = HROCE_GID_INDEX_IPV6 + dev->params.nipv6;
	return 0;
}

uint64_t hroce_core_counter(struct hroce_dev *dev, unsigned int index)
{
	return hroce_mmio_read64(dev, HROCE_REG_CORE_COUNTERS + 8 * (uint64_t)index);
}

uint64_t hroce_rx_counter(struct hroce_dev *dev, unsigned int index)
{
	return hroce_mmio_read64(dev, HROCE_REG_RX_COUNTERS + 8 * (uint64_t)index);
}

void hroce_idle(struct hroce_dev *dev)
{
	dev->bus->ops->idle(dev->bus);
}

void hroce_pause(struct hroce_dev *dev, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	if (dev->bus->ops->pause)
		dev->bus->ops->pause(dev->bus, ns);
	else
		nanosleep(&ts, NULL);
}

uint64_t hroce_iova_faults(struct hroce_dev *dev)
{
	return dev->bus->ops->iova_faults ? dev->bus->ops->iova_faults(dev->bus) : 0;
}

void hroce_bus_stats(struct hroce_dev *dev,
		     void (*emit)(void *ctx, const char *name, uint64_t value), void *ctx)
{
	if (dev->bus->ops->stats)
		dev->bus->ops->stats(dev->bus, emit, ctx);
}

uint64_t hroce_take_irqs(struct hroce_dev *dev)
{
	return dev->bus->ops->take_irqs(dev->bus);
}

int hroce_irq_fd(struct hroce_dev *dev)
{
	if (!dev->bus->ops->irq_fd) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return dev->bus->ops->irq_fd(dev->bus);
}

struct hroce_qp *hroce_dev_qp(struct hroce_dev *dev, uint32_t qpn)
{
	if (qpn >> dev->params.log_qps)
		return NULL;
	return dev->qps[qpn];
}
