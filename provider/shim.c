// SPDX-License-Identifier: MIT
/*
 * The preloaded shim: what libibverbs would ask the kernel or sysfs, answered for
 * HardRoCE's devices; everything else goes to the real libibverbs.
 *
 * - ibv_get_device_list: the kernel's devices (none without RDMA in the kernel) and ours.
 * - GIDs (libhroce's table: link-local, IPv4-mapped, the configured IPv6 addresses), P_Key,
 *   node GUID: from the device's configured MAC and addresses.
 * - Completion channels: a pipe the provider's event thread writes event records into.
 * - Lockstep: the program's TCP connection and blocking reads, which a device in lockstep
 *   must see (read, recv, write, send, connect, accept).
 *
 * These definitions are unversioned, so they satisfy the versioned references of the
 * program and of libibverbs itself (calls between its public symbols go through the PLT);
 * the real functions are found with dlvsym.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hroce_verbs.h"

#define EXPORT __attribute__((visibility("default")))

static void *real(const char *name, const char *version)
{
	void *fn = dlvsym(RTLD_NEXT, name, version);

	if (!fn)
		hroce_verbs_log(HROCE_LOG_ERR, "libibverbs has no %s@%s", name, version);
	return fn;
}

/* The real function of that name and version, or NULL (logged). */
#define REAL(fn, name, version) (*(void **)&(fn) = real(name, version), (fn))

EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **(*real_list)(int *);
	struct ibv_device **kernel = NULL, **list;
	struct hroce_vdev **ours;
	int nkernel = 0, nours, i;

	if (REAL(real_list, "ibv_get_device_list", "IBVERBS_1.1"))
		kernel = real_list(&nkernel);
	if (!kernel)
		nkernel = 0; /* no RDMA in the kernel: ENOSYS, an empty list */
	ours = hroce_verbs_devices(&nours);
	list = calloc(nkernel + nours + 1, sizeof(*list));
	if (!list) {
		/* the kernel's references are the caller's through its own list */
		if (num)
			*num = nkernel;
		// cppcheck-suppress returnDanglingLifetime ; kernel is libibverbs' array
		return kernel;
	}
	for (i = 0; i < nkernel; i++)
		list[i] = kernel[i];
	for (int j = 0; j < nours; j++) {
		atomic_fetch_add(&ours[j]->vdev.refcount, 1);
		list[i++] = &ours[j]->vdev.device;
	}
	free(kernel); /* the array only: its references moved to the new one */
	if (num)
		*num = i;
	return list;
}

EXPORT __be64 ibv_get_device_guid(struct ibv_device *device)
{
	__be64 (*fn)(struct ibv_device *);

	if (hroce_is_device(device))
		return to_hdev(device)->node_guid;
	return REAL(fn, "ibv_get_device_guid", "IBVERBS_1.1") ? fn(device) : 0;
}

EXPORT int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
			 union ibv_gid *gid)
{
	int (*fn)(struct ibv_context *, uint8_t, int, union ibv_gid *);

	if (!hroce_is_context(context))
		return REAL(fn, "ibv_query_gid", "IBVERBS_1.1") ? fn(context, port_num, index, gid)
								: -1;
	if (port_num != 1 || index < 0 || hroce_context_gid(context, (unsigned int)index, gid))
		return -1;
	return 0;
}

static void gid_entry(struct ibv_context *context, uint32_t index, struct ibv_gid_entry *e,
		      size_t size)
{
	struct ibv_gid_entry full = { 0 };

	hroce_context_gid(context, index, &full.gid);
	full.gid_index = index;
	full.port_num = 1;
	full.gid_type = IBV_GID_TYPE_ROCE_V2;
	full.ndev_ifindex = 0; /* no kernel net device */
	memcpy(e, &full, size < sizeof(full) ? size : sizeof(full));
}

EXPORT int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index,
			     struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size)
{
	int (*fn)(struct ibv_context *, uint32_t, uint32_t, struct ibv_gid_entry *, uint32_t,
		  size_t);

	if (!hroce_is_context(context))
		return REAL(fn, "_ibv_query_gid_ex", "IBVERBS_1.11")
			       ? fn(context, port_num, gid_index, entry, flags, entry_size)
			       : ENOSYS;
	if (flags || port_num != 1 || entry_size < offsetof(struct ibv_gid_entry, gid_type))
		return EINVAL;
	if (gid_index >= hroce_context_gid_len(context))
		return ENODATA;
	gid_entry(context, gid_index, entry, entry_size);
	return 0;
}

EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries,
				    size_t max_entries, uint32_t flags, size_t entry_size)
{
	ssize_t (*fn)(struct ibv_context *, struct ibv_gid_entry *, size_t, uint32_t, size_t);
	size_t i, n;

	if (!hroce_is_context(context))
		return REAL(fn, "_ibv_query_gid_table", "IBVERBS_1.11")
			       ? fn(context, entries, max_entries, flags, entry_size)
			       : -ENOSYS;
	if (flags || entry_size < offsetof(struct ibv_gid_entry, gid_type))
		return -EINVAL;
	n = hroce_context_gid_len(context);
	if (max_entries < n)
		return -EINVAL;
	for (i = 0; i < n; i++)
		gid_entry(context, (uint32_t)i, (void *)((char *)entries + i * entry_size),
			  entry_size);
	return (ssize_t)n;
}

/* A private symbol of libibverbs (ibv_devinfo uses it): 1 is RoCE v2. */
EXPORT int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num, unsigned int index,
			      int *type)
{
	int (*fn)(struct ibv_context *, uint8_t, unsigned int, int *);

	if (!hroce_is_context(context)) {
		fn = real("ibv_query_gid_type", HROCE_VERBS_PRIVATE_VERSION);
		return fn ? fn(context, port_num, index, type) : -1;
	}
	if (port_num != 1 || index >= hroce_context_gid_len(context))
		return -1;
	*type = 1;
	return 0;
}

EXPORT int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)
{
	int (*fn)(struct ibv_context *, uint8_t, int, __be16 *);

	if (!hroce_is_context(context))
		return REAL(fn, "ibv_query_pkey", "IBVERBS_1.1")
			       ? fn(context, port_num, index, pkey)
			       : -1;
	if (port_num != 1 || index != 0)
		return -1;
	*pkey = htobe16(0xffff); /* the default partition, full member */
	return 0;
}

/* ---------------------------------------------------------------------------------------
 * Completion channels
 */

struct hroce_channel {
	struct ibv_comp_channel channel;
	int write_fd;
	struct hroce_channel *next;
};

static pthread_mutex_t channels_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hroce_channel *channels;

int hroce_channel_write_fd(const struct ibv_comp_channel *channel)
{
	int fd = -1;

	pthread_mutex_lock(&channels_lock);
	for (struct hroce_channel *c = channels; c; c = c->next)
		if (&c->channel == channel)
			fd = c->write_fd;
	pthread_mutex_unlock(&channels_lock);
	return fd;
}

EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	struct ibv_comp_channel *(*fn)(struct ibv_context *);
	struct hroce_channel *c;
	int fds[2];

	if (!hroce_is_context(context))
		return REAL(fn, "ibv_create_comp_channel", "IBVERBS_1.0") ? fn(context) : NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	if (pipe2(fds, O_CLOEXEC)) {
		free(c);
		return NULL;
	}
	c->channel.context = context;
	c->channel.fd = fds[0];
	c->channel.refcnt = 0;
	c->write_fd = fds[1];
	pthread_mutex_lock(&channels_lock);
	c->next = channels;
	channels = c;
	pthread_mutex_unlock(&channels_lock);
	return &c->channel;
}

EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	int (*fn)(struct ibv_comp_channel *);
	struct hroce_channel **p, *c = NULL;
	int err = 0;

	pthread_mutex_lock(&channels_lock);
	for (p = &channels; *p; p = &(*p)->next) {
		if (&(*p)->channel == channel) {
			c = *p;
			break;
		}
	}
	if (c && channel->refcnt)
		err = EBUSY;
	else if (c)
		*p = c->next;
	pthread_mutex_unlock(&channels_lock);
	if (!c)
		return REAL(fn, "ibv_destroy_comp_channel", "IBVERBS_1.0") ? fn(channel) : ENOSYS;
	if (err)
		return err;
	close(c->channel.fd);
	close(c->write_fd);
	free(c);
	return 0;
}

/* ---------------------------------------------------------------------------------------
 * Lockstep (hroce.h): the program's out-of-band TCP connection and its completion channels
 *
 * A device in lockstep runs only while the program waits, and must know when it does: a
 * blocking read of a completion channel waits at the simulated clock's boundaries; and
 * what goes over a TCP socket is counted, so that the peer's read (or accept) returns at
 * the boundary after the one this side wrote (or connected) at, whatever the wall clock
 * did. Every stream socket of IPv4 or IPv6 counts as the connection to the peer: lockstep
 * supports programs (perftest, the pingpongs) that have that one. Nothing changes without
 * a device in lockstep.
 */

static void *real_libc(const char *name)
{
	void *fn = dlsym(RTLD_NEXT, name);

	if (!fn)
		hroce_verbs_log(HROCE_LOG_ERR, "the C library has no %s", name);
	return fn;
}

#define LIBC(fn, name) ((fn) ? (fn) : (*(void **)&(fn) = real_libc(name), (fn)))

static bool inet_stream(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int type;
	socklen_t tlen = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) || type != SOCK_STREAM ||
	    getsockname(fd, (struct sockaddr *)&ss, &len))
		return false;
	return ss.ss_family == AF_INET || ss.ss_family == AF_INET6;
}

static bool blocking(int fd, int flags)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && !(fl & O_NONBLOCK) && !(flags & MSG_DONTWAIT);
}

static bool is_channel(int fd)
{
	bool found = false;

	pthread_mutex_lock(&channels_lock);
	for (struct hroce_channel *c = channels; c && !found; c = c->next)
		found = c->channel.fd == fd;
	pthread_mutex_unlock(&channels_lock);
	return found;
}

/* Before a read of fd: waits as lockstep says; true if the read takes out-of-band bytes. */
static bool lockstep_read(int fd, size_t n, int flags)
{
	int saved = errno;
	bool oob = false;

	if (!n || !hroce_lockstep())
		return false;
	if (is_channel(fd)) {
		struct pollfd p = { fd, POLLIN, 0 };

		if (blocking(fd, flags))
			hroce_wait_poll(&p, 1);
	} else if (inet_stream(fd) && blocking(fd, flags)) {
		hroce_oob_wait(HROCE_OOB_BYTES);
		oob = !(flags & MSG_PEEK);
	}
	errno = saved;
	return oob;
}

static void lockstep_took(bool oob, ssize_t r)
{
	if (oob && r > 0)
		hroce_oob_taken(HROCE_OOB_BYTES, (uint64_t)r);
}

/* Before a write to fd: counts n if it goes to the peer; true if it does. */
static bool lockstep_write(int fd, size_t n)
{
	int saved = errno;
	bool oob = n && hroce_lockstep() && inet_stream(fd);

	if (oob)
		hroce_oob_sent(HROCE_OOB_BYTES, (int64_t)n);
	errno = saved;
	return oob;
}

static void lockstep_wrote(bool oob, size_t n, ssize_t r)
{
	int saved = errno; /* the write's, for its caller */

	if (oob && (r < 0 || (size_t)r < n))
		hroce_oob_sent(HROCE_OOB_BYTES, -(int64_t)(n - (r > 0 ? (size_t)r : 0)));
	errno = saved;
}

EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*fn)(int, void *, size_t);
	bool oob = lockstep_read(fd, n, 0);
	ssize_t r = LIBC(fn, "read")(fd, buf, n);

	lockstep_took(oob, r);
	return r;
}

EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	static ssize_t (*fn)(int, void *, size_t, int);
	bool oob = lockstep_read(fd, n, flags);
	ssize_t r = LIBC(fn, "recv")(fd, buf, n, flags);

	lockstep_took(oob, r);
	return r;
}

EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*fn)(int, const void *, size_t);
	bool oob = lockstep_write(fd, n);
	ssize_t r = LIBC(fn, "write")(fd, buf, n);

	lockstep_wrote(oob, n, r);
	return r;
}

EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	static ssize_t (*fn)(int, const void *, size_t, int);
	bool oob = lockstep_write(fd, n);
	ssize_t r = LIBC(fn, "send")(fd, buf, n, flags);

	lockstep_wrote(oob, n, r);
	return r;
}

EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*fn)(int, const struct sockaddr *, socklen_t);
	bool oob = hroce_lockstep() && inet_stream(fd);
	int r;

	if (oob)
		hroce_oob_sent(HROCE_OOB_CONNECTS, 1);
	r = LIBC(fn, "connect")(fd, addr, len);
	if (oob && r && errno != EINPROGRESS) {
		int saved = errno;

		hroce_oob_sent(HROCE_OOB_CONNECTS, -1);
		errno = saved;
	}
	return r;
}

static bool lockstep_accept(int fd)
{
	int saved = errno;
	bool oob = hroce_lockstep() && inet_stream(fd) && blocking(fd, 0);

	if (oob)
		hroce_oob_wait(HROCE_OOB_CONNECTS);
	errno = saved;
	return oob;
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	static int (*fn)(int, struct sockaddr *, socklen_t *);
	bool oob = lockstep_accept(fd);
	int r = LIBC(fn, "accept")(fd, addr, len);

	if (oob && r >= 0)
		hroce_oob_taken(HROCE_OOB_CONNECTS, 1);
	return r;
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	static int (*fn)(int, struct sockaddr *, socklen_t *, int);
	bool oob = lockstep_accept(fd);
	int r = LIBC(fn, "accept4")(fd, addr, len, flags);

	if (oob && r >= 0)
		hroce_oob_taken(HROCE_OOB_CONNECTS, 1);
	return r;
}
