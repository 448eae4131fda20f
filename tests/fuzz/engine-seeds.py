#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of fuzz-engine: the scenarios of tests/trace and
tests/lib (critical paths, interrupts, forks, locks, tid reuse, GC, the
memory budget) in fuzz-engine.c's binary encoding.

Usage: engine-seeds.py DIR. The tables below mirror those of fuzz-engine.c
(classes, rules' fields, ints, strs, tids): keep them in step, or the seeds
decode to other events (still valid input, only less to the point).
"""
import os
import sys

US, MS, S = 1000, 1000000, 1000000000
CLASSES = [
    "sched_switch", "sched_wakeup", "sched_waking", "sched_wakeup_new", "sched_process_fork",
    "sched_process_exec", "sched_process_exit", "sched_process_free",
    "lttng_statedump_process_state", "irq_handler_entry", "irq_handler_exit",
    "irq_softirq_entry", "irq_softirq_exit", "irq_softirq_raise", "softirq_entry",
    "softirq_exit", "softirq_raise", "timer_hrtimer_expire_entry", "timer_hrtimer_expire_exit",
    "hrtimer_expire_entry", "hrtimer_expire_exit", "x86_irq_vectors_reschedule_entry",
    "x86_irq_vectors_reschedule_exit", "syscall_entry_read", "syscall_exit_read",
    "syscall_entry_futex", "syscall_exit_futex", "sys_read", "exit_syscall", "block_rq_issue",
    "lttng_ust_pthread:pthread_mutex_lock_req", "lttng_ust_pthread:pthread_mutex_lock_acq",
    "lttng_ust_pthread:pthread_mutex_unlock", "lttng_ust_pthread:pthread_mutex_trylock",
    "jank:action_begin", "jank:action_end", "app:begin", "app:end", "app:post", "app:run",
    "lttng_ust_cyg_profile:func_entry", "lttng_ust_cyg_profile:func_exit",
    "lttng_ust_cyg_profile_fast:func_entry", "lttng_ust_cyg_profile_fast:func_exit",
]
# The fields the model reads (lib/layout.c), by class.
SWITCH = ["prev_comm", "prev_tid", "prev_state", "next_comm", "next_tid"]
WAKEUP = ["comm", "tid", "target_cpu"]
LAYOUT_FIELDS = {
    "sched_switch": SWITCH, "sched_wakeup": WAKEUP, "sched_waking": WAKEUP,
    "sched_wakeup_new": WAKEUP,
    "sched_process_fork": ["parent_tid", "parent_pid", "child_comm", "child_tid", "child_pid"],
    "sched_process_exec": ["filename", "tid"], "sched_process_exit": ["comm", "tid"],
    "sched_process_free": ["comm", "tid"],
    "lttng_statedump_process_state": ["tid", "pid", "name", "status"],
    "irq_handler_entry": ["irq"], "irq_handler_exit": ["irq"],
}
for c in CLASSES:
    if "softirq" in c:
        LAYOUT_FIELDS[c] = ["vec"]
    if c.startswith("lttng_ust_pthread:"):
        LAYOUT_FIELDS[c] = ["mutex", "status"]
    if "cyg_profile" in c:
        LAYOUT_FIELDS[c] = ["addr"]
    if c.startswith("syscall_exit_"):
        LAYOUT_FIELDS[c] = ["ret"]
# The call stack contexts that the engine asks of every kernel class, after
# the rules' fields; their values are stacks[] of fuzz-engine.c, by index.
STACK_FIELDS = ["callstack_user", "callstack_kernel"]
STACKS = ["empty", "a", "b", "a-top", "repeated", "kernel", "zero", "deep"]
# rule_defs[]: begin, end, keys, match field.
RULES = [
    ("jank:action_begin", "jank:action_end", ["name", "id"], "name"),
    ("syscall_entry_read", "syscall_exit_read", [], None),
    ("syscall_entry_futex", "syscall_exit_futex", [], None),
    ("jank:action_begin", "jank:action_end", ["id"], None),
    ("sched_waking", "sched_switch", [], None),
    ("app:begin", "app:begin", ["id"], None),
    ("lttng_ust_pthread:pthread_mutex_lock_req", "lttng_ust_pthread:pthread_mutex_lock_acq",
     ["mutex"], None),
    ("app:begin", "app:end", ["tid", "id"], "id"),
]
INTS = list(range(16)) + [
    16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 0x402, 0x81, 100, 101, 4312, 4377, 65535, -1, -2,
    -100, -2**31, -2**31 - 1, -2**63, -2**63 + 1, 2**31 - 1, 2**31, 0xffffffff, 0x100000005,
    2**63 - 1, 2**63 - 2, 0x1000, 0x2000, 0x7fff0000, 0xffff880000001000 - 2**64, 255, 256, 4095,
    1000, MS, S, 17, 18, 19, 20, 21, 30, 40, 50, 60]
STRS = ["", "frame", "swapper/0", "worker", "db", "backup", "t1", "a"]
TIDS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 100, 101, 4312, 4377]
STRING_FIELDS = {"comm", "prev_comm", "next_comm", "child_comm", "parent_comm", "name",
                 "filename", "procname"}
OP_DISCARDED, OP_TICK, OP_LIMITS, OP_RULES = 0xf8, 0xf9, 0xfa, 0xfb


def delta_byte(ns):
    """The delta byte whose value is the smallest at or above ns."""
    best = None
    for d in range(256):
        v = (d & 31) << (4 * (d >> 5))
        if v >= ns and (best is None or v < best[0]):
            best = (v, d)
    return best[1]


class Seed:
    """h0 flags, h1 limits (retention, memory-limit, timeout), h2 rule mask, h3 grace."""

    def __init__(self, rules=0x01, twin=False, report_all=True, layout=0, kernel=0,
                 retention=6, limit=7, timeout=3, grace=0, gc=True):
        self.rules = rules
        h0 = (1 if twin else 0) | (2 if report_all else 0) | (layout << 2) | (kernel << 4)
        h0 |= 0 if gc else 0x40
        self.out = bytes([h0, retention | (limit << 3) | (timeout << 6), rules, grace])
        self.ts = 0

    def fields(self, name):
        f = list(LAYOUT_FIELDS.get(name, []))
        for i, (b, e, keys, match) in enumerate(RULES):
            if not self.rules & (1 << i):
                continue
            for _ in [x for x in (b, e) if x == name]:
                for k in keys + ([match] if match else []):
                    if k != "tid" and k not in f:
                        f.append(k)
        if ":" not in name:  # a kernel class
            f += [k for k in STACK_FIELDS if k not in f]
        return f

    def ev(self, ts, cpu, cls, ctx_tid=None, **vals):
        """An event at ts (ns from the start), with a tid context when ctx_tid is given."""
        ctx = (cpu & 3) | ((0x80 | TIDS.index(ctx_tid) << 3) if ctx_tid is not None else 0)
        d = delta_byte(max(ts - self.ts, 0))
        self.ts += (d & 31) << (4 * (d >> 5))
        b = [CLASSES.index(cls), ctx, d]
        for f in self.fields(cls):
            v = vals.get(f)
            if v is None:
                b.append(0xc0)  # absent
            elif f in STRING_FIELDS:
                b.append(STRS.index(v))
            elif f in STACK_FIELDS:
                b.append(STACKS.index(v))
            else:
                b.append(INTS.index(v))
        self.out += bytes(b)
        return self

    def raw(self, *b):
        self.out += bytes(b)
        return self

    def sw(self, ts, cpu, prev, state, nxt):
        return self.ev(ts, cpu, "sched_switch", prev_comm="t1", prev_tid=prev, prev_state=state,
                       next_comm="worker", next_tid=nxt)

    def wake(self, ts, cpu, tid, waking=True):
        if waking:
            self.ev(ts, cpu, "sched_waking", comm="t1", tid=tid, target_cpu=cpu)
        return self.ev(ts, cpu, "sched_wakeup", comm="t1", tid=tid, target_cpu=cpu)

    def action(self, ts, cpu, tid, end, id=1):
        return self.ev(ts, cpu, "jank:action_end" if end else "jank:action_begin", ctx_tid=tid,
                       name="frame", id=id)


def scenarios():
    A, B, C, D = 1, 2, 3, 4
    out = {}

    def both(name, make):
        out[name] = make(Seed(rules=0x09)).out
        out[name + "-twin"] = make(Seed(rules=0x09, twin=True, retention=1)).out

    both("preemption-only", lambda s: s.sw(0, 0, 0, 0, A).action(5, 0, A, False)
         .sw(10, 0, A, 0, B).sw(30, 0, B, 1, A).action(50, 0, A, True).sw(60, 0, A, 1, 0))
    both("woken-by-a-thread", lambda s: s.sw(0, 0, 0, 0, A).action(1, 0, A, False)
         .sw(10, 0, A, 1, B).wake(30, 0, A).sw(40, 0, B, 0, A).action(50, 0, A, True)
         .sw(60, 0, A, 1, 0))
    both("recursive-chain", lambda s: s.sw(0, 0, 0, 0, A).sw(0, 1, 0, 0, B).action(1, 0, A, False)
         .sw(5, 1, B, 1, C).sw(10, 0, A, 1, 0).wake(20, 1, B).sw(25, 1, C, 1, B).wake(30, 1, A)
         .sw(35, 0, 0, 0, A).action(40, 0, A, True).sw(50, 0, A, 1, 0))
    for label, entry, exit_, vals in [
            ("timer", "timer_hrtimer_expire_entry", "timer_hrtimer_expire_exit", {}),
            ("network", "irq_softirq_entry", "irq_softirq_exit", {"vec": 3}),
            ("block", "irq_softirq_entry", "irq_softirq_exit", {"vec": 4}),
            ("irq", "irq_handler_entry", "irq_handler_exit", {"irq": 9})]:
        both("wakeup-from-" + label, lambda s, e=entry, x=exit_, v=vals:
             s.sw(0, 0, 0, 0, A).action(1, 0, A, False).sw(10, 0, A, 1, 0).ev(19, 0, e, **v)
             .wake(20, 0, A).ev(21, 0, x, **v).sw(25, 0, 0, 0, A).action(30, 0, A, True)
             .sw(40, 0, A, 1, 0))
    both("wait-without-waker", lambda s: s.sw(0, 0, 0, 0, A).action(1, 0, A, False)
         .sw(10, 0, A, 1, B).sw(20, 0, B, 1, A).action(30, 0, A, True).sw(40, 0, A, 1, 0))
    both("fork-wait", lambda s: s.sw(0, 0, 0, 0, A)
         .ev(10, 0, "sched_process_fork", parent_tid=A, parent_pid=A, child_comm="t1",
             child_tid=D, child_pid=D)
         .action(11, 1, D, False).ev(12, 0, "sched_wakeup_new", comm="t1", tid=D, target_cpu=1)
         .sw(20, 1, 0, 0, D).action(30, 1, D, True).sw(40, 1, D, 1, 0))
    # A loopback send: NET_RX raised in the sender's context wakes the receiver.
    both("loopback", lambda s: s.sw(0, 0, 0, 0, B).sw(0, 1, 0, 0, A).action(1, 1, A, False)
         .sw(5, 1, A, 1, 0).ev(10, 0, "irq_softirq_raise", vec=3)
         .ev(11, 0, "irq_softirq_entry", vec=3).wake(12, 0, A).ev(13, 0, "irq_softirq_exit", vec=3)
         .sw(20, 1, 0, 0, A).action(30, 1, A, True))
    # The demo's story: statedump, a db thread waiting for the disk, a backup hog.
    out["demo"] = (Seed(rules=0x09, kernel=2)
                   .ev(0, 0, "lttng_statedump_process_state", tid=4312, pid=4312, name="worker",
                       status=5)
                   .ev(0, 0, "lttng_statedump_process_state", tid=4377, pid=4312, name="db",
                       status=5)
                   .ev(MS, 0, "timer_hrtimer_expire_entry").wake(MS + 2 * US, 0, 4312)
                   .ev(MS + 3 * US, 0, "timer_hrtimer_expire_exit").sw(MS + 10 * US, 0, 0, 0, 4312)
                   .action(MS + 20 * US, 0, 4312, False).wake(2 * MS, 0, 4377)
                   .sw(2 * MS, 1, 0, 0, 4377).sw(2 * MS, 0, 4312, 1, 0)
                   .sw(3 * MS, 1, 4377, 1, 0).ev(40 * MS, 1, "irq_softirq_entry", vec=4)
                   .wake(40 * MS, 1, 4377).ev(40 * MS, 1, "irq_softirq_exit", vec=4)
                   .sw(41 * MS, 1, 0, 0, 4377).wake(43 * MS, 1, 4312).sw(43 * MS, 1, 4377, 1, 0)
                   .sw(43 * MS, 0, 0, 0, 4312).action(45 * MS, 0, 4312, True)
                   .sw(45 * MS, 0, 4312, 1, 0).out)
    # User-space locks, with and without scheduler events.
    for kernel in (False, True):
        s = Seed(rules=0x40 | 0x01)
        if kernel:
            s.sw(0, 0, 0, 0, A).sw(0, 1, 0, 0, B)
        m = "lttng_ust_pthread:pthread_mutex_"
        s.ev(10, 0, m + "lock_req", ctx_tid=A, mutex=0x1000).ev(11, 0, m + "lock_acq", ctx_tid=A,
                                                               mutex=0x1000)
        s.ev(20, 1, m + "lock_req", ctx_tid=B, mutex=0x1000)
        if kernel:
            s.sw(21, 1, B, 1, 0)
        s.ev(30, 0, m + "unlock", ctx_tid=A, mutex=0x1000)
        if kernel:
            s.wake(30, 0, B).sw(35, 1, 0, 0, B)
        s.ev(36, 1, m + "lock_acq", ctx_tid=B, mutex=0x1000).ev(40, 1, m + "trylock", ctx_tid=B,
                                                               mutex=0x2000, status=1)
        s.ev(50, 1, m + "unlock", ctx_tid=B, mutex=0x1000)
        out["locks-kernel" if kernel else "locks-ust"] = s.out
    # The CPU's current thread exits and GC frees it; then the CPU goes on.
    s = Seed(rules=0x09, retention=3).sw(0, 0, 0, 0, 100)
    s.ev(100, 0, "sched_process_exit", comm="t1", tid=100)
    for i in range(12):
        s.sw(3 * MS * (i + 1), 1, (1 if i % 2 else 2), 0, (2 if i % 2 else 1))
    s.raw(OP_TICK, 0xb0).sw(60 * MS, 0, 100, 0, 4)
    out["current-exits-gc"] = s.out
    # A tid reused by fork while it is a CPU's current thread.
    s = Seed(rules=0x09, retention=3).sw(0, 0, 0, 0, 100)
    s.ev(100, 1, "sched_process_fork", parent_tid=101, parent_pid=101, child_comm="t1",
         child_tid=100, child_pid=100)
    for i in range(12):
        s.sw(2 * MS * (i + 1), 1, (1 if i % 2 else 2), 0, (2 if i % 2 else 1))
    s.sw(40 * MS, 0, 100, 1, 0)
    out["tid-reuse-current"] = s.out
    # 9 nested interrupts (the stack holds 8) around a wakeup.
    s = Seed(rules=0x09).sw(0, 0, 0, 0, A).action(1, 0, A, False).sw(100, 0, A, 1, B)
    for i in range(9):
        s.ev(200 + i, 0, "irq_handler_entry", irq=5)
    s.wake(300, 0, A)
    for i in range(9):
        s.ev(400 + i, 0, "irq_handler_exit", irq=5)
    out["irq-nest-9"] = s.sw(500, 0, B, 1, A).action(600, 0, A, True).out
    # Events lost in the middle of an action.
    out["discarded"] = (Seed(rules=0x09, grace=1, timeout=1).sw(0, 0, 0, 0, A)
                        .action(1, 0, A, False).sw(10, 0, A, 1, B).raw(OP_DISCARDED, 0, 5)
                        .sw(20, 0, B, 1, A).action(30, 0, A, True).raw(OP_DISCARDED, 4, 1)
                        .action(40, 0, A, False).raw(OP_TICK, 0x90).out)
    # Thread churn under a small memory budget: forced sweeps, truncated paths.
    for limit, name in ((0, "budget-1-byte"), (2, "budget-16KiB")):
        s = Seed(rules=0x0b, limit=limit, retention=7).sw(0, 0, 0, 0, A).action(1, 0, A, False)
        for i in range(60):
            t = 5 + i % 9
            s.ev(10 * US * (i + 1), i % 2, "sched_process_fork", parent_tid=A, parent_pid=A,
                 child_comm="t1", child_tid=t, child_pid=t)
            s.sw(10 * US * (i + 1) + 1, i % 2, (A if i % 2 == 0 else 0), 0, t)
            s.ev(10 * US * (i + 1) + 2, i % 2, "syscall_entry_read")
            s.ev(10 * US * (i + 1) + 3, i % 2, "syscall_exit_read")
            s.sw(10 * US * (i + 1) + 5, i % 2, t, 64, A)
            s.ev(10 * US * (i + 1) + 6, i % 2, "sched_process_free", comm="t1", tid=t)
        out[name] = s.action(MS, 0, A, True).out
    # Config reloads: limits and rules change while actions are open.
    out["reload"] = (Seed(rules=0x29).sw(0, 0, 0, 0, A).action(1, 0, A, False)
                     .ev(2, 0, "app:begin", ctx_tid=A, id=3).raw(OP_LIMITS, 0x05)
                     .sw(10, 0, A, 1, B).raw(OP_RULES, 0x21).wake(20, 0, A).sw(25, 0, B, 0, A)
                     .action(30, 0, A, True).ev(31, 0, "app:end", ctx_tid=A, id=3)
                     .raw(OP_RULES, 0xff).ev(40, 0, "app:begin", ctx_tid=A, id=3)
                     .ev(50, 0, "app:end", ctx_tid=A, id=3).out)
    # Adaptive thresholds and syscall rules, old layout and kernel, overdue reports.
    s = Seed(rules=0x86, layout=1, kernel=1, grace=2, timeout=2).sw(0, 0, 0, 0, A)
    for i in range(12):
        base = (i + 1) * MS
        s.ev(base, 0, "syscall_entry_futex").sw(base + 10, 0, A, 1, 0)
        s.wake(base + 100 * (i + 1), 0, A, waking=False).sw(base + 100 * (i + 1) + 5, 0, 0, 0, A)
        s.ev(base + 100 * (i + 1) + 9, 0, "syscall_exit_futex")
        s.ev(base + 20, 1, "app:begin", ctx_tid=B, id=3).ev(base + 30 + i, 1, "app:end", ctx_tid=B, id=3)
    out["adaptive-old-layout"] = s.raw(OP_TICK, 0xe0).out
    # Functions (cyg-profile) on the action's thread, both providers: nested
    # entries, an exit without its address (the fast provider), an exit that
    # is not the innermost frame's (events lost), across a blocking wait.
    both("functions", lambda s: s.sw(0, 0, 0, 0, A).action(1, 0, A, False)
         .ev(2, 0, "lttng_ust_cyg_profile:func_entry", ctx_tid=A, addr=0x1000)
         .ev(3, 0, "lttng_ust_cyg_profile:func_entry", ctx_tid=A, addr=0x2000)
         .ev(4, 0, "lttng_ust_cyg_profile_fast:func_entry", ctx_tid=A, addr=0x402)
         .sw(10, 0, A, 1, B).wake(20, 0, A).sw(25, 0, B, 0, A)
         .ev(26, 0, "lttng_ust_cyg_profile_fast:func_exit", ctx_tid=A)
         .ev(27, 0, "lttng_ust_cyg_profile:func_exit", ctx_tid=A, addr=0x1000)
         .action(30, 0, A, True).ev(31, 0, "lttng_ust_cyg_profile:func_exit", ctx_tid=A,
                                    addr=0x2000).sw(40, 0, A, 1, 0))
    # Kernel call stacks (callstack_user, callstack_kernel contexts): a
    # system call's entry says where the thread blocked, its exit drops it.
    both("kernel-stacks", lambda s: s.sw(0, 0, 0, 0, A).action(1, 0, A, False)
         .ev(2, 0, "syscall_entry_read", callstack_user="a", callstack_kernel="kernel")
         .sw(10, 0, A, 1, B).wake(20, 0, A).sw(25, 0, B, 0, A)
         .ev(26, 0, "syscall_exit_read", callstack_user="b")
         .ev(27, 0, "syscall_entry_futex", callstack_user="deep")
         .ev(28, 0, "syscall_exit_futex", callstack_user="repeated", callstack_kernel="zero")
         .action(30, 0, A, True).sw(40, 0, A, 1, 0))
    return out


def main():
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    for name, data in scenarios().items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


main()
