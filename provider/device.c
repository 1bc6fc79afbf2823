// SPDX-License-Identifier: MIT
/*
 * Devices and contexts: the devices of the configuration as libibverbs devices, opening
 * one (a libhroce device under an ibv_context), and the device and port queries.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hroce_config.h"
#include "hroce_contract.h"
#include "hroce_verbs.h"

/* Not a vendor perftest knows (no Mellanox or Amazon paths): rxe's "no OUI" value. */
#define HROCE_VENDOR_ID 0xffffff
#define HROCE_VENDOR_PART_ID 0x4852 /* "HR" */
#define HROCE_MAX_PD (1u << 20)

static int log_level = -1;

void hroce_verbs_log(enum hroce_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (log_level < 0) {
		const char *env = getenv("HROCE_LOG");

		log_level = env ? atoi(env) : HROCE_LOG_ERR;
	}
	if ((int)level > log_level)
		return;
	va_start(ap, fmt);
	fputs("hroce: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void driver_log(void *ctx, enum hroce_log_level level, const char *msg)
{
	(void)ctx;
	hroce_verbs_log(level, "%s", msg);
}

/* ---------------------------------------------------------------------------------------
 * libibverbs' private interface, found by its versioned names
 */

static struct hroce_verbs_private priv;

/* "44.0" from the name of the libibverbs that is loaded (libibverbs.so.1.14.44.0). */
static void rdma_core_version(char *buf, size_t len)
{
	void *fn = dlsym(RTLD_NEXT, "ibv_open_device"); /* libibverbs' own, not the shim's */
	char path[PATH_MAX];
	Dl_info info;
	const char *v;

	snprintf(buf, len, "unknown");
	if (!fn || !dladdr(fn, &info) || !info.dli_fname || !realpath(info.dli_fname, path))
		return;
	v = strstr(path, ".so.");
	if (!v)
		return;
	/* libibverbs.so.1.ABI.VERSION: the rdma-core version follows the library's */
	v += 4;
	for (int dots = 0; *v && dots < 2; v++)
		dots += *v == '.';
	if (*v)
		snprintf(buf, len, "%s", v);
}

static int resolve_private(void)
{
	static int result = -1;
	char version[32];

	if (result >= 0)
		return result;
	priv.init_and_alloc_context =
		dlvsym(RTLD_DEFAULT, "_verbs_init_and_alloc_context", HROCE_VERBS_PRIVATE_VERSION);
	priv.set_ops = dlvsym(RTLD_DEFAULT, "verbs_set_ops", HROCE_VERBS_PRIVATE_VERSION);
	priv.uninit_context =
		dlvsym(RTLD_DEFAULT, "verbs_uninit_context", HROCE_VERBS_PRIVATE_VERSION);
	if (priv.init_and_alloc_context && priv.set_ops && priv.uninit_context) {
		result = 0;
		return result;
	}
	rdma_core_version(version, sizeof(version));
	hroce_verbs_log(HROCE_LOG_ERR,
			"the installed libibverbs (rdma-core %s) does not have the private "
			"provider interface %s that HardRoCE is built for (rdma-core 34 to 56); "
			"install rdma-core 34..56 (Debian bookworm's libibverbs1 44.0) or build "
			"HardRoCE's provider for this version",
			version, HROCE_VERBS_PRIVATE_VERSION);
	result = ENOSYS;
	return result;
}

/*
 * verbs_set_ops() copies some ops into the public context: if they are not the functions
 * given, the structures declared in verbs_abi.h do not match this libibverbs.
 */
static int check_layout(struct verbs_context *vctx)
{
	struct ibv_context *c = &vctx->context;
	char version[32];

	if (c->ops.poll_cq == hroce_ctx_ops.poll_cq &&
	    c->ops.post_send == hroce_ctx_ops.post_send &&
	    c->ops.post_recv == hroce_ctx_ops.post_recv &&
	    c->ops.req_notify_cq == hroce_ctx_ops.req_notify_cq &&
	    vctx->query_device_ex == hroce_ctx_ops.query_device_ex)
		return 0;
	rdma_core_version(version, sizeof(version));
	hroce_verbs_log(HROCE_LOG_ERR,
			"libibverbs of rdma-core %s lays out its provider interface differently "
			"from private ABI %d (rdma-core 34 to 56) that HardRoCE declares; the "
			"device is not opened",
			version, HROCE_VERBS_PRIVATE_ABI);
	return EPROTO;
}

/* ---------------------------------------------------------------------------------------
 * Devices
 */

static struct verbs_context *alloc_context(struct ibv_device *device, int cmd_fd,
					   void *private_data);

static void uninit_device(struct verbs_device *vdev)
{
	/* the devices live as long as the process: their list is built once */
	(void)vdev;
}

static const struct verbs_device_ops hroce_dev_ops = {
	.name = "hroce",
	.match_min_abi_version = 0,
	.match_max_abi_version = INT_MAX,
	.alloc_context = alloc_context,
	.uninit_device = uninit_device,
};

bool hroce_is_device(const struct ibv_device *device)
{
	return container_of(device, struct verbs_device, device)->ops == &hroce_dev_ops;
}

bool hroce_is_context(const struct ibv_context *context)
{
	return context && hroce_is_device(context->device);
}

/* The node GUID: the modified EUI-64 of the MAC, which the link-local GID ends with. */
static __be64 guid_from_mac(const uint8_t mac[6])
{
	uint8_t ll[16];
	__be64 guid;

	hroce_link_local(mac, ll);
	memcpy(&guid, ll + 8, 8);
	return guid;
}

unsigned int hroce_context_gid_len(struct ibv_context *context)
{
	struct hroce_vctx *ctx = to_hctx(context);
	struct hroce_dev_attr da;

	pthread_mutex_lock(&ctx->lock);
	hroce_query_dev(ctx->dev, &da);
	pthread_mutex_unlock(&ctx->lock);
	return da.gid_tbl_len;
}

int hroce_context_gid(struct ibv_context *context, unsigned int index, union ibv_gid *gid)
{
	struct hroce_vctx *ctx = to_hctx(context);
	int err;

	pthread_mutex_lock(&ctx->lock);
	err = hroce_query_gid(ctx->dev, index, gid->raw);
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

static struct hroce_vdev **devices;
static int ndevices;
static pthread_once_t devices_once = PTHREAD_ONCE_INIT;

static void build_devices(void)
{
	struct hroce_config *cfg;
	int err, n, i = 0;

	hroce_set_log(driver_log, NULL);
	err = hroce_config_load(&cfg);
	if (err) {
		hroce_verbs_log(HROCE_LOG_ERR, "no devices: the configuration did not load (%s)",
				strerror(err));
		return;
	}
	n = (int)hroce_config_count(cfg);
	devices = calloc(n + 1, sizeof(*devices));
	if (!devices)
		goto out;
	for (int k = 0; k < n; k++) {
		const struct hroce_config_dev *cd = hroce_config_dev(cfg, k);
		struct hroce_vdev *hd = calloc(1, sizeof(*hd));
		struct ibv_device *d;

		if (!hd)
			break;
		d = &hd->vdev.device;
		hd->vdev.ops = &hroce_dev_ops;
		atomic_init(&hd->vdev.refcount, 1);
		hd->vdev.core_support = HROCE_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
		d->node_type = IBV_NODE_CA;
		d->transport_type = IBV_TRANSPORT_IB;
		snprintf(d->name, sizeof(d->name), "%s", cd->name);
		snprintf(d->dev_name, sizeof(d->dev_name), "%s", cd->name);
		snprintf(hd->spec, sizeof(hd->spec), "%s", cd->spec);
		memcpy(hd->params.mac, cd->mac, 6);
		hd->params.ipv4 = cd->ipv4;
		memcpy(hd->params.ipv6, cd->ipv6, sizeof(cd->ipv6));
		hd->params.nipv6 = cd->nipv6;
		hd->node_guid = guid_from_mac(cd->mac);
		pthread_mutex_init(&hd->events.lock, NULL);
		pthread_mutex_init(&hd->events.contexts_lock, NULL);
		devices[i++] = hd;
	}
	ndevices = i;
out:
	hroce_config_free(cfg);
}

struct hroce_vdev **hroce_verbs_devices(int *num)
{
	pthread_once(&devices_once, build_devices);
	*num = ndevices;
	return devices;
}

/* ---------------------------------------------------------------------------------------
 * Contexts
 */

static struct verbs_context *alloc_context(struct ibv_device *device, int cmd_fd,
					   void *private_data)
{
	struct hroce_vdev *hd = to_hdev(device);
	struct hroce_vctx *ctx;
	int err;

	(void)private_data;
	err = resolve_private();
	if (err) {
		errno = err;
		return NULL;
	}
	/* cmd_fd is -1: no kernel device behind a device without sysfs */
	ctx = priv.init_and_alloc_context(device, cmd_fd, sizeof(*ctx),
					  &((struct hroce_vctx *)NULL)->vctx, 0);
	if (!ctx)
		return NULL;
	priv.set_ops(&ctx->vctx, &hroce_ctx_ops);
	err = check_layout(&ctx->vctx);
	if (err)
		goto err_uninit;
	pthread_mutex_init(&ctx->lock, NULL);
	if (pipe2(ctx->async_pipe, O_CLOEXEC)) {
		err = errno;
		goto err_uninit;
	}
	/* the event thread never waits on a reader: only the read end blocks */
	fcntl(ctx->async_pipe[1], F_SETFL, O_NONBLOCK);
	ctx->vctx.context.async_fd = ctx->async_pipe[0];
	ctx->vctx.context.num_comp_vectors = 1;
	ctx->owner = getpid();
	/* a second context of the device gets the same device of libhroce */
	ctx->dev = hroce_open(hd->spec, &hd->params);
	if (!ctx->dev) {
		err = errno;
		hroce_verbs_log(HROCE_LOG_ERR, "%s: cannot open %s: %s", device->name, hd->spec,
				strerror(err));
		goto err_pipe;
	}
	pthread_mutex_lock(&hd->events.contexts_lock);
	ctx->next = hd->events.contexts;
	hd->events.contexts = ctx;
	pthread_mutex_unlock(&hd->events.contexts_lock);
	pthread_mutex_lock(&hd->events.lock);
	hd->contexts++;
	pthread_mutex_unlock(&hd->events.lock);
	/* async events (a CQ overrun) reach async_fd with or without completion channels */
	err = hroce_verbs_start_events(ctx);
	if (err)
		hroce_verbs_log(HROCE_LOG_WARN, "%s: no async events: %s", device->name,
				strerror(err));
	return &ctx->vctx;

err_pipe:
	close(ctx->async_pipe[1]);
	/* async_fd (the read end) is closed by verbs_uninit_context */
err_uninit:
	priv.uninit_context(&ctx->vctx);
	free(ctx);
	errno = err;
	return NULL;
}

/*
 * $HROCE_STATS: the device's counters when the context closes, one "NAME VALUE" a line
 * (rx.REASON, core.COUNTER, net.COUNTER, iova_faults, and the bus's: sim.*, wire.*), for tests and
 * studies of a finished run.
 */
static void emit_stat(void *ctx, const char *name, uint64_t value)
{
	fprintf(ctx, "%s %llu\n", name, (unsigned long long)value);
}

static void write_stats(struct hroce_vctx *ctx)
{
	const char *path = getenv("HROCE_STATS");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "w");
	if (!f) {
		hroce_verbs_log(HROCE_LOG_ERR, "HROCE_STATS: cannot write %s: %s", path,
				strerror(errno));
		return;
	}
	fprintf(f, "device %s\n", ctx->vctx.context.device->name);
	for (unsigned int i = 0; i < HROCE_ROCE_RX_DROP_COUNT; i++)
		fprintf(f, "rx.%s %llu\n", hroce_roce_rx_drop_name(i),
			(unsigned long long)hroce_rx_counter(ctx->dev, i));
	for (unsigned int i = 0; i < HROCE_CORE_COUNTER_COUNT; i++)
		fprintf(f, "core.%s %llu\n", hroce_core_counter_name(i),
			(unsigned long long)hroce_core_counter(ctx->dev, i));
	for (unsigned int i = 0; i < HROCE_NET_COUNTER_COUNT; i++)
		fprintf(f, "net.%s %llu\n", hroce_net_counter_name(i),
			(unsigned long long)hroce_net_counter(ctx->dev, i));
	fprintf(f, "iova_faults %llu\n", (unsigned long long)hroce_iova_faults(ctx->dev));
	hroce_bus_stats(ctx->dev, emit_stat, f);
	fclose(f);
}

void hroce_free_context(struct ibv_context *context)
{
	struct hroce_vctx *ctx = to_hctx(context);
	struct hroce_vdev *hd = to_hdev(context->device);

	/* a child of fork(): the event thread and the device are its parent's */
	if (ctx->owner == getpid()) {
		bool last;

		/* the event thread takes no async event for this context from now on */
		pthread_mutex_lock(&hd->events.contexts_lock);
		for (struct hroce_vctx **p = &hd->events.contexts; *p; p = &(*p)->next) {
			if (*p == ctx) {
				*p = ctx->next;
				break;
			}
		}
		pthread_mutex_unlock(&hd->events.contexts_lock);
		pthread_mutex_lock(&hd->events.lock);
		last = !--hd->contexts;
		pthread_mutex_unlock(&hd->events.lock);
		/* the device's events stop with its last context, before its last close */
		if (last)
			hroce_verbs_stop_events(hd);
		pthread_mutex_lock(&ctx->lock);
		write_stats(ctx);
		pthread_mutex_unlock(&ctx->lock);
	}
	hroce_close(ctx->dev);
	close(ctx->async_pipe[1]);
	pthread_mutex_destroy(&ctx->lock);
	priv.uninit_context(&ctx->vctx);
	free(ctx);
}

int hroce_query_device_ex(struct ibv_context *context,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct hroce_vctx *ctx = to_hctx(context);
	struct hroce_vdev *hd = to_hdev(context->device);
	struct ibv_device_attr_ex ex;
	struct ibv_device_attr *a = &ex.orig_attr;
	struct hroce_dev_attr da;
	int err;

	(void)input;
	if (attr_size < sizeof(*a))
		return EINVAL;
	pthread_mutex_lock(&ctx->lock);
	err = hroce_query_dev(ctx->dev, &da);
	pthread_mutex_unlock(&ctx->lock);
	if (err)
		return err;
	memset(&ex, 0, sizeof(ex));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "%u.%u.%u", da.core_version >> 16,
		 (da.core_version >> 8) & 0xff, da.core_version & 0xff);
	a->node_guid = hd->node_guid;
	a->sys_image_guid = hd->node_guid;
	a->max_mr_size = da.max_mr_size;
	a->page_size_cap = ~(uint64_t)0xfff; /* 4 KiB and every larger power of two */
	a->vendor_id = HROCE_VENDOR_ID;
	a->vendor_part_id = HROCE_VENDOR_PART_ID;
	a->hw_ver = da.core_id;
	a->max_qp = da.max_qp;
	a->max_qp_wr = da.max_qp_wr;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN;
	a->max_sge = da.max_sge;
	a->max_sge_rd = da.max_sge;
	a->max_cq = da.max_cq;
	a->max_cqe = da.max_cqe;
	a->max_mr = da.max_mr;
	a->max_pd = HROCE_MAX_PD;
	a->max_qp_rd_atom = da.max_qp_rd_atom;
	a->max_qp_init_rd_atom = da.max_qp_init_rd_atom;
	a->max_res_rd_atom = da.max_qp_rd_atom * da.max_qp;
	a->atomic_cap = IBV_ATOMIC_NONE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	a->phys_port_cnt = 1;
	ex.max_dm_size = 0;
	memcpy(attr, &ex, attr_size < sizeof(ex) ? attr_size : sizeof(ex));
	return 0;
}

int hroce_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr)
{
	struct hroce_vctx *ctx = to_hctx(context);
	struct hroce_dev_attr da;

	if (port_num != 1)
		return EINVAL;
	pthread_mutex_lock(&ctx->lock);
	hroce_query_dev(ctx->dev, &da);
	pthread_mutex_unlock(&ctx->lock);
	memset(attr, 0, sizeof(*attr));
	attr->state = IBV_PORT_ACTIVE;
	/* the largest path MTU code the core takes, which modify_qp checks against */
	attr->max_mtu = (enum ibv_mtu)HROCE_PATH_MTU_MAX;
	attr->active_mtu = (enum ibv_mtu)HROCE_PATH_MTU_MAX;
	attr->gid_tbl_len = (int)da.gid_tbl_len;
	attr->max_msg_sz = da.max_msg_sz;
	attr->pkey_tbl_len = 1;
	attr->active_width = 2;	 /* 4x */
	attr->active_speed = 32; /* EDR: 25 Gb/s a lane, 100 Gb/s */
	attr->phys_state = 5;	 /* LinkUp */
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

void hroce_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	(void)context;
	(void)event;
}
