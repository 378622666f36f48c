// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * net.bpf.c - TCP connects and their outcomes (tracepoint
 * sock/inet_sock_set_state).
 *
 * CLOSE -> SYN_SENT runs in the connecting task (connect(2)): the attempt is
 * counted in its image, the image marked connected, and the socket noted
 * in `net_socks` with its owner. SYN_SENT -> ESTABLISHED and SYN_SENT ->
 * CLOSE may run in softirq, in whatever task was current: the owner is
 * found by the socket. A failure is counted in the owner's image; an
 * image's first attempt to one destination (address, port) is remembered
 * in `net_dests` (per image, LRU, rate limited like failed-path keys) and
 * its outcome emitted as one PL_EV_NET record. Every other transition (the
 * whole life of an established connection, listeners, accepted
 * connections) returns at the first test.
 *
 * Not covered: UDP (connect(2) and sendto of datagrams have no tracepoint
 * here; DNS is ordinary), inbound connections (SYN_RECV -> ESTABLISHED runs
 * in softirq with no owner to name before accept(2)), and connects of the
 * sensor itself.
 */
#include "shared.bpf.h"
#include "net.bpf.h"

#define PL_TCP_ESTABLISHED 1
#define PL_TCP_SYN_SENT 2
#define PL_TCP_CLOSE 7
#define PL_IPPROTO_TCP 6
#define PL_AF_INET 2
#define PL_AF_INET6 10

struct net_sock {
	__u64 image_id;
	__u64 attempt_ns;
	__u32 tgid;
	__u32 new_dest; /* the image's first attempt to this destination */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct net_sock);
} net_socks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct pl_net_key);
	__type(value, __u64);
} net_dests SEC(".maps");

/* Descriptors looked at when an image first connects (files it opened for
 * write before it did). */
#define NET_NOTE_FDS 16

static __always_inline bool net_key_allowed(struct pl_proc *p, __u64 now)
{
	return gcra_allow(&p->net_key_tat_ns, now, net_key_burst, net_key_interval_ns);
}

static __always_inline void dest_key(struct pl_net_key *k, struct trace_event_raw_inet_sock_set_state *ctx,
				     __u64 image_id)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->image_id = image_id;
	k->port = ctx->dport;
	k->family = ctx->family;
	/* the ctx may not be read at a computed offset: copy through a helper */
	if (ctx->family == PL_AF_INET6)
		bpf_probe_read_kernel(k->addr, 16, ctx->daddr_v6);
	else
		bpf_probe_read_kernel(k->addr, 4, ctx->daddr);
}

static __always_inline void on_attempt(struct trace_event_raw_inet_sock_set_state *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	__u32 tgid = t->tgid;
	__u64 sk = (__u64)ctx->skaddr, now;
	struct thread_state *lth;
	struct net_sock ns = {};
	struct pl_net_key k;
	struct pl_proc *p;

	if (tgid == self_tgid || !is_user_task(t))
		return;
	p = get_proc(t, tgid);
	if (!p)
		return;
	now = bpf_ktime_get_ns();
	__sync_fetch_and_add(&p->st.net_connects, 1);
	if (!(p->id.flags & PL_PROC_CONNECTED)) {
		__sync_fetch_and_or(&p->id.flags, PL_PROC_CONNECTED);
		lth = bpf_task_storage_get(&threads, t->group_leader, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (lth)
			lth->net_connected = 1;
		/* files it opened for write before it connected: what the shell
		 * made its stdout (`curl URL > f`), the output `wget -O f` opens
		 * first; its lowest descriptors, once per image */
		for (int fd = 1; fd < NET_NOTE_FDS; fd++)
			net_note_file(net_fd_file(t, fd), tgid);
	}
	dest_key(&k, ctx, p->id.image_id);
	if (!bpf_map_lookup_elem(&net_dests, &k)) {
		__sync_fetch_and_add(&p->st.net_dests, 1);
		if (net_key_allowed(p, now)) {
			bpf_map_update_elem(&net_dests, &k, &now, BPF_ANY);
			ns.new_dest = 1;
		} else {
			count_drop(PL_DROP_NET_IMAGE);
		}
	}
	ns.image_id = p->id.image_id;
	ns.attempt_ns = now;
	ns.tgid = tgid;
	bpf_map_update_elem(&net_socks, &sk, &ns, BPF_ANY);
}

static __always_inline void on_outcome(struct trace_event_raw_inet_sock_set_state *ctx, __u32 outcome)
{
	__u64 sk = (__u64)ctx->skaddr;
	struct net_sock *ns = bpf_map_lookup_elem(&net_socks, &sk);
	struct pl_ev_net *ev;
	struct pl_proc *p;
	__u32 tgid;

	if (!ns)
		return;
	tgid = ns->tgid;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (p && p->id.image_id == ns->image_id) {
		if (outcome == PL_NET_FAILED)
			__sync_fetch_and_add(&p->st.net_connect_fail, 1);
		if (ns->new_dest && (ev = reserve(sizeof(*ev)))) {
			fill_hdr(&ev->hdr, PL_EV_NET, sizeof(*ev), tgid, bpf_ktime_get_ns());
			bpf_probe_read_kernel(&ev->id, sizeof(ev->id), &p->id);
			dest_key(&ev->key, ctx, ns->image_id);
			ev->attempt_ns = ns->attempt_ns;
			ev->outcome = outcome;
			ev->pad = 0;
			submit(ev);
		}
	}
	bpf_map_delete_elem(&net_socks, &sk);
}

SEC("tracepoint/sock/inet_sock_set_state")
int pl_inet_state(struct trace_event_raw_inet_sock_set_state *ctx)
{
	if (ctx->protocol != PL_IPPROTO_TCP || (ctx->family != PL_AF_INET && ctx->family != PL_AF_INET6))
		return 0;
	if (ctx->oldstate == PL_TCP_CLOSE && ctx->newstate == PL_TCP_SYN_SENT)
		on_attempt(ctx);
	else if (ctx->oldstate == PL_TCP_SYN_SENT)
		on_outcome(ctx, ctx->newstate == PL_TCP_ESTABLISHED ? PL_NET_CONNECTED : PL_NET_FAILED);
	return 0;
}
